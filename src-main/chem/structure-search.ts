/**
 * Structure searches over one index, run from the main thread: queries are parsed in a worker,
 * scans run on every worker at once, and the main thread only merges what they report.
 */
import { candidateSlots } from './candidate-slots.ts'
import { runChunkedScan } from './chunked-scan.ts'
import { slotState } from './index-buffers.ts'
import { chunkAt, chunkCount, scanLength, scanRange, type ChunkSchedule } from './scan-chunks.ts'
import type { StructureIndex } from './structure-index.ts'
import { structureDetail } from './structure-input.ts'
import { isInchiKey, type SubstructureQuery } from './structure-query.ts'
import type { NormalizedRange, NormalizedSearch } from './structure-search-request.ts'
import { compareScoredSlots, TopScores, type ScoredSlot } from './top-scores.ts'
import type { ChemWorkerPool } from './worker-pool.ts'

export interface StructureHit {
  id: number
  /** Tanimoto similarity to the query, for similarity searches. */
  score?: number
}

export interface StructureSearchResult {
  /** Similarity hits best first; others in index order (by id after a load). */
  hits: StructureHit[]
  /** Molecules in scope whose structure could not be parsed, which a structure search skips. */
  skippedUnparseable: number
  /**
   * Molecules in scope the search could not judge yet: their properties (for property ranges) or
   * InChIKey (for an InChIKey search) are still being computed.
   */
  pendingDetails: number
}

export interface StructureSearchProgress {
  /** Slots scanned so far, of `total` (those in scope, when the search is narrowed). */
  done: number
  total: number
  hitCount: number
  /** Substructure: molecules that passed the fingerprint screen and were matched atom by atom. */
  candidates?: number
  /** Sent once: the first hits in index order, as soon as no earlier hit can still appear. */
  firstPage?: StructureHit[]
}

export interface SearchOptions {
  signal?: AbortSignal
  onProgress?: (progress: StructureSearchProgress) => void
}

/** Finds ids by exact identity, from wherever canonical SMILES and InChIKeys are kept. */
export type ExactIdLookup = (key: { canonicalSmiles: string } | { inchiKey: string }) => number[]

/**
 * How scans are cut into chunks. Substructure chunks start small, so that the first page streams
 * early even when most molecules must be matched atom by atom; similarity chunks are large
 * enough that reporting costs nothing next to the scan.
 */
export interface ScanChunkSizes {
  substructure: ChunkSchedule
  similarity: ChunkSchedule
}

export const defaultScanChunkSizes: ScanChunkSizes = {
  substructure: { first: 256, largest: 4096 },
  similarity: { first: 16384, largest: 16384 },
}

export class StructureSearcher {
  readonly #pool: ChemWorkerPool
  readonly #index: StructureIndex
  readonly #exactIds: ExactIdLookup
  readonly #chunkSizes: ScanChunkSizes
  /** The slots of the last frozen scope searched (see #candidates). */
  #keptScope: { within: readonly number[]; slotCount: number; slots: Int32Array | null } | null =
    null

  constructor(
    pool: ChemWorkerPool,
    index: StructureIndex,
    exactIds: ExactIdLookup,
    chunkSizes: ScanChunkSizes = defaultScanChunkSizes,
  ) {
    this.#pool = pool
    this.#index = index
    this.#exactIds = exactIds
    this.#chunkSizes = chunkSizes
  }

  async search(
    search: NormalizedSearch,
    options: SearchOptions = {},
  ): Promise<StructureSearchResult> {
    const slotCount = this.#index.slotCount
    const candidates = this.#candidates(slotCount, search.within, search.ranges)
    const structure = search.structure
    const waitingFor =
      (search.ranges.length > 0 ? structureDetail.properties : 0) |
      (structure?.kind === 'exact' && isInchiKey(structure.query) ? structureDetail.inchiKey : 0)
    const pendingDetails = this.#pendingInScope(slotCount, search.within, waitingFor)
    if (!structure) {
      return {
        hits: this.#slotsToHits(this.#slotsInScope(slotCount, candidates)),
        skippedUnparseable: 0,
        pendingDetails,
      }
    }
    const skippedUnparseable = this.#unparseableInScope(candidates)
    let hits: StructureHit[]
    switch (structure.kind) {
      case 'substructure':
        hits = await this.#substructure(
          structure.query,
          slotCount,
          candidates,
          search.firstPageSize,
          options,
        )
        break
      case 'similarity':
        hits = await this.#similarity(
          structure.query,
          structure.threshold,
          structure.top,
          slotCount,
          candidates,
          options,
        )
        break
      case 'exact':
        hits = await this.#exact(structure.query, slotCount, candidates, options)
        break
    }
    return { hits, skippedUnparseable, pendingDetails }
  }

  async #substructure(
    query: SubstructureQuery,
    slotCount: number,
    scope: Int32Array | null,
    firstPageSize: number,
    options: SearchOptions,
  ): Promise<StructureHit[]> {
    const { signal, onProgress } = options
    const range = scanRange(this.#index.id, slotCount, this.#chunkSizes.substructure, scope)
    const chunks = chunkCount(range)
    const total = scanLength(range)
    const hitsByChunk: (Int32Array | undefined)[] = new Array(chunks)
    let done = 0
    let hitCount = 0
    let candidates = 0
    let firstPageSent = false
    let contiguousChunks = 0
    let contiguousHits = 0
    await runChunkedScan(
      this.#pool,
      {
        kind: 'substructureScan',
        ...range,
        query,
      },
      (chunk) => {
        hitsByChunk[chunk.chunk] = chunk.hits
        hitCount += chunk.hits.length
        candidates += chunk.candidates
        done += chunkAt(range, chunk.chunk).count
        let firstPage: StructureHit[] | undefined
        if (!firstPageSent) {
          while (contiguousChunks < chunks && hitsByChunk[contiguousChunks]) {
            contiguousHits += hitsByChunk[contiguousChunks++]!.length
          }
          if (contiguousHits >= firstPageSize || contiguousChunks === chunks) {
            firstPageSent = true
            const slots = concatenated(hitsByChunk.slice(0, contiguousChunks)).slice(
              0,
              firstPageSize,
            )
            firstPage = this.#slotsToHits(slots)
          }
        }
        onProgress?.({
          done,
          total,
          hitCount,
          candidates,
          ...(firstPage ? { firstPage } : {}),
        })
      },
      signal,
    )
    return this.#slotsToHits(concatenated(hitsByChunk))
  }

  async #similarity(
    text: string,
    threshold: number,
    top: number | null,
    slotCount: number,
    candidates: Int32Array | null,
    options: SearchOptions,
  ): Promise<StructureHit[]> {
    const { signal, onProgress } = options
    const range = scanRange(this.#index.id, slotCount, this.#chunkSizes.similarity, candidates)
    const total = scanLength(range)
    const best = top === null ? null : new TopScores(top)
    const above: ScoredSlot[] = []
    let done = 0
    let offered = 0
    await runChunkedScan(
      this.#pool,
      {
        kind: 'similarityScan',
        ...range,
        query: text,
        threshold,
        top,
      },
      (chunk) => {
        for (const hit of chunk.hits) {
          if (best) best.offer(hit.score, hit.slot)
          else above.push(hit)
        }
        offered += chunk.hits.length
        done += chunkAt(range, chunk.chunk).count
        onProgress?.({ done, total, hitCount: Math.min(top ?? Infinity, offered) })
      },
      signal,
    )
    const ranked = best ? best.sorted() : above.sort(compareScoredSlots)
    return ranked.flatMap(({ slot, score }) => {
      const id = this.#index.idAt(slot)
      return id === undefined ? [] : [{ id, score }]
    })
  }

  async #exact(
    text: string,
    slotCount: number,
    candidates: Int32Array | null,
    options: SearchOptions,
  ): Promise<StructureHit[]> {
    let ids: number[]
    if (isInchiKey(text)) {
      ids = this.#exactIds({ inchiKey: text.trim() })
    } else {
      const prepared = await this.#pool.run(
        { kind: 'canonicalizeStructure', text },
        { signal: options.signal },
      )
      ids = this.#exactIds({ canonicalSmiles: prepared.canonicalSmiles })
    }
    const slots = ids
      .map((id) => this.#index.slotOf(id))
      .filter(
        (slot): slot is number =>
          slot !== undefined &&
          slot < slotCount &&
          (candidates === null || includesSlot(candidates, slot)),
      )
      .filter((slot) => this.#index.stateAt(slot) === slotState.parsed)
      .sort((a, b) => a - b)
    return this.#slotsToHits(slots)
  }

  #slotsInScope(slotCount: number, candidates: Int32Array | null): ArrayLike<number> {
    if (candidates !== null) return candidates
    const slots: number[] = []
    for (let slot = 0; slot < slotCount; slot++) {
      if (this.#index.idAt(slot) !== undefined) slots.push(slot)
    }
    return slots
  }

  /** Molecules among `within` (all when null) still waiting for one of the `details` bits. */
  #pendingInScope(slotCount: number, within: readonly number[] | null, details: number): number {
    if (details === 0 || this.#index.pendingDetailsCount === 0) return 0
    let count = 0
    if (within === null) {
      for (let slot = 0; slot < slotCount; slot++) {
        if (this.#index.pendingDetailsAt(slot) & details) count++
      }
      return count
    }
    // An id given twice is one molecule.
    const counted = new Uint8Array(slotCount)
    for (const id of within) {
      const slot = this.#index.slotOf(id)
      if (slot === undefined || slot >= slotCount || counted[slot] === 1) continue
      counted[slot] = 1
      if (this.#index.pendingDetailsAt(slot) & details) count++
    }
    return count
  }

  /**
   * The slots to scan. A frozen list of ids (a search by results' kept answer, which a list asks
   * again with each structure typed) keeps its slots while the index has not grown: slots are
   * never reused, and one vacated since is skipped by the scan. Finding the slots of 73k ids took
   * about a third of a narrowed search that found nothing (results-queries.bench.ts).
   */
  #candidates(
    slotCount: number,
    within: readonly number[] | null,
    ranges: readonly NormalizedRange[],
  ): Int32Array | null {
    const keepable = within !== null && ranges.length === 0 && Object.isFrozen(within)
    const kept = this.#keptScope
    if (keepable && kept?.within === within && kept.slotCount === slotCount) return kept.slots
    const slots = candidateSlots(this.#index, slotCount, within, ranges)
    if (keepable) this.#keptScope = { within, slotCount, slots }
    return slots
  }

  #unparseableInScope(candidates: Int32Array | null): number {
    if (candidates === null || this.#index.unparseableCount === 0) {
      return this.#index.unparseableCount
    }
    let count = 0
    for (const slot of candidates) {
      if (this.#index.stateAt(slot) === slotState.unparseable) count++
    }
    return count
  }

  /** Ids of slots still holding a molecule (one may have changed while the search ran). */
  #slotsToHits(slots: ArrayLike<number>): StructureHit[] {
    const hits: StructureHit[] = []
    for (let i = 0; i < slots.length; i++) {
      const id = this.#index.idAt(slots[i]!)
      if (id !== undefined) hits.push({ id })
    }
    return hits
  }
}

/** Whether an ascending list of slots holds this one (binary search). */
function includesSlot(slots: Int32Array, slot: number): boolean {
  let low = 0
  let high = slots.length - 1
  while (low <= high) {
    const middle = (low + high) >>> 1
    if (slots[middle]! < slot) low = middle + 1
    else if (slots[middle]! > slot) high = middle - 1
    else return true
  }
  return false
}

/** The chunks' hits, in chunk order, in one array (chunks not reported yet count as none). */
function concatenated(chunks: readonly (Int32Array | undefined)[]): Int32Array {
  let length = 0
  for (const hits of chunks) length += hits?.length ?? 0
  const all = new Int32Array(length)
  let at = 0
  for (const hits of chunks) {
    if (!hits) continue
    all.set(hits, at)
    at += hits.length
  }
  return all
}
