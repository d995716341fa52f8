import type { RequestContext } from '../../core/context.ts'
import type { VaultAccess } from '../../core/sim-core.ts'
import type { FileExportable } from '../../core/exports/exportable.ts'
import { badRequest, conflict, HttpError, invalid, unprocessable } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import type { Params } from '../../core/params.ts'
import { SqlWhere } from '../../core/sql-where.ts'
import { ELN_ACTIONS, ELN_STATUSES, elnMove, isElnAction } from '../../pure/eln-status.ts'
import { createZip } from '../../pure/zip-writer.ts'
import { readableProjects, requireEditable } from './access-rules.ts'
import { startCheckedExport } from './async-exports.ts'
import {
  elnSchema,
  entryRecord,
  entrySummary,
  visibleEntry,
  type BodyBlock,
  type EntryRow,
} from './eln-store.ts'
import { readContents } from './file-contents.ts'
import { filesOf } from './files.ts'
import { projectItem, resolveProject } from './project-lists.ts'

/**
 * ELN entries: create, update (append_to_body appends text, links and attached files), status
 * actions by vault administrators, and the administrators' query, which as an async export is a
 * ZIP of every entry with its files.
 */

function readBlocks(access: VaultAccess, params: Params, entryId: number | undefined): BodyBlock[] {
  const items = params.objects('append_to_body')
  if (!items) return []
  return items.map((item, index) => {
    const member = `append_to_body[${index}]`
    const type = item.oneOf('type', ['text', 'link', 'file'] as const)
    let block: BodyBlock
    if (type === 'text') {
      block = { type, text: item.requiredString('text') }
    } else if (type === 'link') {
      const url = item.requiredString('url')
      if (!URL.canParse(url)) throw invalid(`${member}.url`, `${JSON.stringify(url)} is not a URL`)
      const label = item.string('label')
      block = label === undefined ? { type, url } : { type, url, label }
    } else if (type === 'file') {
      const fileId = item.integer('file', { min: 1, required: true }) as number
      const file =
        entryId === undefined
          ? undefined
          : filesOf(access, 'eln_entry', entryId).find((candidate) => candidate.id === fileId)
      if (!file) {
        throw invalid(
          `${member}.file`,
          `${fileId} is not a file attached to this entry; attach it with POST /files (resource_class eln_entry) first`,
        )
      }
      block = { type, file: file.id, name: file.name }
    } else {
      throw invalid(`${member}.type`, "is required: 'text', 'link' or 'file'")
    }
    item.rejectUnknown()
    return block
  })
}

async function createEntry(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const params = await ctx.input()
  const title = params.requiredString('title').trim()
  if (!params.has('project')) throw invalid('project', 'is required: give a project id or name')
  const projectId = resolveProject(access, projectItem(params.raw('project'), 'project'), 'project')
  const fields = params.record('eln_fields') ?? {}
  const blocks = readBlocks(access, params, undefined)
  params.rejectUnknown()
  const now = ctx.sim.clock.nowSeconds()
  const id = Number(
    ctx.db
      .prepare(
        `INSERT INTO eln_entries (vault_id, title, project_id, author_id, status, fields, body, created_at, modified_at)
         VALUES (?, ?, ?, ?, 'open', ?, ?, ?, ?)`,
      )
      .run(
        access.vault.id,
        title,
        projectId,
        ctx.user.id,
        JSON.stringify(fields),
        JSON.stringify(blocks),
        now,
        now,
      ).lastInsertRowid,
  )
  return entrySummary(access, visibleEntry(access, id))
}

async function updateEntry(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const row = visibleEntry(access, ctx.pathId('id'))
  requireEditable(access, [row.project_id], `ELN entry ${row.id}`)
  const params = await ctx.input()
  const title = params.string('title')?.trim()
  const projectId = params.has('project')
    ? resolveProject(access, projectItem(params.raw('project'), 'project'), 'project')
    : undefined
  const fields = params.record('eln_fields')
  const blocks = readBlocks(access, params, row.id)
  params.ignore(
    'id',
    'name',
    'status',
    'author',
    'url',
    'witness',
    'status_history',
    'body',
    'created_at',
    'modified_at',
  )
  params.rejectUnknown()
  if (row.status !== 'open') {
    throw unprocessable(
      `ELN entry ${row.id} is ${row.status}; only open entries can be changed (reopen it first)`,
    )
  }
  const next = {
    title: title ?? row.title,
    projectId: projectId ?? row.project_id,
    fields: JSON.stringify({ ...(JSON.parse(row.fields) as object), ...fields }),
    body: JSON.stringify([...(JSON.parse(row.body) as BodyBlock[]), ...blocks]),
  }
  // Only supplied attributes change: an update that changes nothing leaves the entry as it was,
  // its modified_at too (as a record that is saved unchanged is not touched).
  const unchanged =
    next.title === row.title &&
    next.projectId === row.project_id &&
    next.fields === JSON.stringify(JSON.parse(row.fields)) &&
    blocks.length === 0
  if (!unchanged) {
    ctx.db
      .prepare(
        `UPDATE eln_entries SET title = ?, project_id = ?, fields = ?, body = ?, modified_at = ? WHERE id = ?`,
      )
      .run(next.title, next.projectId, next.fields, next.body, ctx.sim.clock.nowSeconds(), row.id)
  }
  return entryRecord(access, visibleEntry(access, row.id))
}

/** The witness must be a member of the vault allowed to witness, and not the author. */
function readWitness(access: VaultAccess, params: Params, row: EntryRow): number {
  const raw = params.raw('witness')
  if (raw === undefined || raw === null || raw === '')
    throw badRequest('submit needs a witness (a user id)')
  const witnessId =
    typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN
  if (!Number.isSafeInteger(witnessId))
    throw badRequest(`witness must be a user id, got ${JSON.stringify(raw)}`)
  const witness = access.db
    .prepare(
      `SELECT users.id, users.can_witness_eln FROM users JOIN vault_members ON vault_members.user_id = users.id
       WHERE users.id = ? AND vault_members.vault_id = ?`,
    )
    .get(witnessId, access.vault.id) as { id: number; can_witness_eln: number } | undefined
  if (!witness || witness.can_witness_eln !== 1) {
    throw new HttpError(404, `Witness ${witnessId} not found among the vault's witnesses`)
  }
  if (witness.id === row.author_id)
    throw badRequest('the witness must be someone other than the author')
  return witness.id
}

async function changeStatus(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const params = await ctx.input()
  const action = params.raw('status_action')
  if (!isElnAction(action)) {
    throw badRequest(
      `status_action ${action === undefined ? 'is missing' : `${JSON.stringify(action)} is not valid`}; use one of ${ELN_ACTIONS.join(', ')}`,
    )
  }
  const row = visibleEntry(access, ctx.pathId('id'))
  const reason = params.string('reason')
  params.ignore('witness')
  params.rejectUnknown()
  const move = elnMove(action, row.status, access.vault.elnWitnessing)
  if (!move.ok) throw conflict(`ELN entry ${row.id}: ${move.reason}`)
  const witnessId = move.requires === 'witness' ? readWitness(access, params, row) : undefined
  if (move.requires === 'reason' && reason === undefined)
    throw badRequest(`${action} needs a reason`)
  const now = ctx.sim.clock.nowSeconds()
  ctx.db.transaction(() => {
    ctx.db
      .prepare(`UPDATE eln_entries SET status = ?, witness_id = ?, modified_at = ? WHERE id = ?`)
      .run(move.status, witnessId ?? (move.status === 'open' ? null : row.witness_id), now, row.id)
    ctx.db
      .prepare(
        `INSERT INTO eln_status_changes (entry_id, action, from_status, to_status, user_id, witness_id, reason, at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        row.id,
        action,
        row.status,
        move.status,
        ctx.user.id,
        witnessId ?? null,
        reason ?? null,
        now,
      )
  })()
  return entryRecord(access, visibleEntry(access, row.id))
}

function readEntryQuery(access: VaultAccess, params: Params): EntryRow[] {
  const projects = params.ids('projects')
  const where = new SqlWhere()
    .add(`vault_id = ?`, access.vault.id)
    .add(
      `project_id IN (SELECT value FROM json_each(?))`,
      projects
        ? JSON.stringify(projects.filter((id) => access.canReadProject(id)))
        : readableProjects(access),
    )
  const statuses = params.strings('statuses')
  statuses?.forEach((status, index) => {
    if (!(ELN_STATUSES as readonly string[]).includes(status)) {
      throw invalid(
        `statuses[${index}]`,
        `must be one of ${ELN_STATUSES.join(', ')}, got ${JSON.stringify(status)}`,
      )
    }
  })
  if (statuses) where.add(`status IN (SELECT value FROM json_each(?))`, JSON.stringify(statuses))
  const authors = params.ids('authors')
  if (authors) where.ids('author_id', authors)
  where.dateRange(params, 'created', 'created_at').dateRange(params, 'modified', 'modified_at')
  params.ignore('async', 'format')
  params.rejectUnknown()
  return access.db
    .prepare(`SELECT * FROM eln_entries${where} ORDER BY id`)
    .all(...where.args) as EntryRow[]
}

/** The ZIP of an entries export: index.json, then per entry its JSON and its attached files. */
const entriesExport: FileExportable = {
  kind: 'eln_entries',
  formats: ['zip'],
  render(access, params) {
    const rows = readEntryQuery(access, params)
    return createZip([
      {
        name: 'index.json',
        data: JSON.stringify(
          rows.map((row) => entrySummary(access, row)),
          null,
          2,
        ),
      },
      ...rows.flatMap((row) => [
        {
          name: `entries/${row.id}/entry.json`,
          data: JSON.stringify(entryRecord(access, row), null, 2),
        },
        ...filesOf(access, 'eln_entry', row.id).map((file) => ({
          name: `entries/${row.id}/files/${file.id}-${file.name}`,
          data: readContents(access.sim.filesDirectory, file.id),
        })),
      ]),
    ])
  },
}

async function queryEntries(ctx: RequestContext): Promise<unknown> {
  const params = await ctx.input()
  if (params.boolean('async', false)) {
    return startCheckedExport(ctx, 'eln_entries', params, 'zip', (copy) =>
      readEntryQuery(ctx.access, copy),
    )
  }
  return readEntryQuery(ctx.access, params).map((row) => entrySummary(ctx.access, row))
}

export const elnEntriesModule: SimModule = {
  name: 'eln entries',
  schema: elnSchema,
  routes(router) {
    router.post('/vaults/{vault_id}/eln/entries', createEntry, { write: true })
    router.query('/vaults/{vault_id}/eln/entries', queryEntries, { admin: true })
    router.put('/vaults/{vault_id}/eln/entries/{id}', updateEntry, { write: true })
    router.post('/vaults/{vault_id}/eln/entries/{id}/status', changeStatus, { admin: true })
  },
  exportables: [entriesExport],
  dependentData: {
    project: (db, projectId) => {
      const { count } = db
        .prepare(`SELECT COUNT(*) AS count FROM eln_entries WHERE project_id = ?`)
        .get(projectId) as { count: number }
      return count > 0 ? `${count} ELN entries` : undefined
    },
  },
}
