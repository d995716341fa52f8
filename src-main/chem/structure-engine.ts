/**
 * The chemistry of one vault's cache, as the services use it: keeping the structure index in step
 * with the molecules (recomputing only what changed), searching it, and drawing molecules.
 * RDKit runs only in the pool's workers; this class runs on the main thread and never parses.
 */
import { AppError } from '../shared/app-error.ts'
import { recipeVersion } from './content-hash.ts'
import {
  completeStructureDetails,
  type CompleteDetailsOptions,
  type DetailsSummary,
} from './details-completion.ts'
import { silentLogger, type Logger } from '../shared/logger.ts'
import type { DepictionSize } from './depiction.ts'
import { slotState } from './index-buffers.ts'
import type { MolecularProperties } from '../../src-common/chem/molecular-properties.ts'
import { StructureIndex } from './structure-index.ts'
import type { StructureIndexStore } from './structure-index-store.ts'
import { maximumStructureLength } from './structure-input.ts'
import type { QueryLanguage, ResolvedQueryLanguage, SubstructureQuery } from './structure-query.ts'
import type { StructureRecord } from './structure-record.ts'
import {
  StructureSearcher,
  type ScanChunkSizes,
  type SearchOptions,
  type StructureSearchResult,
} from './structure-search.ts'
import { normalizeSearchRequest, type StructureSearchRequest } from './structure-search-request.ts'
import {
  synchronizeStructures,
  type MoleculeStructure,
  type SynchronizeOptions,
  type SynchronizeSummary,
} from './structure-synchronization.ts'
import type { ChemWorkerPool } from './worker-pool.ts'

export type Depiction =
  { kind: 'svg'; svg: string; highlighted: boolean } | { kind: 'unparseable'; reason: string }

export interface DepictOptions {
  size?: DepictionSize
  /** Highlights the atoms this substructure query matches (drawn fresh, not cached). */
  highlight?: { query: string; language?: QueryLanguage; useChirality?: boolean }
  signal?: AbortSignal
}

export interface StructureEngineOptions {
  pool: ChemWorkerPool
  store: StructureIndexStore
  logger?: Logger
  scanChunkSizes?: ScanChunkSizes
}

const loadPage = 2000

export class StructureEngine {
  readonly #pool: ChemWorkerPool
  readonly #store: StructureIndexStore
  readonly #log: Logger
  readonly #rdkitVersion: string
  readonly #index = new StructureIndex()
  readonly #searcher: StructureSearcher
  #closed = false

  private constructor(options: StructureEngineOptions, rdkitVersion: string) {
    this.#pool = options.pool
    this.#store = options.store
    this.#log = (options.logger ?? silentLogger).child({ component: 'structure-engine' })
    this.#rdkitVersion = rdkitVersion
    this.#searcher = new StructureSearcher(
      this.#pool,
      this.#index,
      (key) =>
        'inchiKey' in key
          ? this.#store.idsByInchiKey(key.inchiKey)
          : this.#store.idsByCanonicalSmiles(key.canonicalSmiles),
      options.scanChunkSizes,
    )
  }

  /** Loads the stored index into memory, a page at a time so the main thread stays responsive. */
  static async open(options: StructureEngineOptions): Promise<StructureEngine> {
    const { rdkitVersion } = await options.pool.run({ kind: 'describe' })
    const engine = new StructureEngine(options, rdkitVersion)
    let afterId: number | null = null
    for (;;) {
      const page: StructureRecord[] = options.store.recordsAfter(afterId, loadPage)
      for (const record of page) engine.#index.put(record)
      if (page.length < loadPage) break
      afterId = page[page.length - 1]!.id
      await new Promise((resolve) => setImmediate(resolve))
    }
    options.pool.attachIndex(engine.#index.id, engine.#index.buffers.handles)
    engine.#log.info('structure index loaded', {
      molecules: engine.#index.size,
      unparseable: engine.#index.unparseableCount,
    })
    return engine
  }

  /**
   * What computes the index: the recipe and the RDKit version. Stored beside an index, so that a
   * new one makes every molecule be looked at again (content hashes then differ).
   */
  get recipe(): string {
    return `${recipeVersion}/${this.#rdkitVersion}`
  }

  /** Whether the index holds this molecule (parsed or flagged unparseable). */
  has(id: number): boolean {
    return this.#index.has(id)
  }

  /**
   * Molecules in the index, how many could not be parsed, how many still wait for their InChIKey
   * or properties, and the shared memory it holds.
   */
  stats(): {
    molecules: number
    unparseable: number
    detailsPending: number
    sharedBytes: number
  } {
    return {
      molecules: this.#index.size,
      unparseable: this.#index.unparseableCount,
      detailsPending: this.#index.pendingDetailsCount,
      sharedBytes: this.#index.buffers.sharedBytes,
    }
  }

  /** Properties in effect for a molecule: the vault's where it gave them, computed elsewhere. */
  properties(id: number): Partial<MolecularProperties> | undefined {
    return this.#index.properties(id)
  }

  /**
   * Brings the index and the store in step with these molecules: new or changed ones (by content
   * hash) are computed, unchanged ones skipped. Molecules not given are left alone; remove deleted
   * ones with `remove`. Computed molecules are searchable at once, but their InChIKeys and
   * properties wait for `completeDetails`.
   */
  async synchronize(
    molecules: Iterable<MoleculeStructure> | AsyncIterable<MoleculeStructure>,
    options: SynchronizeOptions = {},
  ): Promise<SynchronizeSummary> {
    this.#throwIfClosed()
    return synchronizeStructures(
      {
        pool: this.#pool,
        store: this.#store,
        index: this.#index,
        rdkitVersion: this.#rdkitVersion,
        log: this.#log,
      },
      molecules,
      options,
    )
  }

  /** Computes the InChIKeys and properties that molecules still wait for (see synchronize). */
  async completeDetails(options: CompleteDetailsOptions = {}): Promise<DetailsSummary> {
    this.#throwIfClosed()
    return completeStructureDetails(
      { pool: this.#pool, store: this.#store, index: this.#index, log: this.#log },
      options,
    )
  }

  remove(ids: readonly number[]): void {
    this.#throwIfClosed()
    this.#store.remove(ids)
    for (const id of ids) this.#index.remove(id)
  }

  async search(
    request: StructureSearchRequest,
    options: SearchOptions = {},
  ): Promise<StructureSearchResult> {
    this.#throwIfClosed()
    return this.#searcher.search(normalizeSearchRequest(request), options)
  }

  /** A molecule's depiction, cached per size until its structure changes. */
  async depict(id: number, options: DepictOptions = {}): Promise<Depiction> {
    this.#throwIfClosed()
    const size = options.size ?? 'thumbnail'
    const slot = this.#index.slotOf(id)
    if (slot === undefined)
      throw new AppError('not_found', `Molecule ${id} is not in the structure index.`)
    if (this.#index.stateAt(slot) === slotState.unparseable) {
      return {
        kind: 'unparseable',
        reason: this.#store.parseError(id) ?? 'The structure could not be parsed.',
      }
    }
    const highlight = options.highlight ? highlightQuery(options.highlight) : null
    if (!highlight) {
      const cached = this.#store.depiction(id, size)
      if (cached !== undefined) return { kind: 'svg', svg: cached, highlighted: false }
    }
    const drawn = await this.#pool.run(
      { kind: 'depictMolecule', indexId: this.#index.id, slot, size, highlight },
      { signal: options.signal },
    )
    if (!highlight && this.#index.slotOf(id) === slot)
      this.#store.saveDepiction(id, size, drawn.svg)
    return { kind: 'svg', ...drawn }
  }

  /**
   * Draws what a person is typing into the structure query box, and says how it was read (with
   * `auto`: SMILES, SMARTS or molfile); an invalid query is refused with RDKit's words for what
   * is wrong. Also draws structures the vault answers with (bioisosteres, fragments).
   */
  async depictQuery(
    text: string,
    options: { language?: QueryLanguage; size?: DepictionSize; signal?: AbortSignal } = {},
  ): Promise<{ svg: string; language: ResolvedQueryLanguage }> {
    this.#throwIfClosed()
    if (text.trim() === '') throw new AppError('invalid_argument', 'The structure query is empty.')
    if (text.length > maximumStructureLength) {
      throw new AppError(
        'invalid_argument',
        `The structure query is longer than ${maximumStructureLength} characters.`,
      )
    }
    return this.#pool.run(
      {
        kind: 'depictQuery',
        text,
        language: options.language ?? 'auto',
        size: options.size ?? 'detail',
      },
      { signal: options.signal },
    )
  }

  /** Detaches the index from the workers; the pool belongs to the caller and stays open. */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.#pool.detachIndex(this.#index.id)
  }

  #throwIfClosed(): void {
    if (this.#closed) throw new AppError('internal', 'The structure engine is closed.')
  }
}

function highlightQuery(highlight: NonNullable<DepictOptions['highlight']>): SubstructureQuery {
  return {
    text: highlight.query,
    language: highlight.language ?? 'auto',
    useChirality: highlight.useChirality ?? true,
  }
}
