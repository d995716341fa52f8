/**
 * `records.list` of molecules with a structure criterion or property ranges: the structure index
 * answers which molecules match (within those the text, filters, fields and project allow), and the
 * cache gives the page of records.
 *
 * Order without `sort`: a similarity search lists the best score first; other structure searches
 * list in index order (by molecule id), which lets a substructure search answer its first page
 * before every molecule has been matched (`complete: false`; asking the same again waits for the
 * count). Property ranges alone keep the list's usual order (by name). With `sort`, the whole
 * search is counted first.
 */
import type { StructureHit, StructureSearchResult } from '../chem/structure-search.ts'
import type { StructureCriterion } from '../chem/structure-search-request.ts'
import type {
  StructureListCriterion,
  StructureListOptions,
  StructurePage,
  StructureSearchInfo,
} from './chem-results.ts'
import type { RowPage } from '../store/record-queries.ts'
import type { SearchRun, VaultChemistry } from './vault-chemistry.ts'

export async function listStructurePage(
  vault: VaultChemistry,
  options: StructureListOptions,
): Promise<StructurePage> {
  const { structure, properties, sort, text, filters, fields, projectId, ids } = options
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? 50), 0), 1000)
  const offset = Math.max(Math.trunc(options.offset ?? 0), 0)
  const cache = vault.cache
  const filtered =
    (text !== undefined && text.trim() !== '') ||
    Object.keys(filters ?? {}).length > 0 ||
    Object.keys(fields ?? {}).length > 0 ||
    projectId !== undefined ||
    ids !== undefined
  const onlyIds =
    ids !== undefined &&
    (text === undefined || text.trim() === '') &&
    Object.keys(filters ?? {}).length === 0 &&
    Object.keys(fields ?? {}).length === 0 &&
    projectId === undefined
  const criterion = structure ? toCriterion(structure) : null
  // Ids alone (a search by results) go to the search as they are: it knows only cached molecules
  // and scans only theirs, and looking them up in the cache first took as long as the search.
  const within = onlyIds
    ? ids
    : filtered
      ? cache.ids('molecules', vault.vaultId, {
          ...(text !== undefined ? { text } : {}),
          ...(filters ? { filters } : {}),
          ...(fields ? { fields } : {}),
          ...(projectId !== undefined ? { projectId } : {}),
          ...(ids !== undefined ? { ids } : {}),
        })
      : null
  /** The hits' own order (index order, or best score first), not the cache's. */
  const hitOrder = sort === undefined && criterion !== null
  const streams = hitOrder && criterion.kind === 'substructure'
  const { run, started, release } = await vault.search({
    structure: criterion,
    properties: properties ?? {},
    within,
    firstPageSize: streams ? Math.min(1000, Math.max(1, offset + limit)) : 50,
  })
  const shape = { sort, direction: options.direction, limit, offset, hitOrder, streams }
  try {
    return await pageOf(vault, run, started, shape)
  } finally {
    release()
  }
}

/** What page of the hits is asked for, and in which order. */
interface PageShape {
  sort: StructureListOptions['sort']
  direction: StructureListOptions['direction']
  limit: number
  offset: number
  /** The hits' own order (index order, or best score first), not the cache's. */
  hitOrder: boolean
  /** Substructure in index order: the first page may come before counting ends. */
  streams: boolean
}

async function pageOf(
  vault: VaultChemistry,
  run: SearchRun,
  started: boolean,
  { sort, direction, limit, offset, hitOrder, streams }: PageShape,
): Promise<StructurePage> {
  const cache = vault.cache

  if (streams && started) {
    const first = await Promise.race([run.firstPage, run.result.then(() => null)])
    // The first page often comes with the last chunk: then the whole answer is as quick.
    if (first !== null) await Promise.race([run.result, new Promise((ok) => setImmediate(ok))])
    if (first !== null && !run.done) {
      const pageHits = first.slice(offset, offset + limit)
      return {
        kind: 'molecules',
        total: Math.max(run.hitCount, first.length),
        rows: rowsInOrder(vault, pageHits),
        structure: info(run, null, pageHits, false),
      }
    }
  }
  const result = await run.result
  if (hitOrder) {
    const pageHits = result.hits.slice(offset, offset + limit)
    const rows = rowsInOrder(vault, pageHits)
    const shown = new Set(rows.map((row) => row.id))
    return {
      kind: 'molecules',
      total: result.hits.length,
      rows,
      structure: info(
        run,
        result,
        pageHits.filter((hit) => shown.has(hit.id)),
        true,
      ),
    }
  }
  const page = cache.page('molecules', vault.vaultId, {
    ids: result.hits.map((hit) => hit.id),
    sort: sort ?? 'name',
    ...(direction ? { direction } : {}),
    limit,
    offset,
  })
  const scored = new Map(result.hits.map((hit) => [hit.id, hit] as const))
  const pageHits = page.rows.flatMap((row) => {
    const hit = row.id === null ? undefined : scored.get(row.id)
    return hit ? [hit] : []
  })
  return { ...page, structure: info(run, result, pageHits, true) }
}

/** A list's structure criterion as the structure search takes it. */
export function toCriterion(structure: StructureListCriterion): StructureCriterion {
  switch (structure.kind) {
    case 'substructure':
      return {
        kind: 'substructure',
        query: structure.query,
        ...(structure.language ? { language: structure.language } : {}),
      }
    case 'exact':
      return { kind: 'exact', query: structure.query }
    case 'similarity':
      return {
        kind: 'similarity',
        query: structure.smiles,
        ...(structure.threshold !== undefined ? { threshold: structure.threshold } : {}),
        ...(structure.top !== undefined ? { top: structure.top } : {}),
      }
  }
}

/** The cached molecules of these hits, in their order (one deleted meanwhile is left out). */
function rowsInOrder(vault: VaultChemistry, hits: readonly StructureHit[]): RowPage['rows'] {
  if (hits.length === 0) return []
  const ids = hits.map((hit) => hit.id)
  const page = vault.cache.page('molecules', vault.vaultId, {
    ids,
    sort: 'id',
    limit: ids.length,
  })
  const byId = new Map(page.rows.map((row) => [row.id, row] as const))
  return ids.flatMap((id) => {
    const row = byId.get(id)
    return row ? [row] : []
  })
}

function info(
  run: SearchRun,
  result: StructureSearchResult | null,
  pageHits: readonly StructureHit[],
  complete: boolean,
): StructureSearchInfo {
  const scores = pageHits.some((hit) => hit.score !== undefined)
    ? Object.fromEntries(pageHits.map((hit) => [String(hit.id), hit.score ?? 0]))
    : undefined
  return {
    ...(scores ? { scores } : {}),
    skippedUnparseable: result?.skippedUnparseable ?? 0,
    pendingDetails: result?.pendingDetails ?? 0,
    complete,
    ...(run.indexing ? { indexing: run.indexing } : {}),
  }
}
