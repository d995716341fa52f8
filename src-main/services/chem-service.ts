/**
 * Chemistry for the UI and the CLI: depictions, computed properties, structure searches for
 * records.list and `find`, the structure index's state, and the vault's own deep-learning tools.
 *
 * RDKit runs only in the worker pool, one for the whole app, created on first need (app start and
 * commands without chemistry never load it). Each vault of an open cache gets its own engine on
 * first need, closed when its cache closes or the services close.
 */
import os from 'node:os'
import { ApiError } from '../api/index.ts'
import type { DepictionSize } from '../chem/depiction.ts'
import { molecularPropertyNames } from '../../src-common/chem/molecular-properties.ts'
import type { Depiction } from '../chem/structure-engine.ts'
import { maximumStructureLength } from '../chem/structure-input.ts'
import type { QueryLanguage } from '../chem/structure-query.ts'
import {
  normalizeSearchRequest,
  type StructureCriterion,
} from '../chem/structure-search-request.ts'
import { checkStructuresInWorkers } from '../chem/structure-check.ts'
import { ChemWorkerPool } from '../chem/worker-pool.ts'
import type { MolblockResult } from '../chem/worker-protocol.ts'
import type {
  MoleculeProperties,
  QueryDepiction,
  ServerToolResult,
  StructureIndexState,
  StructureListOptions,
  StructurePage,
} from './chem-results.ts'
import { AppError } from '../shared/app-error.ts'
import type { EventBus } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import { toId, toNumber, toText } from '../../src-common/values.ts'
import { connectionVaultId } from '../store/vault-cache.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'
import { listStructurePage } from './structure-list.ts'
import { VaultChemistry, type IngestSummary, type IndexProgress } from './vault-chemistry.ts'

export type ServerTool = 'bioisosteres' | 'fragments' | 'similar'

export interface DepictRequest {
  size?: DepictionSize
  highlight?: { query: string; language?: QueryLanguage }
}

/** What the hosts and the other services may ask of chemistry. */
export interface ChemService {
  depict(
    connectionId: string,
    vaultId: number,
    moleculeId: number,
    request?: DepictRequest,
  ): Promise<Depiction>
  depictMany(
    connectionId: string,
    vaultId: number,
    moleculeIds: readonly number[],
    size?: DepictionSize,
  ): Promise<Record<string, Depiction>>
  depictQuery(text: string, language?: QueryLanguage): Promise<QueryDepiction>
  properties(connectionId: string, vaultId: number, moleculeId: number): Promise<MoleculeProperties>
  indexState(connectionId: string, vaultId: number): Promise<StructureIndexState>
  serverTools(
    connectionId: string,
    vaultId: number,
    moleculeId: number,
    tool: ServerTool,
  ): Promise<{ results: ServerToolResult[] }>
  /**
   * Molfiles (2D coordinates computed) of structures given as SMILES or CXSMILES, in order,
   * converted in the workers in batches; a structure RDKit cannot read comes back with the reason.
   */
  molblocks(structures: readonly string[], signal?: AbortSignal): Promise<MolblockResult[]>
  /**
   * Whether each structure (SMILES, CXSMILES or a molfile) parses, in order: null where RDKit reads
   * and sanitizes it, else why not in RDKit's words; parsed only (chem/structure-check.ts), in
   * the workers, for an import check's structures.
   */
  structureProblems(structures: readonly string[], signal?: AbortSignal): Promise<(string | null)[]>
  /**
   * A structure search of a few structures outside the index (molecules registered offline):
   * each one's score (1 for a substructure or exact hit), or null where it does not match.
   */
  matchStructures(
    criterion: StructureCriterion,
    structures: readonly string[],
  ): Promise<(number | null)[]>
  /** A page of molecules answering a structure (or property) search, from the cache. */
  list(connectionId: string, vaultId: number, options: StructureListOptions): Promise<StructurePage>
  /** Sync committed molecules of a vault: bring its index in step (in the background). */
  moleculesChanged(connectionId: string, vaultId: number): void
  /**
   * Brings a vault's index in step now (the CLI before a search), reporting progress; with
   * `details: false`, only until every molecule is searchable (InChIKeys and properties may wait).
   */
  buildIndex(
    connectionId: string,
    vaultId: number,
    onProgress?: (progress: IndexProgress) => void,
    options?: { details?: boolean },
  ): Promise<IngestSummary>
  close(): Promise<void>
}

export interface ChemServiceOptions {
  runtimes: ConnectionRuntimes
  events: EventBus
  log: Logger
  /** Chemistry worker threads; two by default (or one on a single core). */
  workers?: number
}

const maximumServerResults = 200
/** Structures per worker task: small enough that both workers share a page, large enough to pay. */
const molblockBatch = 50

export class LocalChemService implements ChemService {
  readonly #options: ChemServiceOptions
  readonly #log: Logger
  readonly #vaults = new Map<string, VaultChemistry>()
  readonly #progressListeners = new Set<(vault: VaultChemistry, progress: IndexProgress) => void>()
  #pool: ChemWorkerPool | null = null
  #closed = false

  constructor(options: ChemServiceOptions) {
    this.#options = options
    this.#log = options.log
    // A removed connection's runtime is gone, and a rebuilt cache is another file.
    options.events.on('connections.changed', () => this.#dropClosed())
    options.events.on('cache.rebuilt', ({ connectionId }) => this.#dropConnection(connectionId))
  }

  async depict(
    connectionId: string,
    vaultId: number,
    moleculeId: number,
    request: DepictRequest = {},
  ): Promise<Depiction> {
    const vault = this.#vault(connectionId, vaultId)
    await this.#requireIndexed(vault, [moleculeId])
    const engine = await vault.engine()
    return engine.depict(moleculeId, {
      size: request.size ?? 'thumbnail',
      ...(request.highlight ? { highlight: request.highlight } : {}),
    })
  }

  async depictMany(
    connectionId: string,
    vaultId: number,
    moleculeIds: readonly number[],
    size: DepictionSize = 'thumbnail',
  ): Promise<Record<string, Depiction>> {
    const vault = this.#vault(connectionId, vaultId)
    const ids = [...new Set(moleculeIds)]
    const { missing } = await vault.indexNow(ids)
    const engine = await vault.engine()
    const absent = new Set(missing)
    const drawn = await Promise.all(
      ids
        .filter((id) => !absent.has(id))
        .map(async (id) => [String(id), await engine.depict(id, { size })] as const),
    )
    return Object.fromEntries(drawn)
  }

  async depictQuery(text: string, language: QueryLanguage = 'auto'): Promise<QueryDepiction> {
    if (text.trim() === '') return { kind: 'invalid', message: 'The structure query is empty.' }
    if (text.length > maximumStructureLength) {
      return {
        kind: 'invalid',
        message: `The structure query is longer than ${maximumStructureLength} characters.`,
      }
    }
    try {
      const drawn = await this.#workers().run({
        kind: 'depictQuery',
        text,
        language,
        size: 'detail',
      })
      return { kind: 'svg', svg: drawn.svg, language: drawn.language }
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_argument') {
        return { kind: 'invalid', message: error.message }
      }
      throw error
    }
  }

  async properties(
    connectionId: string,
    vaultId: number,
    moleculeId: number,
  ): Promise<MoleculeProperties> {
    const vault = this.#vault(connectionId, vaultId)
    await this.#requireIndexed(vault, [moleculeId])
    const engine = await vault.engine()
    const fromServer = new Set(vault.repository.knownPropertyNames(moleculeId))
    const computed = engine.properties(moleculeId) ?? {}
    return {
      computed,
      fromServer: molecularPropertyNames.filter((name) => fromServer.has(name)),
    }
  }

  async indexState(connectionId: string, vaultId: number): Promise<StructureIndexState> {
    const vault = this.#vault(connectionId, vaultId)
    vault.ingestOnce()
    return vault.state()
  }

  async serverTools(
    connectionId: string,
    vaultId: number,
    moleculeId: number,
    tool: ServerTool,
  ): Promise<{ results: ServerToolResult[] }> {
    const runtime = this.#options.runtimes.get(connectionId)
    const vault = this.#vault(connectionId, vaultId)
    const molecule = vault.repository.moleculeStructure(moleculeId)
    if (!molecule) {
      throw new AppError('not_found', `Molecule ${moleculeId} is not in the cache of this vault.`)
    }
    if (molecule.structure === null) {
      throw new AppError('invalid_argument', `Molecule ${moleculeId} has no structure to send.`)
    }
    const structure = molecule.structure
    const api = runtime.client.deepLearning
    let answer: Record<string, unknown>
    try {
      switch (tool) {
        case 'bioisosteres':
          answer = await api.flatBioisosteres(
            vaultId,
            { structure, number_suggestions: 10 },
            { priority: 'interactive' },
          )
          break
        case 'fragments':
          answer = await api.fragmentation(vaultId, { structure }, { priority: 'interactive' })
          break
        case 'similar':
          answer = await api.similarity(
            vaultId,
            { structure, number_results: 50 },
            { priority: 'interactive' },
          )
          break
      }
    } catch (error) {
      throw serverToolError(error, runtime.client.needsNewToken)
    }
    const found = serverResults(tool, answer).slice(0, maximumServerResults)
    const results = await Promise.all(
      found.map(async (result): Promise<ServerToolResult> => {
        let svg: string | null = null
        try {
          svg = (
            await this.#workers().run({
              kind: 'depictQuery',
              text: result.smiles,
              language: 'smiles',
              size: 'thumbnail',
            })
          ).svg
        } catch (error) {
          this.#log.debug('a server result could not be drawn', { error })
        }
        return { ...result, svg }
      }),
    )
    return { results }
  }

  async matchStructures(
    criterion: StructureCriterion,
    structures: readonly string[],
  ): Promise<(number | null)[]> {
    const normalized = normalizeSearchRequest({ structure: criterion }).structure!
    if (structures.length === 0) return []
    return this.#workers().run({
      kind: 'matchStructures',
      structures: [...structures],
      criterion: normalized,
    })
  }

  async molblocks(structures: readonly string[], signal?: AbortSignal): Promise<MolblockResult[]> {
    const batches: string[][] = []
    for (let start = 0; start < structures.length; start += molblockBatch) {
      batches.push(structures.slice(start, start + molblockBatch))
    }
    const pool = this.#workers()
    const answers = await Promise.all(
      batches.map((batch) =>
        pool.run({ kind: 'writeMolblocks', structures: batch }, signal ? { signal } : {}),
      ),
    )
    return answers.flat()
  }

  async structureProblems(
    structures: readonly string[],
    signal?: AbortSignal,
  ): Promise<(string | null)[]> {
    return checkStructuresInWorkers(this.#workers(), structures, signal)
  }

  async list(
    connectionId: string,
    vaultId: number,
    options: StructureListOptions,
  ): Promise<StructurePage> {
    const vault = this.#vault(connectionId, vaultId)
    vault.ingestOnce()
    return listStructurePage(vault, options)
  }

  moleculesChanged(connectionId: string, vaultId: number): void {
    if (this.#closed) return
    let vault: VaultChemistry
    try {
      vault = this.#vault(connectionId, vaultId)
    } catch (error) {
      this.#log.warn('cannot index the structures of a vault', { connectionId, vaultId, error })
      return
    }
    vault.ingest().catch((error: unknown) => {
      // A cache closed under ingest (connection removed, services closing) ends it quietly.
      if (this.#closed || this.#vaults.get(vaultKey(connectionId, vaultId)) !== vault) return
      this.#log.warn('indexing structures failed', { connectionId, vaultId, error })
    })
  }

  async buildIndex(
    connectionId: string,
    vaultId: number,
    onProgress?: (progress: IndexProgress) => void,
    options: { details?: boolean } = {},
  ): Promise<IngestSummary> {
    const vault = this.#vault(connectionId, vaultId)
    const listener = (of: VaultChemistry, progress: IndexProgress): void => {
      if (of === vault) onProgress?.(progress)
    }
    this.#progressListeners.add(listener)
    try {
      return await vault.ingest(options)
    } finally {
      this.#progressListeners.delete(listener)
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    for (const vault of this.#vaults.values()) vault.close()
    this.#vaults.clear()
    await this.#pool?.close()
    this.#pool = null
  }

  #workers(): ChemWorkerPool {
    if (this.#closed) throw new AppError('cancelled', 'Chemistry has shut down.')
    this.#pool ??= new ChemWorkerPool({
      size: this.#options.workers ?? Math.min(2, os.availableParallelism()),
      logger: this.#log,
    })
    return this.#pool
  }

  /** The chemistry of a cached vault, opened on first use on the connection's current cache. */
  #vault(connectionId: string, vaultId: number): VaultChemistry {
    const cache = this.#options.runtimes.get(connectionId).cache
    const key = vaultKey(connectionId, vaultId)
    const known = this.#vaults.get(key)
    if (known && known.cache === cache) return known
    known?.close()
    this.#vaults.delete(key)
    if (cache.get('vaults', connectionVaultId, vaultId) === null) {
      throw new AppError('not_found', `Vault ${vaultId} is not in the cache of this connection.`)
    }
    const vault: VaultChemistry = new VaultChemistry({
      connectionId,
      vaultId,
      cache,
      pool: this.#workers(),
      log: this.#log.child({ connectionId }),
      onProgress: (progress) => {
        this.#options.events.emit('chem.indexProgress', { connectionId, vaultId, ...progress })
        for (const listener of this.#progressListeners) listener(vault, progress)
      },
    })
    this.#vaults.set(key, vault)
    return vault
  }

  async #requireIndexed(vault: VaultChemistry, ids: readonly number[]): Promise<void> {
    const { missing } = await vault.indexNow(ids)
    if (missing.length > 0) {
      throw new AppError('not_found', `Molecule ${missing[0]} is not in the cache of this vault.`)
    }
  }

  /** Closes the engines of connections whose runtime was closed (removed connections). */
  #dropClosed(): void {
    const open = new Set(this.#options.runtimes.opened().map((runtime) => runtime.id))
    for (const vault of [...this.#vaults.values()]) {
      if (!open.has(vault.connectionId)) this.#dropConnection(vault.connectionId)
    }
  }

  #dropConnection(connectionId: string): void {
    for (const [key, vault] of [...this.#vaults]) {
      if (vault.connectionId !== connectionId) continue
      vault.close()
      this.#vaults.delete(key)
    }
  }
}

function vaultKey(connectionId: string, vaultId: number): string {
  return `${connectionId}\u0000${vaultId}`
}

/** The server's answer as results to draw (its shapes: see src-sim/resources/domain/deep-learning.ts). */
function serverResults(
  tool: ServerTool,
  answer: Record<string, unknown>,
): Omit<ServerToolResult, 'svg'>[] {
  const list = (member: string): Record<string, unknown>[] => {
    const value = answer[member]
    return Array.isArray(value)
      ? value.filter(
          (item): item is Record<string, unknown> => typeof item === 'object' && item !== null,
        )
      : []
  }
  const result = (
    smiles: unknown,
    score: unknown,
    label: unknown,
  ): Omit<ServerToolResult, 'svg'>[] => {
    const text = toText(smiles)
    if (!text) return []
    const number = toNumber(score)
    const name = toText(label)
    return [
      {
        smiles: text,
        ...(number !== null ? { score: number } : {}),
        ...(name ? { label: name } : {}),
      },
    ]
  }
  switch (tool) {
    case 'bioisosteres':
      return list('suggestions').flatMap((item) =>
        result(item.smiles, item.score, item.group ?? item.replacement),
      )
    case 'fragments':
      return list('fragments').flatMap((item) =>
        result(item.fragment_smiles ?? item.smiles, undefined, item.group),
      )
    case 'similar':
      return list('results').flatMap((item) =>
        result(
          item.smiles,
          item.similarity ?? item.score,
          item.name ?? (toId(item.molecule) !== null ? `Molecule ${toId(item.molecule)}` : null),
        ),
      )
  }
}

function serverToolError(error: unknown, needsNewToken: boolean): unknown {
  if (!(error instanceof ApiError)) return error
  if (error.kind === 'network') {
    return new AppError(
      'offline',
      'The vault cannot be reached: its structure tools need a connection.',
      { cause: error },
    )
  }
  if ((error.kind === 'authentication' && !needsNewToken) || error.kind === 'forbidden') {
    return new AppError(
      'forbidden',
      'This vault does not offer the deep-learning structure tools (bioisosteres, fragments, similarity), or your account may not use them.',
      { cause: error },
    )
  }
  if (error.kind === 'validation') {
    return new AppError(
      'invalid_argument',
      `The vault refused the structure: ${error.serverMessage ?? error.message}`,
      { cause: error },
    )
  }
  return error
}
