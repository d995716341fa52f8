import type { RequestContext } from '../../core/context.ts'
import type { SimCore, VaultAccess } from '../../core/sim-core.ts'
import type { RecordExportable } from '../../core/exports/exportable.ts'
import { missingIds } from '../../core/http-error.ts'
import type { Params } from '../../core/params.ts'
import { idsEnvelope } from '../../core/pagination.ts'
import { bytesReply } from '../../core/replies.ts'
import { batchRecords, moleculeRecords } from './records.ts'
import type { RecordOptions } from './records.ts'
import { readRegistryQuery, whereClause } from './registry-query.ts'
import type { QueryTarget, RegistryQuery } from './registry-query.ts'
import { recordSegments } from './document-pages.ts'
import { reachedBatches, reachedMolecules } from './reach.ts'
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
const exportPageSize = 1000
const comma = Buffer.from(',')

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
  const conditions = [`${alias}.vault_id = ?`, ...query.conditions]
  if (hits) conditions.push(`m.id IN ${sqlList(hits.ids)}`)
  const args = [access.vault.id, ...query.args]
  const key = `${access.sim.dataVersion}|${query.target}|${JSON.stringify([query.scope, conditions, args])}`
  let cache = idCache.get(access.sim)
  if (!cache) idCache.set(access.sim, (cache = new Map()))
  let ids = cache.get(key)
  if (!ids) {
    ids = reachedIds(access, query, conditions, args)
    cache.set(key, ids)
    if (cache.size > idCacheSize) cache.delete(cache.keys().next().value as string)
  }
  if (hits?.scores && query.target === 'molecules') {
    const matching = new Set(ids)
    return { ids: hits.ids.filter((id) => matching.has(id)), scores: hits.scores }
  }
  return { ids, scores: hits?.scores }
}

/** Ids meeting the conditions, in id order, that the query's scope reaches. */
function reachedIds(
  access: VaultAccess,
  query: RegistryQuery,
  conditions: readonly string[],
  args: readonly unknown[],
): number[] {
  const db = access.db
  const molecules = reachedMolecules(db, query.scope)
  const where = conditions.join(' AND ')
  if (query.target === 'molecules') {
    const candidates = db
      .prepare(`SELECT m.id FROM molecules m WHERE ${where} ORDER BY m.id`)
      .pluck()
      .all(...args) as number[]
    return candidates.filter((id) => molecules[id] === 1)
  }
  const batches = reachedBatches(db, query.scope)
  const joinsMolecules = conditions.some((condition) => /\bm\./.test(condition))
  const candidates = db
    .prepare(
      `SELECT b.id, b.molecule_id FROM batches b${joinsMolecules ? ' JOIN molecules m ON m.id = b.molecule_id' : ''}
       WHERE ${where} ORDER BY b.id`,
    )
    .raw()
    .all(...args) as [number, number][]
  return candidates
    .filter(([id, moleculeId]) => batches[id] === 1 && molecules[moleculeId] === 1)
    .map(([id]) => id)
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
  const { offset, pageSize } = query.page
  const pageIds = query.requestedIds ? ids : ids.slice(offset, offset + pageSize)
  const segments = recordSegments(ctx.access, query, pageIds, scores, ',')
  const head = JSON.stringify({ count: ids.length, offset, page_size: pageSize })
  const parts: Buffer[] = [Buffer.from(`${head.slice(0, -1)},"objects":[`)]
  segments.forEach((segment, index) => parts.push(...(index > 0 ? [comma] : []), segment))
  parts.push(Buffer.from(']}'))
  return bytesReply(parts, 'application/json; charset=utf-8')
}

/** The export of a molecule or batch query's complete result. */
export function registryExportable(target: QueryTarget): RecordExportable {
  const pagesOf = async function* <T>(
    access: VaultAccess,
    params: Params,
    write: (query: RegistryQuery, ids: number[], scores: Map<number, number> | undefined) => T,
  ) {
    const query = readRegistryQuery(access, params, target)
    const { ids, scores } = await matchingIds(access, query)
    for (let offset = 0; offset < ids.length; offset += exportPageSize)
      yield write(query, ids.slice(offset, offset + exportPageSize), scores)
  }
  return {
    kind: target,
    formats: ['json', 'csv', 'sdf'],
    pages: (access, params) =>
      pagesOf(access, params, (query, ids, scores) => {
        const options: RecordOptions = { ...query.display, scope: query.scope, scores }
        return target === 'molecules'
          ? moleculeRecords(access, ids, options)
          : batchRecords(access, ids, options)
      }),
    jsonPages: (access, params, separator) =>
      pagesOf(access, params, (query, ids, scores) => ({
        records: ids.length,
        segments: recordSegments(access, query, ids, scores, separator),
      })),
  }
}
