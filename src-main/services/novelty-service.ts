/**
 * The novelty check of registration: while a chemist draws, which molecules of the whole cached
 * vault (and those registered offline, still in the outbox) the drawn structure already is: the
 * same structure (InChIKey or canonical SMILES), the same skeleton with other stereo (the
 * InChIKey's first block), or the same parent once salts and solvents are removed from both.
 *
 * The drawn structure is read in a chemistry worker of its own, so that a check never waits
 * behind the indexing of a vault; the cached molecules are looked up by the keys the structure
 * index stores (store/structure-index-repository.ts), and queued ones are read in the worker too,
 * their keys remembered by structure text.
 */
import type { StructureText } from '../../src-common/registration/form.ts'
import {
  noveltyRelations,
  type NoveltyInput,
  type NoveltyMatch,
  type NoveltyRelation,
  type NoveltyReport,
} from '../../src-common/registration/novelty.ts'
import type { JsonObject } from '../../src-common/values.ts'
import type { NoveltyKeys } from '../chem/novelty-keys.ts'
import { isMolfile } from '../chem/structure-query.ts'
import { ChemWorkerPool } from '../chem/worker-pool.ts'
import { AppError } from '../shared/app-error.ts'
import type { Logger } from '../shared/logger.ts'
import type { StructureIndexRepository } from '../store/structure-index-repository.ts'
import { connectionVaultId, type VaultCache } from '../store/vault-cache.ts'
import type { PendingRecord } from '../sync/outbox/pending-records.ts'

export interface NoveltyServiceOptions {
  /** The cache of a connection; throws for a connection it does not know. */
  cache(connectionId: string): VaultCache
  /** Records of a vault waiting in the outbox that may hold a new molecule (molecules, batches). */
  pendingRecords(connectionId: string, vaultId: number): PendingRecord[]
  /**
   * Asked (once per vault) when some cached molecules cannot be compared yet, so that their
   * structure index gets built.
   */
  buildIndex?(connectionId: string, vaultId: number): void
  /** The workers to read structures in; by default one of its own, started on first use. */
  pool?: ChemWorkerPool
  log: Logger
  /** Matches listed per relation (all are counted). */
  limit?: number
}

/** A cached vault as the check reads it. */
interface VaultState {
  repository: StructureIndexRepository
  /**
   * Cached molecules not indexed yet, as the index's progress last said (or as counted, when it
   * has said nothing since the last change): counting walks the whole vault.
   */
  unindexed: number | null
  /** Indexed molecules waiting for their keys, counted at the first check after a change. */
  waiting: number | null
}

/** How far a vault's structure index is, as its progress events say. */
export interface IndexProgressCounts {
  indexed: number
  total: number
}

const defaultLimit = 20
/** Keys of structure texts remembered (queued and recently drawn): far more than an outbox holds. */
const rememberedKeys = 2000
/** The longest structure text whose keys are remembered: a large molfile, at 2,000 of them 100 MB. */
const rememberedTextLength = 50_000

export class NoveltyService {
  readonly #options: NoveltyServiceOptions
  readonly #limit: number
  readonly #vaults = new WeakMap<VaultCache, Map<number, VaultState>>()
  readonly #keysByText = new Map<string, NoveltyKeys>()
  readonly #indexAsked = new Set<string>()
  #pool: ChemWorkerPool | null = null
  #closed = false

  constructor(options: NoveltyServiceOptions) {
    this.#options = options
    this.#limit = options.limit ?? defaultLimit
  }

  async check(
    connectionId: string,
    vaultId: number,
    structure: StructureText,
  ): Promise<NoveltyReport> {
    const vault = this.#vault(connectionId, vaultId)
    const { repository } = vault
    const problem = formatProblem(structure)
    if (problem) return { ok: false, error: problem }
    const [drawn] = await this.#keys([structure.text])
    if (!drawn!.ok) return { ok: false, error: drawn!.problem }
    const input = drawn!.keys

    const candidates = repository.noveltyCandidates(input)
    const cachedIds: Record<NoveltyRelation, number[]> = {
      'same-structure': candidates.sameStructure,
      'other-stereo': candidates.sameSkeleton,
      'same-parent': candidates.sameParent,
    }
    const known = new Set(Object.values(cachedIds).flat())
    const pending = await this.#pendingMatches(connectionId, vaultId, input, known)

    const matches: NoveltyMatch[] = []
    const counts = {} as Record<NoveltyRelation, number>
    for (const relation of noveltyRelations) {
      const ids = cachedIds[relation]
      const queued = pending.filter((match) => match.relation === relation)
      counts[relation] = ids.length + queued.length
      const listed = repository
        .moleculeSummaries(ids.slice(0, this.#limit))
        .map((molecule): NoveltyMatch => ({
          relation,
          id: molecule.id,
          pendingItem: null,
          name: molecule.name ?? `Molecule ${molecule.id}`,
          smiles: molecule.smiles,
        }))
      matches.push(...listed, ...queued.slice(0, this.#limit - listed.length))
    }

    vault.unindexed ??= repository.unindexedCount()
    vault.waiting ??= repository.waitingForNoveltyKeys()
    const unchecked = vault.unindexed + vault.waiting
    if (unchecked > 0) this.#askForIndex(connectionId, vaultId)
    return { ok: true, input, matches, counts, unchecked }
  }

  /**
   * The molecules or the structure index of a vault changed (with the index's progress, when
   * known): how many molecules cannot be compared yet is counted again at the next check, not at
   * every structure change, since counting the molecules not indexed walks the whole vault (about
   * 100 ms for 250k on a busy machine).
   */
  indexChanged(connectionId: string, vaultId: number, progress?: IndexProgressCounts): void {
    let cache: VaultCache
    try {
      cache = this.#options.cache(connectionId)
    } catch {
      return
    }
    const vault = this.#vaults.get(cache)?.get(vaultId)
    if (!vault) return
    vault.unindexed = progress ? Math.max(0, progress.total - progress.indexed) : null
    vault.waiting = null
  }

  async close(): Promise<void> {
    this.#closed = true
    const pool = this.#pool
    this.#pool = null
    await pool?.close()
  }

  /** Molecules waiting in the outbox that the drawn structure is, besides the cached `known`. */
  async #pendingMatches(
    connectionId: string,
    vaultId: number,
    input: NoveltyInput,
    known: ReadonlySet<number>,
  ): Promise<NoveltyMatch[]> {
    const queued = this.#options.pendingRecords(connectionId, vaultId).flatMap((record) => {
      const text = structureOf(record.record)
      return text !== null && !(record.id !== null && known.has(record.id))
        ? [{ record, text }]
        : []
    })
    if (queued.length === 0) return []
    const keys = await this.#keys(queued.map(({ text }) => text))
    return queued.flatMap(({ record }, index): NoveltyMatch[] => {
      const computed = keys[index]!
      if (!computed.ok) return []
      const relation = relationBetween(input, computed.keys)
      if (relation === null) return []
      return [
        {
          relation,
          id: record.id,
          pendingItem: record.createdBy,
          name: nameOf(record),
          smiles: computed.keys.canonicalSmiles,
        },
      ]
    })
  }

  /** Keys of structure texts, in order; those of queued structures are remembered. */
  async #keys(texts: readonly string[]): Promise<NoveltyKeys[]> {
    const missing = [...new Set(texts.filter((text) => !this.#keysByText.has(text)))]
    const computed =
      missing.length === 0
        ? []
        : await this.#workers().run({ kind: 'noveltyKeys', structures: missing })
    const fresh = new Map(missing.map((text, index) => [text, computed[index]!]))
    const answers = texts.map((text) => fresh.get(text) ?? this.#keysByText.get(text)!)
    // Queued structures are read at every check, and a chemist often goes back to a structure
    // drawn a moment ago; a huge text is not kept, so that memory stays bounded.
    for (const [text, keys] of fresh) {
      if (text.length > rememberedTextLength) continue
      if (this.#keysByText.size >= rememberedKeys) {
        this.#keysByText.delete(this.#keysByText.keys().next().value!)
      }
      this.#keysByText.set(text, keys)
    }
    return answers
  }

  #workers(): ChemWorkerPool {
    if (this.#closed) throw new AppError('cancelled', 'The novelty check has shut down.')
    if (this.#options.pool) return this.#options.pool
    this.#pool ??= new ChemWorkerPool({ size: 1, logger: this.#options.log })
    return this.#pool
  }

  #vault(connectionId: string, vaultId: number): VaultState {
    const cache = this.#options.cache(connectionId)
    let byVault = this.#vaults.get(cache)
    if (!byVault) {
      byVault = new Map()
      this.#vaults.set(cache, byVault)
    }
    let vault = byVault.get(vaultId)
    if (!vault) {
      if (cache.get('vaults', connectionVaultId, vaultId) === null) {
        throw new AppError('not_found', `Vault ${vaultId} is not in the cache of this connection.`)
      }
      vault = { repository: cache.structureIndex(vaultId), unindexed: null, waiting: null }
      byVault.set(vaultId, vault)
    }
    return vault
  }

  #askForIndex(connectionId: string, vaultId: number): void {
    const key = `${connectionId}\u0000${vaultId}`
    if (this.#indexAsked.has(key) || !this.#options.buildIndex) return
    this.#indexAsked.add(key)
    try {
      this.#options.buildIndex(connectionId, vaultId)
    } catch (error) {
      this.#options.log.warn('cannot index the structures of a vault', {
        connectionId,
        vaultId,
        error,
      })
    }
  }
}

/** The closest relation of a known molecule's keys to the drawn structure's, or null for none. */
export function relationBetween(
  drawn: NoveltyInput,
  known: Pick<NoveltyInput, 'canonicalSmiles' | 'inchiKey' | 'skeletonKey' | 'parentSmiles'>,
): NoveltyRelation | null {
  if (
    drawn.canonicalSmiles === known.canonicalSmiles ||
    (drawn.inchiKey !== '' && drawn.inchiKey === known.inchiKey)
  ) {
    return 'same-structure'
  }
  if (drawn.skeletonKey !== '' && drawn.skeletonKey === known.skeletonKey) return 'other-stereo'
  if (drawn.parentSmiles === known.parentSmiles) return 'same-parent'
  return null
}

/** What is wrong with the structure as given, before RDKit reads it; null when nothing is. */
function formatProblem(structure: StructureText): string | null {
  if (structure.text.trim() === '') return 'The structure is empty: draw one or paste its text.'
  const molfile = isMolfile(structure.text)
  if (structure.format === 'molfile' && !molfile) {
    return 'The structure was given as a molfile, but its text has no molfile counts line (V2000 or V3000).'
  }
  if (structure.format !== 'molfile' && molfile) {
    return `The structure was given as ${structure.format === 'smiles' ? 'SMILES' : 'CXSMILES'}, but its text is a molfile.`
  }
  return null
}

const structureMembers = ['cxsmiles', 'smiles', 'molfile', 'structure'] as const

/**
 * The structure a queued record carries: a molecule's own, or the molecule of a new batch, in
 * the members the vault's API uses.
 */
function structureOf(record: JsonObject): string | null {
  for (const holder of [record, record.molecule]) {
    if (typeof holder !== 'object' || holder === null || Array.isArray(holder)) continue
    for (const member of structureMembers) {
      const value = (holder as JsonObject)[member]
      if (typeof value === 'string' && value.trim() !== '') return value
    }
  }
  return null
}

function nameOf(record: PendingRecord): string {
  const molecule = record.record.molecule
  const names = [
    record.record.name,
    typeof molecule === 'object' && molecule !== null && !Array.isArray(molecule)
      ? (molecule as JsonObject).name
      : undefined,
  ]
  const name = names.find((value): value is string => typeof value === 'string' && value !== '')
  if (name) return name
  return record.createdBy !== null ? `Registered offline (item ${record.createdBy})` : 'Queued'
}
