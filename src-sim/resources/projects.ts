import type { RequestContext } from '../core/context.ts'
import type { VaultAccess } from '../core/sim-core.ts'
import { invalid, notFound, unauthorized, unprocessable } from '../core/http-error.ts'
import type { SimModule } from '../core/module.ts'
import type { Params } from '../core/params.ts'

interface ProjectRow {
  id: number
  name: string
  description: string
}

interface MemberInput {
  userId: number
  canManageProject: boolean
  canEditData: boolean
}

function visibleProject(access: VaultAccess, id: number): ProjectRow {
  if (!access.canReadProject(id)) throw notFound(`Project ${id}`)
  return access.db
    .prepare(`SELECT id, name, description FROM projects WHERE id = ?`)
    .get(id) as ProjectRow
}

function mayManage(access: VaultAccess, projectId: number): boolean {
  if (access.isAdmin) return true
  const membership = access.db
    .prepare(`SELECT can_manage_project FROM project_members WHERE project_id = ? AND user_id = ?`)
    .get(projectId, access.user.id) as { can_manage_project: number } | undefined
  return membership?.can_manage_project === 1
}

function showProject(access: VaultAccess, id: number): Record<string, unknown> {
  const project = visibleProject(access, id)
  const members = access.db
    .prepare(
      `SELECT u.id, u.first_name, u.last_name, u.email, pm.can_manage_project, pm.can_edit_data FROM project_members pm
       JOIN users u ON u.id = pm.user_id WHERE pm.project_id = ? ORDER BY u.id`,
    )
    .all(id) as {
    id: number
    first_name: string
    last_name: string
    email: string
    can_manage_project: number
    can_edit_data: number
  }[]
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    members: members.map((member) => ({
      ...member,
      can_manage_project: member.can_manage_project === 1,
      can_edit_data: member.can_edit_data === 1,
    })),
  }
}

/** `members` items name users by `user_id` (the show answer calls it `id`); each must be in the vault. */
function readMembers(access: VaultAccess, params: Params): MemberInput[] | undefined {
  const items = params.objects('members')
  if (!items) return undefined
  return items.map((item) => {
    const userId = item.integer('user_id') ?? item.integer('id')
    if (userId === undefined) throw invalid(item.nameOf('user_id'), 'is required')
    const inVault = access.db
      .prepare(`SELECT role FROM vault_members WHERE vault_id = ? AND user_id = ?`)
      .get(access.vault.id, userId) as { role: string } | undefined
    if (!inVault) throw invalid(item.nameOf('user_id'), `${userId} is not a member of this vault`)
    const member = {
      userId,
      canManageProject: item.boolean('can_manage_project', false),
      canEditData: item.boolean('can_edit_data', inVault.role !== 'reader'),
    }
    item.ignore('first_name', 'last_name', 'email')
    item.rejectUnknown()
    if (member.canEditData && inVault.role === 'reader') {
      throw invalid(
        item.nameOf('can_edit_data'),
        `cannot be true for user ${userId}, a read-only member of the vault`,
      )
    }
    return member
  })
}

function replaceMembers(
  access: VaultAccess,
  projectId: number,
  members: readonly MemberInput[],
): void {
  access.db.prepare(`DELETE FROM project_members WHERE project_id = ?`).run(projectId)
  const insert = access.db.prepare(
    `INSERT INTO project_members (project_id, user_id, can_manage_project, can_edit_data) VALUES (?, ?, ?, ?)`,
  )
  for (const member of members)
    insert.run(
      projectId,
      member.userId,
      Number(member.canManageProject),
      Number(member.canEditData),
    )
}

function assertUnusedName(access: VaultAccess, name: string, exceptId: number): void {
  const clash = access.db
    .prepare(`SELECT id FROM projects WHERE vault_id = ? AND name = ? AND id != ?`)
    .get(access.vault.id, name, exceptId) as { id: number } | undefined
  if (clash) throw invalid('name', `'${name}' is already the name of project ${clash.id}`)
}

async function createProject(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  if (!access.canManageProjects)
    throw unauthorized(
      'The API key is not authorized to create projects: it needs permission to manage projects',
    )
  const params = await ctx.input()
  const name = params.requiredString('name').trim()
  const description = params.string('description', { allowEmpty: true }) ?? ''
  const members = readMembers(access, params) ?? []
  params.rejectUnknown()
  const id = access.db.transaction(() => {
    assertUnusedName(access, name, 0)
    const now = access.sim.clock.nowSeconds()
    const projectId = Number(
      access.db
        .prepare(
          `INSERT INTO projects (vault_id, name, description, created_at, modified_at) VALUES (?, ?, ?, ?, ?)`,
        )
        .run(access.vault.id, name, description, now, now).lastInsertRowid,
    )
    // The creator always belongs to the new project and may manage it.
    const withCreator = members.some((member) => member.userId === access.user.id)
      ? members
      : [
          ...members,
          { userId: access.user.id, canManageProject: true, canEditData: access.canWrite },
        ]
    replaceMembers(access, projectId, withCreator)
    return projectId
  })()
  return { id, name }
}

async function updateProject(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const project = visibleProject(access, ctx.pathId('id'))
  if (!mayManage(access, project.id))
    throw unauthorized(`The API key is not authorized to manage project ${project.id}`)
  const params = await ctx.input()
  const bodyId = params.integer('id')
  if (bodyId !== undefined && bodyId !== project.id)
    throw invalid('id', `must equal the id in the path (${project.id}), got ${bodyId}`)
  const name = params.string('name')?.trim()
  const description = params.string('description', { allowEmpty: true })
  const members = readMembers(access, params)
  params.rejectUnknown()
  access.db.transaction(() => {
    if (name !== undefined) {
      assertUnusedName(access, name, project.id)
      access.db.prepare(`UPDATE projects SET name = ? WHERE id = ?`).run(name, project.id)
    }
    if (description !== undefined)
      access.db
        .prepare(`UPDATE projects SET description = ? WHERE id = ?`)
        .run(description, project.id)
    if (members) replaceMembers(access, project.id, members)
    access.db
      .prepare(`UPDATE projects SET modified_at = ? WHERE id = ?`)
      .run(access.sim.clock.nowSeconds(), project.id)
  })()
  // The caller may have removed themselves: answer from what an administrator would see.
  return showProject({ ...access, canReadProject: () => true }, project.id)
}

function deleteProject(ctx: RequestContext): unknown {
  const access = ctx.access
  const project = visibleProject(access, ctx.pathId('id'))
  if (!mayManage(access, project.id))
    throw unauthorized(`The API key is not authorized to manage project ${project.id}`)
  const dependent = access.sim.dependentData('project', project.id)
  if (dependent.length > 0) {
    throw unprocessable(
      `Project ${project.id} cannot be deleted while it has data: ${dependent.join('; ')}`,
    )
  }
  access.db.prepare(`DELETE FROM projects WHERE id = ?`).run(project.id)
  return { id: project.id, name: project.name }
}

/** Projects: the ones the key reaches, create, show with members, update, delete. */
export const projectsModule: SimModule = {
  name: 'projects',
  routes(router) {
    router.get('/vaults/{vault_id}/projects', (ctx) =>
      ctx.access.projectIds.map((id) =>
        ctx.db.prepare(`SELECT id, name FROM projects WHERE id = ?`).get(id),
      ),
    )
    router.post('/vaults/{vault_id}/projects', createProject)
    router.get('/vaults/{vault_id}/projects/{id}', (ctx) =>
      showProject(ctx.access, ctx.pathId('id')),
    )
    router.put('/vaults/{vault_id}/projects/{id}', updateProject)
    router.delete('/vaults/{vault_id}/projects/{id}', deleteProject)
  },
}
