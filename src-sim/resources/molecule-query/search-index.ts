import { Worker } from 'node:worker_threads'
import type { IdentityResult, IdentityTask } from '../../chem/identity-tasks.ts'
import type { SimCore } from '../../core/sim-core.ts'
import type { IndexingSettings } from './indexing-settings.ts'

type Phase = IdentityTask['phase']

/** Molecules a phase still has to do, and the data they lack. */
const lacking: Record<Phase, string> = {
  'search forms': 'smiles IS NOT NULL AND (pickle IS NULL OR fingerprint IS NULL)',
  inchi: 'smiles IS NOT NULL AND pickle IS NOT NULL AND inchi_key IS NULL',
}
const phases: readonly Phase[] = ['search forms', 'inchi']
const chunkSize = 100
const tickMs = 100

interface Waiter {
  vaultId: number
  phase: Phase
  resolve(): void
}

/**
 * The background pass over a large vault's bulk-seeded molecules: their pickles and
 * fingerprints (for substructure and similarity search), then their InChI and InChIKey (for
 * InChIKey lookups), computed in a worker thread a chunk at a time and stored as each chunk
 * comes back. It takes a chunk only while the API is idle, so it stays out of the way of clients
 * reading the vault, unless a structure search is waiting for it: then it works on that vault's
 * molecules without pause. Searches still compute whatever is missing themselves (a small vault
 * has no pass, and the pass may fail), so the pass only ever saves them time.
 */
class SearchIndex {
  readonly #sim: SimCore
  readonly #settings: IndexingSettings
  readonly #timer: NodeJS.Timeout
  readonly #waiters: Waiter[] = []
  /** Molecules RDKit could not read: not offered again. */
  readonly #unreadable = new Set<number>()
  #worker: Worker | undefined
  #busy = false
  #stopped = false
  #requestsSeen: number
  #lastActivity = performance.now()

  constructor(sim: SimCore, settings: IndexingSettings) {
    this.#sim = sim
    this.#settings = settings
    this.#requestsSeen = sim.stats.requests
    this.#timer = setInterval(() => this.#advance(), tickMs)
    this.#timer.unref()
  }

  /**
   * Resolves once no molecule of the vault lacks what the phase computes (InChI come from the
   * pickles of the first phase, so that phase goes first), or the pass has ended.
   */
  async whenDone(vaultId: number, phase: Phase): Promise<void> {
    for (const needed of phases.slice(0, phases.indexOf(phase) + 1)) {
      if (this.#stopped) return
      await new Promise<void>((resolve) => {
        this.#waiters.push({ vaultId, phase: needed, resolve })
        this.#advance()
      })
    }
  }

  stop(): void {
    this.#stopped = true
    clearInterval(this.#timer)
    void this.#worker?.terminate()
    for (const waiter of this.#waiters.splice(0)) waiter.resolve()
  }

  #advance(): void {
    if (this.#stopped || this.#busy) return
    if (this.#sim.stats.requests !== this.#requestsSeen) {
      this.#requestsSeen = this.#sim.stats.requests
      this.#lastActivity = performance.now()
    }
    while (this.#waiters.length > 0) {
      const waiter = this.#waiters[0]!
      const task = this.#chunk(waiter.phase, waiter.vaultId)
      if (task) return this.#run(task)
      this.#waiters.shift()
      waiter.resolve()
    }
    if (performance.now() - this.#lastActivity < this.#settings.idleMs) return
    for (const phase of phases) {
      const task = this.#chunk(phase, undefined)
      if (task) return this.#run(task)
    }
    this.stop()
  }

  #chunk(phase: Phase, vaultId: number | undefined): IdentityTask | undefined {
    const rows = this.#sim.db
      .prepare(
        `SELECT id, ${phase === 'inchi' ? 'pickle' : 'smiles'} FROM molecules WHERE ${lacking[phase]}
         ${vaultId === undefined ? '' : 'AND vault_id = ?'}
         AND id NOT IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT ${chunkSize}`,
      )
      .raw()
      .all(...(vaultId === undefined ? [] : [vaultId]), JSON.stringify([...this.#unreadable]))
    if (rows.length === 0) return undefined
    return phase === 'inchi'
      ? { phase, molecules: rows as [number, Uint8Array][] }
      : { phase, molecules: rows as [number, string][] }
  }

  #run(task: IdentityTask): void {
    this.#busy = true
    const smiles = new Map(
      this.#sim.db
        .prepare(`SELECT id, smiles FROM molecules WHERE id IN (SELECT value FROM json_each(?))`)
        .raw()
        .all(JSON.stringify(task.molecules.map(([id]) => id))) as [number, string][],
    )
    const worker = (this.#worker ??= this.#startWorker())
    worker.once('message', (result: IdentityResult) => {
      this.#busy = false
      if (this.#stopped) return
      this.#store(result, smiles)
      const done = new Set(result.results.map(([id]) => id))
      for (const [id] of task.molecules) if (!done.has(id)) this.#unreadable.add(id)
      this.#advance()
    })
    worker.postMessage(task)
  }

  #startWorker(): Worker {
    const worker = new Worker(new URL('../../chem/identity-worker.ts', import.meta.url))
    worker.unref()
    worker.on('error', (error) => {
      this.#sim.log(`structure index: the background pass stopped: ${error.message}`)
      this.stop()
    })
    return worker
  }

  /** Stores results of molecules whose structure is still the one the worker read. */
  #store(result: IdentityResult, smiles: Map<number, string>): void {
    const db = this.#sim.db
    db.transaction(() => {
      if (result.phase === 'search forms') {
        const update = db.prepare(
          `UPDATE molecules SET pickle = ?, fingerprint = ? WHERE id = ? AND smiles = ?`,
        )
        for (const [id, pickle, fingerprint] of result.results)
          this.#sim.stats.backgroundIdentities.searchForms += update.run(
            pickle,
            fingerprint,
            id,
            smiles.get(id),
          ).changes
      } else {
        const update = db.prepare(
          `UPDATE molecules SET inchi = ?, inchi_key = ? WHERE id = ? AND smiles = ?`,
        )
        for (const [id, inchi, inchiKey] of result.results)
          this.#sim.stats.backgroundIdentities.inchi += update.run(
            inchi,
            inchiKey,
            id,
            smiles.get(id),
          ).changes
        // Records show InChI and InChIKey, so answers kept for the data version are stale.
        if (result.results.length > 0) this.#sim.dataVersion++
      }
    })()
  }
}

const indexes = new WeakMap<SimCore, SearchIndex>()

/** Starts the background pass when enough molecules lack search data. */
export function startSearchIndex(sim: SimCore, settings: IndexingSettings): void {
  const missing = sim.db
    .prepare(`SELECT COUNT(*) FROM molecules WHERE ${lacking['search forms']}`)
    .pluck()
    .get() as number
  if (missing >= settings.minimumMolecules) indexes.set(sim, new SearchIndex(sim, settings))
}

export function stopSearchIndex(sim: SimCore): void {
  indexes.get(sim)?.stop()
}

/**
 * Waits, when a background pass runs, until it has done a phase for the vault's molecules; a
 * search then computes itself only what the pass could not.
 */
export function searchIndexed(sim: SimCore, vaultId: number, phase: Phase): Promise<void> {
  return indexes.get(sim)?.whenDone(vaultId, phase) ?? Promise.resolve()
}
