import type { RequestContext } from '../core/context.ts'
import type { VaultAccess } from '../core/sim-core.ts'
import { formatSeconds } from '../core/dates.ts'
import type { RecordExportable } from '../core/exports/exportable.ts'
import { invalid, missingIds, notFound, unauthorized } from '../core/http-error.ts'
import type { SimModule } from '../core/module.ts'
import type { Params } from '../core/params.ts'
import { envelope, idsEnvelope, readPageUnlessExporting } from '../core/pagination.ts'
import { SqlWhere } from '../core/sql-where.ts'
import { fullScope, moleculeVisibleSql, readScope, sqlList } from './molecule-query/scope.ts'

interface CollectionRow {
  id: number
  vault_id: number
  name: string
  owner_id: number
  kind: 'user_collection' | 'vault_collection'
  created_at: number
  modified_at: number
  owner_first: string
  owner_last: string
}

const classNames = {
  user_collection: 'user collection',
  vault_collection: 'vault collection',
} as const
const readOnlyMembers = ['id', 'owner', 'created_at', 'modified_at']

const selectCollections = `SELECT c.*, u.first_name AS owner_first, u.last_name AS owner_last FROM collections c JOIN users u ON u.id = c.owner_id`

/** User collections are private to their owner; vault collections are shared with the vault. */
const visibleToUser = `c.vault_id = ? AND (c.kind = 'vault_collection' OR c.owner_id = ?)`

function visibleCollection(access: VaultAccess, id: number): CollectionRow {
  const row = access.db
    .prepare(`${selectCollections} WHERE c.id = ? AND ${visibleToUser}`)
    .get(id, access.vault.id, access.user.id) as CollectionRow | undefined
  if (!row) throw notFound(`Collection ${id}`)
  return row
}

function moleculeIdsOf(
  access: VaultAccess,
  collectionIds: readonly number[],
): Map<number, number[]> {
  const rows = access.db
    .prepare(
      `SELECT cm.collection_id, cm.molecule_id FROM collection_molecules cm JOIN molecules m ON m.id = cm.molecule_id
       WHERE cm.collection_id IN ${sqlList(collectionIds)} AND ${moleculeVisibleSql(fullScope(access))} ORDER BY cm.molecule_id`,
    )
    .all() as { collection_id: number; molecule_id: number }[]
  const result = new Map<number, number[]>()
  for (const row of rows) {
    const list = result.get(row.collection_id)
    if (list) list.push(row.molecule_id)
    else result.set(row.collection_id, [row.molecule_id])
  }
  return result
}

function collectionRecords(
  access: VaultAccess,
  rows: CollectionRow[],
  withMolecules: boolean,
): Record<string, unknown>[] {
  const molecules = withMolecules
    ? moleculeIdsOf(
        access,
        rows.map((row) => row.id),
      )
    : undefined
  return rows.map((row) => ({
    id: row.id,
    class: classNames[row.kind],
    name: row.name,
    owner: `${row.owner_first} ${row.owner_last}`,
    ...(molecules ? { molecules: molecules.get(row.id) ?? [] } : {}),
    created_at: formatSeconds(row.created_at),
    modified_at: formatSeconds(row.modified_at),
  }))
}

/** Molecule ids of a body: each must be a molecule the user reaches (422 naming the ones that are not). */
function readMolecules(access: VaultAccess, params: Params): number[] {
  const ids = params.ids('molecules') ?? []
  const found = new Set(
    access.db
      .prepare(
        `SELECT m.id FROM molecules m WHERE m.id IN ${sqlList(ids)} AND m.vault_id = ? AND ${moleculeVisibleSql(fullScope(access))}`,
      )
      .pluck()
      .all(access.vault.id) as number[],
  )
  const missing = ids.filter((id) => !found.has(id))
  if (missing.length > 0)
    throw invalid(
      'molecules',
      `lists molecules that do not exist or that you cannot reach: ${missing.join(', ')}`,
    )
  return [...new Set(ids)]
}

function mayChange(access: VaultAccess, row: CollectionRow): boolean {
  return (
    row.owner_id === access.user.id ||
    (row.kind === 'vault_collection' && access.canWrite) ||
    access.isAdmin
  )
}

function addMolecules(
  access: VaultAccess,
  collectionId: number,
  moleculeIds: readonly number[],
): void {
  const insert = access.db.prepare(
    `INSERT OR IGNORE INTO collection_molecules (collection_id, molecule_id) VALUES (?, ?)`,
  )
  for (const moleculeId of moleculeIds) insert.run(collectionId, moleculeId)
  access.db
    .prepare(`UPDATE collections SET modified_at = ? WHERE id = ?`)
    .run(access.sim.clock.nowSeconds(), collectionId)
}

async function createCollection(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const params = await ctx.input()
  const name = params.requiredString('name').trim()
  const kindName = params.oneOf(
    'class',
    ['user collection', 'vault collection'] as const,
    'user collection',
  )
  const kind = kindName === 'vault collection' ? 'vault_collection' : 'user_collection'
  if (kind === 'vault_collection' && !access.canWrite)
    throw invalid('class', 'vault collections need write permission in the vault')
  const overwrite = params.boolean('overwrite', false)
  const molecules = readMolecules(access, params)
  params.ignore(...readOnlyMembers)
  params.rejectUnknown()
  const db = access.db
  const id = db.transaction(() => {
    const existing = db
      .prepare(`${selectCollections} WHERE c.name = ? AND ${visibleToUser}`)
      .get(name, access.vault.id, access.user.id) as CollectionRow | undefined
    if (existing && !overwrite) {
      throw invalid(
        'name',
        `'${name}' is already the name of collection ${existing.id}; send overwrite: true to replace it`,
      )
    }
    if (existing) {
      if (!mayChange(access, existing))
        throw invalid(
          'name',
          `'${name}' names collection ${existing.id}, which you may not overwrite`,
        )
      db.prepare(`DELETE FROM collection_molecules WHERE collection_id = ?`).run(existing.id)
      addMolecules(access, existing.id, molecules)
      return existing.id
    }
    const now = access.sim.clock.nowSeconds()
    const collectionId = Number(
      db
        .prepare(
          `INSERT INTO collections (vault_id, name, owner_id, kind, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?)`,
        )
        .run(access.vault.id, name, access.user.id, kind, now, now).lastInsertRowid,
    )
    addMolecules(access, collectionId, molecules)
    return collectionId
  })()
  return collectionRecords(access, [visibleCollection(access, id)], true)[0]
}

interface CollectionQuery {
  where: SqlWhere
  onlyIds: boolean
  includeMolecules: boolean
  async: boolean
  format: string | undefined
  page: { pageSize: number; offset: number }
}

function readCollectionQuery(access: VaultAccess, params: Params): CollectionQuery {
  const where = new SqlWhere().add(visibleToUser, access.vault.id, access.user.id)
  const ids = params.ids('collections')
  if (ids) {
    const found = new Set(
      access.db
        .prepare(
          `SELECT c.id FROM collections c WHERE ${visibleToUser} AND c.id IN ${sqlList(ids)}`,
        )
        .pluck()
        .all(access.vault.id, access.user.id) as number[],
    )
    const missing = ids.filter((id) => !found.has(id))
    if (missing.length > 0) throw missingIds('Collections', missing)
    where.ids('c.id', ids)
  }
  if (params.has('projects')) {
    const scope = readScope(access, params)
    where.add(
      `EXISTS (SELECT 1 FROM collection_molecules cm JOIN molecule_projects mp ON mp.molecule_id = cm.molecule_id
        WHERE cm.collection_id = c.id AND mp.project_id IN ${sqlList(scope.projectIds)})`,
    )
  }
  where.dateRange(params, 'created', 'c.created_at').dateRange(params, 'modified', 'c.modified_at')
  const type = params.oneOf('type', ['user_collection', 'vault_collection'] as const)
  if (type) where.add('c.kind = ?', type)
  const isAsync = params.boolean('async', false)
  const query = {
    where,
    onlyIds: params.boolean('only_ids', false),
    includeMolecules: params.boolean('include_molecule_ids', false),
    async: isAsync,
    format: params.string('format'),
    page: readPageUnlessExporting(params, isAsync),
  }
  params.rejectUnknown()
  return query
}

function matchingCollections(access: VaultAccess, query: CollectionQuery): CollectionRow[] {
  return access.db
    .prepare(`${selectCollections}${query.where} ORDER BY c.id`)
    .all(...query.where.args) as CollectionRow[]
}

async function queryCollections(ctx: RequestContext): Promise<unknown> {
  const params = await ctx.input()
  const query = readCollectionQuery(ctx.access, params)
  if (query.async) return ctx.sim.exports.start(ctx.access, 'collections', params, query.format)
  const rows = matchingCollections(ctx.access, query)
  if (query.onlyIds)
    return idsEnvelope(
      rows.map((row) => row.id),
      query.page,
    )
  const page = rows.slice(query.page.offset, query.page.offset + query.page.pageSize)
  return envelope(
    rows.length,
    query.page,
    collectionRecords(ctx.access, page, query.includeMolecules),
  )
}

const collectionsExportable: RecordExportable = {
  kind: 'collections',
  formats: ['json', 'csv'],
  *pages(access, params) {
    const query = readCollectionQuery(access, params)
    const rows = matchingCollections(access, query)
    for (let offset = 0; offset < rows.length; offset += 1000) {
      yield collectionRecords(access, rows.slice(offset, offset + 1000), query.includeMolecules)
    }
  },
}

/** Collections: create (or overwrite), query (both forms), show, add molecules, delete. */
export const collectionsModule: SimModule = {
  name: 'collections',
  routes(router) {
    router.post('/vaults/{vault_id}/collections', createCollection)
    router.query('/vaults/{vault_id}/collections', queryCollections)
    router.get(
      '/vaults/{vault_id}/collections/{collection_id}',
      (ctx) =>
        collectionRecords(
          ctx.access,
          [visibleCollection(ctx.access, ctx.pathId('collection_id'))],
          true,
        )[0],
    )
    router.put('/vaults/{vault_id}/collections/{collection_id}', async (ctx) => {
      const access = ctx.access
      const row = visibleCollection(access, ctx.pathId('collection_id'))
      if (!mayChange(access, row))
        throw unauthorized(`The API key is not authorized to change collection ${row.id}`)
      const params = await ctx.input()
      const bodyId = params.integer('id')
      if (bodyId !== undefined && bodyId !== row.id)
        throw invalid('id', `must equal the id in the path (${row.id}), got ${bodyId}`)
      const molecules = readMolecules(access, params)
      const name = params.string('name')
      if (name !== undefined && name !== row.name)
        throw invalid('name', 'cannot be changed; only molecules can be added to a collection')
      params.ignore('class', 'owner', 'created_at', 'modified_at')
      params.rejectUnknown()
      // Collections only grow: molecules absent from the body stay.
      access.db.transaction(() => addMolecules(access, row.id, molecules))()
      return collectionRecords(access, [visibleCollection(access, row.id)], true)[0]
    })
    router.delete('/vaults/{vault_id}/collections/{collection_id}', (ctx) => {
      const access = ctx.access
      const row = visibleCollection(access, ctx.pathId('collection_id'))
      if (row.owner_id !== access.user.id && !access.isAdmin) {
        throw unauthorized(
          `The API key is not authorized to delete collection ${row.id}: only its owner or a vault administrator may`,
        )
      }
      access.db.prepare(`DELETE FROM collections WHERE id = ?`).run(row.id)
      return { message: `Collection ${row.id} has been destroyed` }
    })
  },
  exportables: [collectionsExportable],
}
