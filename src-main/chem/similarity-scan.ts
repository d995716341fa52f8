/**
 * A worker's part of a similarity search: intersection counts of the query's Morgan fingerprint
 * with each claimed chunk (WebAssembly popcounts), then Tanimoto = c / (a + b - c) with the stored
 * popcounts b. Each chunk reports what is above the threshold; for a top-k search, only its own
 * k best among those that beat the k best this worker has seen so far.
 */
import type { AttachedIndex } from './attached-index.ts'
import { fingerprintPtr } from './fingerprint-layout.ts'
import { slotState } from './index-buffers.ts'
import { popcount } from './popcount.ts'
import { claimChunks } from './scan-chunks.ts'
import { compareScoredSlots, TopScores, type ScoredSlot } from './top-scores.ts'
import type { ChemTask } from './worker-protocol.ts'
import type { TaskContext } from './task-context.ts'

export function scanSimilarities(
  index: AttachedIndex,
  queryFingerprint: Uint8Array,
  task: ChemTask<'similarityScan'>,
  context: TaskContext<'similarityScan'>,
): { chunks: number } {
  const kernels = index.kernels('morgan')
  const { queryPtr, outPtr } = index.loadQuery('morgan', queryFingerprint)
  const intersections = index.outputView('morgan', Uint16Array, task.largestChunk)
  const queryBits = popcount(queryFingerprint)
  const listed = task.candidates
  const popcounts = index.buffers.morganPopcounts
  // A plain read is enough here: a slot published or vacated during the scan may go either way.
  const states = index.buffers.states
  const bestSoFar = task.top === null ? null : new TopScores(task.top)
  let chunks = 0
  for (const { chunk, start, count } of claimChunks(task)) {
    if (listed === null) {
      kernels.intersections(queryPtr, fingerprintPtr(start), count, outPtr)
    } else {
      const slotsPtr = index.loadSlots('morgan', listed, start, count)
      kernels.intersectionsOfSlots(queryPtr, fingerprintPtr(0), count, outPtr, slotsPtr)
    }
    const threshold = bestSoFar ? Math.max(task.threshold, bestSoFar.floor) : task.threshold
    const chunkBest = task.top === null ? null : new TopScores(task.top)
    const above: ScoredSlot[] = []
    for (let i = 0; i < count; i++) {
      const slot = listed === null ? start + i : listed[start + i]!
      if (states[slot] !== slotState.parsed) continue
      const shared = intersections[i]!
      const union = queryBits + popcounts[slot]! - shared
      const score = union === 0 ? 0 : shared / union
      if (score < threshold) continue
      if (chunkBest) chunkBest.offer(score, slot)
      else above.push({ slot, score })
    }
    const hits = chunkBest ? chunkBest.sorted() : above.sort(compareScoredSlots)
    if (bestSoFar) for (const hit of hits) bestSoFar.offer(hit.score, hit.slot)
    chunks++
    context.progress({ chunk, hits })
    context.throwIfCancelled()
  }
  return { chunks }
}
