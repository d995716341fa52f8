/**
 * The second pass of indexing: computes the InChIKeys and properties the index still waits for
 * (structure-details.ts), in batches spread over the workers, storing each batch in one
 * transaction before the index takes it in. It can stop between batches (to let new molecules be
 * made searchable first) and pick up where it stopped, also after a restart, since what is still
 * pending is stored.
 */
import { AppError } from '../shared/app-error.ts'
import type { Logger } from '../shared/logger.ts'
import { unknownDetails } from './structure-details.ts'
import type { ComputedDetails, DetailsInput } from './structure-input.ts'
import type { StructureIndex } from './structure-index.ts'
import type { StructureIndexStore } from './structure-index-store.ts'
import { isolatingWorkerDeaths } from './worker-death-isolation.ts'
import type { ChemWorkerPool } from './worker-pool.ts'

export interface DetailsTarget {
  pool: ChemWorkerPool
  store: StructureIndexStore
  index: StructureIndex
  log: Logger
}

export interface CompleteDetailsOptions {
  signal?: AbortSignal
  onProgress?: (progress: DetailsProgress) => void
  /** Asked between batches: true stops the pass early (what is left stays pending). */
  shouldStop?: () => boolean
}

export interface DetailsProgress {
  done: number
  /** Molecules that waited for details when the pass began. */
  total: number
}

export interface DetailsSummary {
  /** Molecules whose details were computed and stored. */
  completed: number
  /** Of those, molecules RDKit could not compute them for (stored as unknown, not retried). */
  failed: number
  /** Molecules still waiting (the pass was stopped early). */
  remaining: number
}

/**
 * Molecules per worker task: each costs about 2 ms, so a search waits at most a few tens of
 * milliseconds behind a batch.
 */
const detailsBatch = 16

export async function completeStructureDetails(
  target: DetailsTarget,
  options: CompleteDetailsOptions = {},
): Promise<DetailsSummary> {
  const { index } = target
  const { signal, onProgress, shouldStop } = options
  const total = index.pendingDetailsCount
  const summary = { completed: 0, failed: 0 }
  const inFlight = new Set<Promise<void>>()
  let failure: unknown = null

  const apply = (computed: readonly ComputedDetails[]): void => {
    // A molecule changed or removed meanwhile has another slot (or none): its answer is stale.
    const current = computed.filter(
      (details) =>
        index.slotOf(details.id) === details.slot &&
        (index.pendingDetailsAt(details.slot) & details.computed) !== 0,
    )
    target.store.saveDetails(current)
    for (const details of current) {
      index.completeDetails(details.slot, details.computed, details.properties)
      if (details.problem !== undefined) {
        summary.failed++
        target.log.warn('molecule details could not be computed', {
          id: details.id,
          problem: details.problem,
        })
      }
    }
    summary.completed += current.length
    onProgress?.({ done: summary.completed, total })
  }

  let nextSlot = 0
  while (!signal?.aborted && failure === null && !shouldStop?.()) {
    const slots = index.slotsPendingDetails(nextSlot, detailsBatch)
    if (slots.length === 0) break
    nextSlot = slots[slots.length - 1]! + 1
    const items: DetailsInput[] = slots.map((slot) => ({
      id: index.idAt(slot)!,
      slot,
      wanted: index.pendingDetailsAt(slot),
    }))
    const task = computeBatch(target, items, signal)
      .then(apply)
      .catch((error: unknown) => {
        failure ??= error
      })
      .finally(() => inFlight.delete(task))
    inFlight.add(task)
    while (inFlight.size >= target.pool.size * 2) await Promise.race(inFlight)
  }
  await Promise.all(inFlight)
  if (failure !== null) throw failure
  if (signal?.aborted) throw new AppError('cancelled', 'Computing molecule details was cancelled.')
  return { ...summary, remaining: index.pendingDetailsCount }
}

/** Computes a batch in a worker; a molecule that kills a worker by itself gets unknown details. */
function computeBatch(
  target: DetailsTarget,
  batch: readonly DetailsInput[],
  signal: AbortSignal | undefined,
): Promise<ComputedDetails[]> {
  return isolatingWorkerDeaths(
    batch,
    (items) =>
      target.pool.run(
        { kind: 'computeDetails', indexId: target.index.id, items: [...items] },
        { signal },
      ),
    (item, error) => ({
      ...unknownDetails(item),
      problem: `RDKit failed on this molecule: ${error.message}`,
    }),
  )
}
