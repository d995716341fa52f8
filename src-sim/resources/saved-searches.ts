import type { Database } from 'better-sqlite3'
import type { RequestContext } from '../core/context.ts'
import type { VaultAccess } from '../core/sim-core.ts'
import { formatSeconds } from '../core/dates.ts'
import type { RecordExportable } from '../core/exports/exportable.ts'
import { HttpError, invalid, notFound, unauthorized } from '../core/http-error.ts'
import type { SimModule } from '../core/module.ts'
import { Params } from '../core/params.ts'
import { readRegistryQuery } from './molecule-query/registry-query.ts'
import { matchingIds } from './molecule-query/run-query.ts'
import { moleculeRecords } from './molecule-query/records.ts'

/**
 * Saved searches. `search_id` is the stored search; `saved_search_session_id` is the
 * user-facing saved search that names it (deleting the last session deletes the search).
 * `search_criteria` members: structure, structure_search_type, structure_similarity_threshold,
 * keyword (contained in the molecule name), molecule_criteria (fields_search items),
 * collection_criteria and protocol_criteria (as in a molecule query).
 */
const schema = `
CREATE TABLE IF NOT EXISTS saved_searches (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  project_id INTEGER NOT NULL REFERENCES projects(id),
  search_criteria TEXT NOT NULL,
  display_criteria TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS saved_search_sessions (
  id INTEGER PRIMARY KEY,
  search_id INTEGER NOT NULL REFERENCES saved_searches(id) ON DELETE CASCADE,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  name TEXT NOT NULL,
  owner_id INTEGER NOT NULL REFERENCES users(id),
  created_at INTEGER NOT NULL,
  UNIQUE (vault_id, name)
);
`

interface SessionRow {
  id: number
  search_id: number
  name: string
  owner_id: number
  created_at: number
  project_id: number
  project_name: string
  search_criteria: string
  display_criteria: string
  modified_at: number
  owner_first: string
  owner_last: string
}

const selectSessions = `SELECT s.id, s.search_id, s.name, s.owner_id, s.created_at, q.project_id, p.name AS project_name,
  q.search_criteria, q.display_criteria, q.modified_at, u.first_name AS owner_first, u.last_name AS owner_last
  FROM saved_search_sessions s JOIN saved_searches q ON q.id = s.search_id JOIN projects p ON p.id = q.project_id
  JOIN users u ON u.id = s.owner_id`

const criteriaMembers = [
  'structure',
  'structure_search_type',
  'structure_similarity_threshold',
  'keyword',
  'molecule_criteria',
  'collection_criteria',
  'protocol_criteria',
]

/** Drops members with empty values, as list items do. */
function withoutEmpty(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value).filter(
      ([, item]) =>
        item !== null &&
        item !== undefined &&
        item !== '' &&
        !(Array.isArray(item) && item.length === 0),
    ),
  )
}

function listItem(row: SessionRow): Record<string, unknown> {
  return withoutEmpty({
    id: row.id,
    name: row.name,
    saved_search_session_id: row.id,
    search_id: row.search_id,
    projects: [{ id: row.project_id, name: row.project_name }],
    owner: `${row.owner_first} ${row.owner_last}`,
    search_criteria: withoutEmpty(JSON.parse(row.search_criteria) as Record<string, unknown>),
    display_criteria: JSON.parse(row.display_criteria) as unknown,
    created_at: formatSeconds(row.created_at),
    modified_at: formatSeconds(row.modified_at),
  })
}

/** The molecule query a saved search stands for, limited to `projects` and `data_sets` if given. */
function moleculeQueryBody(
  criteria: Record<string, unknown>,
  projectId: number,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  const body: Record<string, unknown> = { projects: [projectId], ...extra }
  for (const member of [
    'structure',
    'structure_search_type',
    'structure_similarity_threshold',
    'collection_criteria',
    'protocol_criteria',
  ]) {
    if (criteria[member] !== undefined) body[member] = criteria[member]
  }
  const fields = [...((criteria.molecule_criteria as unknown[] | undefined) ?? [])]
  if (typeof criteria.keyword === 'string' && criteria.keyword !== '')
    fields.push({ name: 'Molecule Name', text_value: criteria.keyword })
  if (fields.length > 0) body.fields_search = fields
  return body
}

function readCriteria(
  access: VaultAccess,
  params: Params,
  projectId: number,
): Record<string, unknown> {
  const criteria = params.object('search_criteria', { required: true })!
  for (const member of criteriaMembers) criteria.raw(member)
  criteria.rejectUnknown()
  const type = criteria.raw('structure_search_type')
  if (type !== undefined && !['exact', 'substructure', 'similarity'].includes(type as string)) {
    throw invalid(
      'search_criteria.structure_search_type',
      `${JSON.stringify(type)} is not a structure search type (exact, substructure or similarity)`,
    )
  }
  const values = criteria.toJSON()
  try {
    readRegistryQuery(
      access,
      new Params(moleculeQueryBody(values, projectId, {}), 'body', params.timeZone),
      'molecules',
    )
  } catch (error) {
    if (error instanceof HttpError)
      throw invalid('search_criteria', `is not a valid search: ${error.message}`)
    throw error
  }
  return values
}

function visibleSession(
  db: Database,
  access: VaultAccess,
  sessionId: number,
): SessionRow | undefined {
  const row = db
    .prepare(`${selectSessions} WHERE s.id = ? AND s.vault_id = ?`)
    .get(sessionId, access.vault.id) as SessionRow | undefined
  return row && access.canReadProject(row.project_id) ? row : undefined
}

async function createSearch(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const params = await ctx.input()
  const name = params.requiredString('name').trim()
  const projects =
    params.ids('projects') ?? (params.has('project') ? [params.requiredInteger('project')] : [])
  if (projects.length !== 1)
    throw invalid('projects', `must name exactly one project, got ${projects.length}`)
  const projectId = projects[0]!
  if (!access.canReadProject(projectId))
    throw invalid('projects', `${projectId} is not a project you can reach`)
  const criteria = readCriteria(access, params, projectId)
  const display = params.record('display_criteria') ?? {}
  params.ignore('id', 'saved_search_session_id', 'search_id', 'owner', 'created_at', 'modified_at')
  params.rejectUnknown()
  const db = access.db
  const sessionId = db.transaction(() => {
    if (
      db
        .prepare(`SELECT 1 FROM saved_search_sessions WHERE vault_id = ? AND name = ?`)
        .get(access.vault.id, name)
    ) {
      throw invalid('name', `'${name}' is already the name of a saved search`)
    }
    const now = access.sim.clock.nowSeconds()
    const searchId = Number(
      db
        .prepare(
          `INSERT INTO saved_searches (vault_id, project_id, search_criteria, display_criteria, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?)`,
        )
        .run(
          access.vault.id,
          projectId,
          JSON.stringify(criteria),
          JSON.stringify(display),
          now,
          now,
        ).lastInsertRowid,
    )
    return Number(
      db
        .prepare(
          `INSERT INTO saved_search_sessions (search_id, vault_id, name, owner_id, created_at) VALUES (?, ?, ?, ?, ?)`,
        )
        .run(searchId, access.vault.id, name, access.user.id, now).lastInsertRowid,
    )
  })()
  return listItem(visibleSession(db, access, sessionId)!)
}

/** A saved search runs as an export of the molecules it finds (always asynchronous). */
async function runSearch(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const searchId = ctx.pathId('search_id')
  const search = access.db
    .prepare(`SELECT id, project_id FROM saved_searches WHERE id = ? AND vault_id = ?`)
    .get(searchId, access.vault.id) as { id: number; project_id: number } | undefined
  if (!search || !access.canReadProject(search.project_id))
    throw notFound(`Saved search ${searchId}`)
  const params = await ctx.input()
  const exportParams = new Params(
    { search_id: searchId, projects: params.ids('projects'), data_sets: params.ids('data_sets') },
    'body',
    ctx.user.timeZone,
  )
  const zip = params.boolean('zip', false)
  const format = params.string('format')
  params.rejectUnknown()
  return ctx.sim.exports.start(access, 'saved_search', exportParams, format, { zip })
}

const savedSearchExportable: RecordExportable = {
  kind: 'saved_search',
  formats: ['json', 'csv', 'sdf'],
  async *pages(access, params) {
    const searchId = params.requiredInteger('search_id')
    const search = access.db
      .prepare(`SELECT project_id, search_criteria FROM saved_searches WHERE id = ?`)
      .get(searchId) as { project_id: number; search_criteria: string } | undefined
    if (!search) throw notFound(`Saved search ${searchId}`)
    const extra: Record<string, unknown> = {}
    const dataSets = params.ids('data_sets')
    if (dataSets) extra.data_sets = dataSets
    const body = moleculeQueryBody(
      JSON.parse(search.search_criteria) as Record<string, unknown>,
      search.project_id,
      extra,
    )
    const projects = params.ids('projects')
    if (projects) body.projects = projects
    const query = readRegistryQuery(access, new Params(body, 'body', params.timeZone), 'molecules')
    const { ids, scores } = await matchingIds(access, query)
    for (let offset = 0; offset < ids.length; offset += 1000) {
      yield moleculeRecords(access, ids.slice(offset, offset + 1000), {
        ...query.display,
        scope: query.scope,
        scores,
      })
    }
  },
}

export const savedSearchesModule: SimModule = {
  name: 'saved_searches',
  schema,
  routes(router) {
    router.get('/vaults/{vault_id}/searches', (ctx) => {
      const rows = ctx.db
        .prepare(`${selectSessions} WHERE s.vault_id = ? ORDER BY s.id`)
        .all(ctx.access.vault.id) as SessionRow[]
      return rows.filter((row) => ctx.access.canReadProject(row.project_id)).map(listItem)
    })
    router.post('/vaults/{vault_id}/searches', createSearch)
    router.get('/vaults/{vault_id}/searches/{search_id}', runSearch)
    router.delete('/vaults/{vault_id}/searches/{search_id}/saved_sessions/{id}', (ctx) => {
      const access = ctx.access
      const session = visibleSession(ctx.db, access, ctx.pathId('id'))
      if (!session || session.search_id !== ctx.pathId('search_id'))
        throw notFound(`Saved search session ${ctx.pathId('id')}`)
      if (session.owner_id !== access.user.id && !access.isAdmin) {
        throw unauthorized(
          `The API key is not authorized to delete saved search ${session.id}: only its owner or a vault administrator may`,
        )
      }
      ctx.db.transaction(() => {
        ctx.db.prepare(`DELETE FROM saved_search_sessions WHERE id = ?`).run(session.id)
        const remaining = ctx.db
          .prepare(`SELECT COUNT(*) FROM saved_search_sessions WHERE search_id = ?`)
          .pluck()
          .get(session.search_id) as number
        if (remaining === 0)
          ctx.db.prepare(`DELETE FROM saved_searches WHERE id = ?`).run(session.search_id)
      })()
      return listItem(session)
    })
  },
  exportables: [savedSearchExportable],
  seed(seed) {
    if (seed.kind !== 'demo') return
    const { db, cast, now } = seed
    const insertSearch = db.prepare(
      `INSERT INTO saved_searches (vault_id, project_id, search_criteria, display_criteria, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?)`,
    )
    const insertSession = db.prepare(
      `INSERT INTO saved_search_sessions (search_id, vault_id, name, owner_id, created_at) VALUES (?, ?, ?, ?, ?)`,
    )
    const plans: [string, number, number, Record<string, unknown>][] = [
      [
        'Quinazoline cores',
        cast.users.writer.id,
        cast.projects.kinase.id,
        { structure: 'c1ncnc2ccccc12', structure_search_type: 'substructure' },
      ],
      [
        'Priority 1 compounds',
        cast.users.admin.id,
        cast.projects.gpcr.id,
        { molecule_criteria: [{ name: 'Priority', number_value: 1 }] },
      ],
    ]
    for (const [name, ownerId, projectId, criteria] of plans) {
      const created = now - 45 * 86_400
      const searchId = Number(
        insertSearch.run(
          cast.vaults.main.id,
          projectId,
          JSON.stringify(criteria),
          JSON.stringify({ columns: ['Molecule Name', 'Series'] }),
          created,
          created,
        ).lastInsertRowid,
      )
      insertSession.run(searchId, cast.vaults.main.id, name, ownerId, created)
    }
  },
}
