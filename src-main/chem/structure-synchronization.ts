/**
 * Brings a structure index and its store in step with a stream of molecules: each is hashed on the
 * main thread (cheap), compared with the stored hash, and only new or changed molecules are sent
 * to the workers, in batches spread over all of them. Each computed batch is stored in one
 * transaction and then published in the index.
 */
import { AppError } from '../shared/app-error.ts'
import type { Logger } from '../shared/logger.ts'
import { contentHash } from './content-hash.ts'
import {
  molecularPropertyNames,
  type MolecularProperties,
} from '../../src-common/chem/molecular-properties.ts'
import type { StructureIndex } from './structure-index.ts'
import type { StructureIndexStore } from './structure-index-store.ts'
import {
  maximumStructureLength,
  type ComputedStructure,
  type StructureInput,
} from './structure-input.ts'
import type { StructureRecord } from './structure-record.ts'
import { isolatingWorkerDeaths } from './worker-death-isolation.ts'
import type { ChemWorkerPool } from './worker-pool.ts'

export interface MoleculeStructure {
  id: number
  /** SMILES, CXSMILES or a molfile; null when the vault has no chemical structure for it. */
  structure: string | null
  /** Properties the vault gave: they are kept, and computed ones only fill the gaps. */
  knownProperties?: Partial<MolecularProperties>
  /** The vault's InChIKey: kept, and not computed again. */
  knownInchiKey?: string | null
}

export interface SynchronizeOptions {
  signal?: AbortSignal
  onProgress?: (progress: SynchronizeProgress) => void
}

export interface SynchronizeProgress {
  /** Molecules looked at so far, of `total` (null when the input's length is not known). */
  done: number
  total: number | null
  computed: number
}

export interface SynchronizeSummary {
  received: number
  /** Molecules new or changed since they were last synchronized, so computed (again). */
  computed: number
  unchanged: number
  /** Of the computed ones, those whose structure could not be parsed (flagged, still browsable). */
  unparseable: number
}

export interface SynchronizationTarget {
  pool: ChemWorkerPool
  store: StructureIndexStore
  index: StructureIndex
  rdkitVersion: string
  log: Logger
}

/** Molecules hashed and compared with the store at a time. */
const comparisonBatch = 1000
/** Molecules per worker task: big enough to amortize messages, small enough to spread work. */
const computeBatch = 32

export async function synchronizeStructures(
  target: SynchronizationTarget,
  molecules: Iterable<MoleculeStructure> | AsyncIterable<MoleculeStructure>,
  options: SynchronizeOptions = {},
): Promise<SynchronizeSummary> {
  const { signal, onProgress } = options
  const total = Array.isArray(molecules) ? molecules.length : null
  const summary: SynchronizeSummary = { received: 0, computed: 0, unchanged: 0, unparseable: 0 }
  const report = (): void =>
    onProgress?.({ done: summary.received, total, computed: summary.computed })
  const inFlight = new Set<Promise<void>>()
  let failure: unknown = null

  const store = (
    computed: readonly ComputedStructure[],
    pending: Map<number, PendingRecord>,
  ): void => {
    const records = computed.map((structure) => ({ ...structure, ...pending.get(structure.id)! }))
    target.store.save(records)
    for (const record of records) {
      target.index.put(record)
      if (record.parseError !== null) summary.unparseable++
    }
    summary.computed += records.length
    report()
  }

  const compare = async (batch: readonly MoleculeStructure[]): Promise<void> => {
    const pending = new Map<number, PendingRecord>()
    for (const molecule of batch)
      pending.set(molecule.id, pendingRecord(target.rdkitVersion, molecule))
    const stored = target.store.contentHashes([...pending.keys()])
    const changed: StructureInput[] = []
    const refused: ComputedStructure[] = []
    for (const molecule of batch) {
      if (
        stored.get(molecule.id) === pending.get(molecule.id)!.contentHash &&
        target.index.has(molecule.id)
      ) {
        summary.unchanged++
      } else if (
        molecule.structure !== null &&
        molecule.structure.length > maximumStructureLength
      ) {
        refused.push({
          id: molecule.id,
          parseError: `The structure is ${molecule.structure.length} characters long; the limit is ${maximumStructureLength}.`,
        })
      } else {
        changed.push(structureInput(molecule))
      }
    }
    summary.received += batch.length
    if (refused.length > 0) store(refused, pending)
    for (let start = 0; start < changed.length && failure === null; start += computeBatch) {
      while (inFlight.size >= target.pool.size * 2) await Promise.race(inFlight)
      const items = changed.slice(start, start + computeBatch)
      const task = compute(target, items, signal)
        .then((computed) => store(computed, pending))
        .catch((error: unknown) => {
          failure ??= error
        })
        .finally(() => inFlight.delete(task))
      inFlight.add(task)
    }
    report()
  }

  let batch: MoleculeStructure[] = []
  for await (const molecule of molecules) {
    if (signal?.aborted || failure !== null) break
    const problem = moleculeProblem(molecule)
    if (problem !== null) {
      failure = new AppError('invalid_argument', problem)
      break
    }
    batch.push(molecule)
    if (batch.length === comparisonBatch) {
      await compare(batch)
      batch = []
    }
  }
  if (batch.length > 0 && !signal?.aborted && failure === null) await compare(batch)
  await Promise.all(inFlight)
  if (signal?.aborted) throw new AppError('cancelled', 'Indexing structures was cancelled.')
  if (failure !== null) throw failure
  target.log.info('structures synchronized', { ...summary })
  return summary
}

type PendingRecord = Pick<StructureRecord, 'contentHash' | 'knownProperties'>

function pendingRecord(rdkitVersion: string, molecule: MoleculeStructure): PendingRecord {
  const knownProperties = molecule.knownProperties ?? {}
  const knownInchiKey = molecule.knownInchiKey ?? null
  return {
    contentHash: contentHash(rdkitVersion, molecule.structure, knownProperties, knownInchiKey),
    knownProperties,
  }
}

function structureInput(molecule: MoleculeStructure): StructureInput {
  const known = molecule.knownProperties ?? {}
  return {
    id: molecule.id,
    structure: molecule.structure,
    inchiKey: molecule.knownInchiKey ?? null,
    computeProperties: !molecularPropertyNames.every((name) => typeof known[name] === 'number'),
  }
}

/** Computes a batch in a worker; a molecule that kills a worker by itself is flagged. */
function compute(
  target: SynchronizationTarget,
  batch: readonly StructureInput[],
  signal: AbortSignal | undefined,
): Promise<ComputedStructure[]> {
  return isolatingWorkerDeaths(
    batch,
    (items) => target.pool.run({ kind: 'computeStructures', items: [...items] }, { signal }),
    (item, error) => {
      target.log.warn('a structure stopped the chemistry worker', { id: item.id, error })
      return { id: item.id, parseError: `RDKit failed on this structure: ${error.message}` }
    },
  )
}

function moleculeProblem(molecule: MoleculeStructure): string | null {
  if (typeof molecule?.id !== 'number' || !Number.isSafeInteger(molecule.id)) {
    return `A molecule id must be a whole number, not ${String(molecule?.id)}.`
  }
  if (molecule.structure !== null && typeof molecule.structure !== 'string') {
    return `The structure of molecule ${molecule.id} must be text or null.`
  }
  return null
}
