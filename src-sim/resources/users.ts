import type { SimModule } from '../core/module.ts'
import type { VaultRole } from '../core/users-and-vaults.ts'

const roleNames: Record<VaultRole, string> = {
  admin: 'Vault Administrator',
  writer: 'Member',
  reader: 'Read-only Member',
}

interface MemberRow {
  id: number
  first_name: string
  last_name: string
  email: string
  can_witness_eln: number
  role: VaultRole
}

/** GET /users (vault administrators): the members, with include_projects their memberships. */
export const usersModule: SimModule = {
  name: 'users',
  routes(router) {
    router.get(
      '/vaults/{vault_id}/users',
      async (ctx) => {
        const params = await ctx.input()
        const includeProjects = params.boolean('include_projects', false)
        params.rejectUnknown()
        const members = ctx.db
          .prepare(
            `SELECT u.id, u.first_name, u.last_name, u.email, u.can_witness_eln, vm.role FROM vault_members vm
             JOIN users u ON u.id = vm.user_id WHERE vm.vault_id = ? ORDER BY u.id`,
          )
          .all(ctx.access.vault.id) as MemberRow[]
        const projectsOf = ctx.db.prepare(
          `SELECT p.id, p.name, pm.can_manage_project, pm.can_edit_data FROM project_members pm JOIN projects p ON p.id = pm.project_id
           WHERE pm.user_id = ? AND p.vault_id = ? ORDER BY p.id`,
        )
        return members.map((member) => ({
          id: member.id,
          first_name: member.first_name,
          last_name: member.last_name,
          email: member.email,
          role_name: roleNames[member.role],
          can_witness_eln: member.can_witness_eln === 1,
          ...(includeProjects
            ? {
                projects: (
                  projectsOf.all(member.id, ctx.access.vault.id) as {
                    id: number
                    name: string
                    can_manage_project: number
                    can_edit_data: number
                  }[]
                ).map((project) => ({
                  id: project.id,
                  name: project.name,
                  can_manage_project: project.can_manage_project === 1,
                  can_edit_data: project.can_edit_data === 1,
                })),
              }
            : {}),
        }))
      },
      { admin: true },
    )
  },
}
