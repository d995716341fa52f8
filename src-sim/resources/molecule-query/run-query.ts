import type { RequestContext, VaultAccess } from '../../core/context.ts'
import type { RecordExportable } from '../../core/exports/exportable.ts'
import { missingIds } from '../../core/http-error.ts'
import type { Params } from '../../core/params.ts'
import { envelope, idsEnvelope } from '../../core/pagination.ts'
import { bytesReply } from '../../core/replies.ts'
import type { SimCore } from '../../core/sim-core.ts'
import { batchRecords, moleculeRecords } from './records.ts'
import type { RecordOptions } from './records.ts'
import { readRegistryQuery, whereClause } from './registry-query.ts'
import type { QueryTarget, RegistryQuery } from './registry-query.ts'
import { recordTexts } from './record-cache.ts'
import { sqlList } from './scope.ts'
import { completeInchiKeys, searchStructures } from './structure-search.ts'

interface Matches {
  ids: number[]
  scores: Map<number, number> | undefined
}

/**
 * Every matching id is found once and kept until the next write, so that a client paging through
 * a large result with offset pays for the search once, not once per page.
 */
const idCache = new WeakMap<SimCore, Map<string, number[]>>()
const idCacheSize = 6

export async function matchingIds(access: VaultAccess, query: RegistryQuery): Promise<Matches> {
  const alias = query.target === 'batches' ? 'b' : 'm'
  const from =
    query.target === 'batches'
      ? 'batches b JOIN molecules m ON m.id = b.molecule_id'
      : 'molecules m'
  const where = whereClause(query, access.vault.id)
  if (query.requestedIds) {
    const found = new Set(
      access.db
        .prepare(
          `SELECT ${alias}.id FROM ${from} WHERE ${where.sql} AND ${alias}.id IN ${sqlList(query.requestedIds)}`,
        )
        .pluck()
        .all(...where.args) as number[],
    )
    const missing = query.requestedIds.filter((id) => !found.has(id))
    if (missing.length > 0)
      throw missingIds(query.target === 'batches' ? 'Batches' : 'Molecules', missing)
    return { ids: query.requestedIds, scores: undefined }
  }
  if (query.needsInchiKeys) await completeInchiKeys(access.sim, access.vault.id)
  const hits = query.structure
    ? await searchStructures(access.sim, access.vault.id, query.structure)
    : undefined
  const sql = `SELECT ${alias}.id FROM ${from} WHERE ${where.sql}${hits ? ` AND m.id IN ${sqlList(hits.ids)}` : ''} ORDER BY ${alias}.id`
  const key = `${access.sim.dataVersion}|${sql}|${JSON.stringify(where.args)}`
  let cache = idCache.get(access.sim)
  if (!cache) idCache.set(access.sim, (cache = new Map()))
  let ids = cache.get(key)
  if (!ids) {
    ids = access.db
      .prepare(sql)
      .pluck()
      .all(...where.args) as number[]
    cache.set(key, ids)
    if (cache.size > idCacheSize) cache.delete(cache.keys().next().value as string)
  }
  if (hits?.scores && query.target === 'molecules') {
    const matching = new Set(ids)
    return { ids: hits.ids.filter((id) => matching.has(id)), scores: hits.scores }
  }
  return { ids, scores: hits?.scores }
}

function recordsOf(
  access: VaultAccess,
  query: RegistryQuery,
  ids: readonly number[],
  scores: Map<number, number> | undefined,
) {
  const options: RecordOptions = { ...query.display, scope: query.scope, scores }
  return query.target === 'molecules'
    ? moleculeRecords(access, ids, options)
    : batchRecords(access, ids, options)
}

/** Answers a molecule or batch query: a page, the ids, or (with async) an export. */
export async function answerRegistryQuery(
  ctx: RequestContext,
  target: QueryTarget,
): Promise<unknown> {
  const params = await ctx.input()
  const query = readRegistryQuery(ctx.access, params, target)
  if (query.async) return ctx.sim.exports.start(ctx.access, target, params, query.format)
  const { ids, scores } = await matchingIds(ctx.access, query)
  if (query.onlyIds) return idsEnvelope(ids, query.page)
  if (query.requestedIds)
    return envelope(ids.length, query.page, recordsOf(ctx.access, query, ids, scores))
  const pageIds = ids.slice(query.page.offset, query.page.offset + query.page.pageSize)
  if (scores) return envelope(ids.length, query.page, recordsOf(ctx.access, query, pageIds, scores))
  const texts = recordTexts(ctx.access, query, pageIds, (missing) =>
    recordsOf(ctx.access, query, missing, undefined),
  )
  const head = JSON.stringify({
    count: ids.length,
    offset: query.page.offset,
    page_size: query.page.pageSize,
  })
  return bytesReply(
    Buffer.from(`${head.slice(0, -1)},"objects":[${texts.join(',')}]}`),
    'application/json; charset=utf-8',
  )
}

/** The export of a molecule or batch query's complete result. */
export function registryExportable(target: QueryTarget): RecordExportable {
  return {
    kind: target,
    formats: ['json', 'csv', 'sdf'],
    async *pages(access: VaultAccess, params: Params) {
      const query = readRegistryQuery(access, params, target)
      const { ids, scores } = await matchingIds(access, query)
      for (let offset = 0; offset < ids.length; offset += 1000) {
        yield recordsOf(access, query, ids.slice(offset, offset + 1000), scores)
      }
    },
  }
}
