/**
 * The chemistry of one vault of a connection's cache: its structure engine (the index in memory,
 * loaded from the cache on first use), ingest (bringing the index in step with the cached
 * molecules, computing only new and changed ones), and the structure searches under way.
 */
import { createHash } from 'node:crypto'
import {
  vaultPropertyFields,
  type MolecularProperties,
} from '../../src-common/chem/molecular-properties.ts'
import { StructureEngine } from '../chem/structure-engine.ts'
import { isInchiKey } from '../chem/structure-query.ts'
import type { StructureHit, StructureSearchResult } from '../chem/structure-search.ts'
import type { PropertyRanges, StructureCriterion } from '../chem/structure-search-request.ts'
import type { MoleculeStructure, SynchronizeSummary } from '../chem/structure-synchronization.ts'
import type { ChemWorkerPool } from '../chem/worker-pool.ts'
import { AppError } from '../shared/app-error.ts'
import type { Logger } from '../shared/logger.ts'
import type {
  CachedMoleculeStructure,
  StructureIndexRepository,
} from '../store/structure-index-repository.ts'
import type { VaultCache } from '../store/vault-cache.ts'

export interface IndexProgress {
  indexed: number
  total: number
  /** Indexed molecules (searchable) whose InChIKey or properties are still being computed. */
  detailsPending: number
}

/** How much of the index a search saw, while some cached molecules were not indexed yet. */
export type IndexingState = Pick<IndexProgress, 'indexed' | 'total'>

export interface IngestSummary {
  /** Molecules looked at (new, or changed since ingest last looked). */
  looked: number
  computed: number
  unparseable: number
  removed: number
}

export interface VaultChemistryOptions {
  connectionId: string
  vaultId: number
  cache: VaultCache
  pool: ChemWorkerPool
  log: Logger
  /** The index grew or shrank (a few times a second at most while building). */
  onProgress: (progress: IndexProgress) => void
}

/** A structure search running or done, shared by the requests that ask the same question. */
export interface SearchRun {
  readonly result: Promise<StructureSearchResult>
  /** The first hits in index order, before counting ends (substructure), else the result's. */
  readonly firstPage: Promise<StructureHit[]>
  readonly firstPageSize: number
  done: boolean
  /** Hits counted so far. */
  hitCount: number
  /** Requests waiting for this search now: one that nobody waits for may be abandoned. */
  waiting: number
  /** The index's state when the search began, when it was still being built. */
  readonly indexing: IndexingState | undefined
}

export interface SearchQuestion {
  structure: StructureCriterion | null
  properties: PropertyRanges
  /** Molecule ids the list's other filters allow (null: all). */
  within: readonly number[] | null
  /** Hits wanted before counting ends (substructure searches in index order). */
  firstPageSize: number
}

/** Cached molecules walked at a time (one short query each). */
const rangeSize = 5000
/** Searches remembered per vault, so that re-asking and paging cost nothing. */
const rememberedSearches = 8
const progressEveryMs = 250

const emptySummary: IngestSummary = { looked: 0, computed: 0, unparseable: 0, removed: 0 }

export class VaultChemistry {
  readonly connectionId: string
  readonly vaultId: number
  /** The cache this was opened on: a rebuilt (or reopened) cache needs a new VaultChemistry. */
  readonly cache: VaultCache
  readonly repository: StructureIndexRepository
  readonly #engine: Promise<StructureEngine>
  readonly #log: Logger
  readonly #onProgress: (progress: IndexProgress) => void
  readonly #abort = new AbortController()
  readonly #searches = new Map<string, SearchRun>()
  readonly #searchAborts = new Map<SearchRun, AbortController>()
  #ingesting: Promise<IngestSummary> | null = null
  #ingestAgain = false
  /** Whether the ingest running (or the one to follow) computes InChIKeys and properties too. */
  #detailsWanted = true
  #ingestedOnce = false
  #generation = 0
  /** Moves while InChIKeys and properties arrive: it only matters to searches that read them. */
  #detailsGeneration = 0
  #total: number | null = null
  #lastProgressAt = 0
  #closed = false

  constructor(options: VaultChemistryOptions) {
    this.connectionId = options.connectionId
    this.vaultId = options.vaultId
    this.cache = options.cache
    this.repository = options.cache.structureIndex(options.vaultId)
    this.#log = options.log.child({ vaultId: options.vaultId })
    this.#onProgress = options.onProgress
    this.#engine = StructureEngine.open({
      pool: options.pool,
      store: this.repository,
      logger: this.#log,
    })
    // A failed open is answered to whoever asks for the engine; nothing else waits on it.
    this.#engine.catch(() => {})
  }

  engine(): Promise<StructureEngine> {
    if (this.#closed) {
      return Promise.reject(new AppError('cancelled', 'The structure index was closed.'))
    }
    return this.#engine
  }

  get building(): boolean {
    return this.#ingesting !== null
  }

  async state(): Promise<{
    indexed: number
    total: number
    unparseable: number
    detailsPending: number
    building: boolean
  }> {
    return this.#stateOf(await this.engine())
  }

  #stateOf(engine: StructureEngine) {
    const stats = engine.stats()
    const total = this.repository.moleculeCount()
    this.#total = total
    return {
      indexed: stats.molecules,
      total,
      unparseable: stats.unparseable,
      detailsPending: stats.detailsPending,
      building: this.building,
    }
  }

  #indexingOf(engine: StructureEngine): IndexingState | undefined {
    const { indexed, total } = this.#stateOf(engine)
    return indexed < total ? { indexed, total } : undefined
  }

  /**
   * Brings the index in step with the cached molecules: deleted ones removed, new and changed
   * ones computed in the workers, then their InChIKeys and properties (unless `details` is false:
   * a search that reads neither need not wait for them). Calls while one runs are answered by one
   * more run after it.
   */
  ingest(options: { details?: boolean } = {}): Promise<IngestSummary> {
    if (this.#closed) return Promise.resolve(emptySummary)
    const details = options.details ?? true
    if (this.#ingesting) {
      this.#ingestAgain = true
      this.#detailsWanted ||= details
      return this.#ingesting
    }
    this.#detailsWanted = details
    this.#ingestedOnce = true
    const running = this.#ingestLoop()
    this.#ingesting = running
    const settled = () => {
      if (this.#ingesting === running) this.#ingesting = null
    }
    // The caller handles the run's failure; this only notes that it ended.
    running.then(settled, settled)
    return running
  }

  /** Starts ingest once per session (a cache filled before, or by a sync that did not index). */
  ingestOnce(): void {
    if (this.#ingestedOnce) return
    this.#ingestedOnce = true
    this.ingest().catch((error: unknown) => this.#log.warn('indexing failed', { error }))
  }

  /**
   * Makes sure these molecules are indexed (a depiction asked before ingest reached them); ids
   * the cache does not hold are answered as missing.
   */
  async indexNow(ids: readonly number[]): Promise<{ missing: number[] }> {
    const engine = await this.engine()
    const wanted = ids.filter((id) => !engine.has(id))
    if (wanted.length === 0) return { missing: [] }
    const missing: number[] = []
    const molecules: MoleculeStructure[] = []
    for (const id of wanted) {
      const molecule = this.repository.moleculeStructure(id)
      if (molecule) molecules.push(moleculeStructure(molecule))
      else missing.push(id)
    }
    if (molecules.length > 0) {
      await engine.synchronize(molecules, { signal: this.#abort.signal })
      this.#generation++
    }
    return { missing }
  }

  /**
   * Runs a structure search, or joins the same search already running or done (the same
   * question of the same index): re-asking and paging cost nothing. The caller counts as waiting
   * for the search until it calls `release`. A new search abandons the searches still running
   * that nobody waits for (a query typed further, a page no longer shown), so that the workers
   * turn to it at once.
   */
  async search(
    question: SearchQuestion,
  ): Promise<{ run: SearchRun; started: boolean; release: () => void }> {
    const engine = await this.engine()
    const key = this.#searchKey(question)
    const known = this.#searches.get(key)
    // Another page of a search still counting waits for its count rather than search again.
    if (known) return { run: known, started: false, release: this.#wait(known) }
    this.#abandonUnwatchedSearches()
    const abort = new AbortController()
    const indexing = this.#indexingOf(engine)
    let firstPageSeen: (hits: StructureHit[]) => void = () => {}
    const firstPage = new Promise<StructureHit[]>((resolve) => (firstPageSeen = resolve))
    const run: SearchRun = {
      result: engine.search(
        {
          structure: question.structure,
          properties: question.properties,
          within: question.within,
          firstPageSize: question.firstPageSize,
        },
        {
          signal: AbortSignal.any([this.#abort.signal, abort.signal]),
          onProgress: (progress) => {
            run.hitCount = progress.hitCount
            if (progress.firstPage) firstPageSeen(progress.firstPage)
          },
        },
      ),
      firstPage,
      firstPageSize: question.firstPageSize,
      done: false,
      hitCount: 0,
      waiting: 0,
      indexing,
    }
    this.#searchAborts.set(run, abort)
    run.result.then(
      (result) => {
        run.done = true
        run.hitCount = result.hits.length
        this.#searchAborts.delete(run)
        firstPageSeen(result.hits.slice(0, question.firstPageSize))
      },
      () => {
        run.done = true
        this.#searchAborts.delete(run)
        if (this.#searches.get(key) === run) this.#searches.delete(key)
        firstPageSeen([])
      },
    )
    this.#searches.set(key, run)
    while (this.#searches.size > rememberedSearches) {
      this.#searches.delete(this.#searches.keys().next().value!)
    }
    return { run, started: true, release: this.#wait(run) }
  }

  #wait(run: SearchRun): () => void {
    run.waiting++
    let released = false
    return () => {
      if (released) return
      released = true
      run.waiting--
    }
  }

  #abandonUnwatchedSearches(): void {
    for (const [run, abort] of this.#searchAborts) {
      if (run.waiting === 0) abort.abort()
    }
  }

  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.#abort.abort()
    this.#searches.clear()
    this.#engine.then(
      (engine) => engine.close(),
      () => {},
    )
  }

  #searchKey(question: SearchQuestion): string {
    let within = 'all'
    if (question.within) {
      within = digests.get(question.within) ?? digestOf(question.within)
      // A frozen list (a search by results' kept answer) is asked again with each query typed.
      if (Object.isFrozen(question.within)) digests.set(question.within, within)
    }
    const readsDetails =
      Object.keys(question.properties).length > 0 ||
      (question.structure?.kind === 'exact' && isInchiKey(question.structure.query))
    return JSON.stringify([
      this.#generation,
      readsDetails ? this.#detailsGeneration : null,
      question.structure,
      Object.entries(question.properties).sort(([a], [b]) => a.localeCompare(b)),
      within,
    ])
  }

  /**
   * Makes new and changed molecules searchable first, then computes the InChIKeys and properties
   * they wait for; a sync that lands meanwhile interrupts that second pass, which resumes after.
   */
  async #ingestLoop(): Promise<IngestSummary> {
    // Let the caller's request finish first (a sync's commit, a list answer).
    await new Promise((resolve) => setImmediate(resolve))
    let total = emptySummary
    do {
      this.#ingestAgain = false
      const summary = await this.#ingestOnce()
      total = {
        looked: total.looked + summary.looked,
        computed: total.computed + summary.computed,
        unparseable: total.unparseable + summary.unparseable,
        removed: total.removed + summary.removed,
      }
      if (!this.#ingestAgain && !this.#closed && this.#detailsWanted) await this.#completeDetails()
    } while (this.#ingestAgain && !this.#closed)
    return total
  }

  async #completeDetails(): Promise<void> {
    const engine = await this.engine()
    if (engine.stats().detailsPending === 0) return
    const summary = await engine.completeDetails({
      signal: this.#abort.signal,
      shouldStop: () => this.#ingestAgain || this.#closed,
      onProgress: () => {
        this.#detailsGeneration++
        this.#reportProgress(engine, false)
      },
    })
    this.#detailsGeneration++
    this.#reportProgress(engine, true)
    this.#log.info('molecule details computed', { ...summary })
  }

  async #ingestOnce(): Promise<IngestSummary> {
    const engine = await this.engine()
    const repository = this.repository
    const signal = this.#abort.signal
    const lookAtAll = repository.recipe() !== engine.recipe
    this.#total = repository.moleculeCount()
    this.#reportProgress(engine, true)
    const unstampedChanges = repository.unstampedChangesMark()

    let removed = 0
    for (let after: number | null = null; ;) {
      if (signal.aborted) return emptySummary
      const upTo = repository.nextIndexedRange(after, rangeSize)
      if (upTo === null) break
      const ids = repository.removedMolecules(after, upTo)
      if (ids.length > 0) engine.remove(ids)
      removed += ids.length
      after = upTo
      await yieldToEvents()
    }

    const seen: { id: number; modifiedAt: string | null }[] = []
    async function* changedMolecules(): AsyncGenerator<MoleculeStructure> {
      for (let after: number | null = null; ;) {
        const upTo = repository.nextMoleculeRange(after, rangeSize)
        if (upTo === null) return
        for (const molecule of repository.moleculesToIndex(after, upTo, lookAtAll)) {
          seen.push({ id: molecule.id, modifiedAt: molecule.modifiedAt })
          yield moleculeStructure(molecule)
        }
        after = upTo
        await yieldToEvents()
      }
    }
    const summary: SynchronizeSummary = await engine.synchronize(changedMolecules(), {
      signal,
      onProgress: () => this.#reportProgress(engine, false),
    })
    for (let start = 0; start < seen.length; start += rangeSize) {
      repository.markSeen(seen.slice(start, start + rangeSize))
      await yieldToEvents()
    }
    repository.forgetUnstampedChanges(unstampedChanges)
    repository.saveRecipe(engine.recipe)
    if (summary.computed > 0 || removed > 0) {
      this.#generation++
      this.#searches.clear()
    }
    this.#total = repository.moleculeCount()
    this.#reportProgress(engine, true)
    if (summary.computed > 0 || removed > 0) {
      this.#log.info('structure index updated', { ...summary, removed })
    }
    return {
      looked: summary.received,
      computed: summary.computed,
      unparseable: summary.unparseable,
      removed,
    }
  }

  #reportProgress(engine: StructureEngine, force: boolean): void {
    const now = Date.now()
    if (!force && now - this.#lastProgressAt < progressEveryMs) return
    this.#lastProgressAt = now
    const { molecules: indexed, detailsPending } = engine.stats()
    this.#onProgress({ indexed, total: Math.max(this.#total ?? 0, indexed), detailsPending })
  }
}

/** What the engine is given of a cached molecule: its structure and the vault's own values. */
export function moleculeStructure(molecule: CachedMoleculeStructure): MoleculeStructure {
  const knownProperties: Partial<MolecularProperties> = {}
  for (const [name, { moleculeField }] of Object.entries(vaultPropertyFields) as [
    keyof MolecularProperties,
    { moleculeField: string },
  ][]) {
    const raw = molecule.fields[moleculeField]
    const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw
    if (typeof value === 'number' && Number.isFinite(value)) knownProperties[name] = value
  }
  return {
    id: molecule.id,
    structure: molecule.structure,
    knownProperties,
    knownInchiKey: molecule.inchiKey,
  }
}

/** Digests of frozen id lists, by list: hashing 73k ids took a millisecond or two each ask. */
const digests = new WeakMap<readonly number[], string>()

/** A list of molecule ids as a search key's part: the same ids, in any order, the same digest. */
function digestOf(within: readonly number[]): string {
  const ids = Float64Array.from(within)
  // A search by results gives its ids in order already: sorting them again cost milliseconds.
  if (!ascending(ids)) ids.sort()
  return createHash('sha1').update(new Uint8Array(ids.buffer)).digest('base64url')
}

function ascending(values: Float64Array): boolean {
  for (let i = 1; i < values.length; i++) if (values[i - 1]! > values[i]!) return false
  return true
}

function yieldToEvents(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
