/**
 * How the workers of one search share its slots: the range is cut into chunks, and each worker
 * takes the next unclaimed chunk from a shared counter until none is left. A busy or slow worker
 * thus takes fewer chunks, and progress arrives chunk by chunk. Chunks start small and double up
 * to a largest size, so that the first hits in index order are known early.
 */
import { maximumScanChunk } from './fingerprint-layout.ts'
import type { ScanRange } from './worker-protocol.ts'

export interface ChunkSchedule {
  first: number
  largest: number
}

export interface ClaimedChunk {
  chunk: number
  start: number
  count: number
}

export function scanRange(
  indexId: string,
  slotCount: number,
  schedule: ChunkSchedule,
  candidateMask: Uint8Array | null,
): ScanRange {
  const { first, largest } = schedule
  if (!Number.isInteger(first) || !Number.isInteger(largest) || first < 1 || first > largest) {
    throw new RangeError(`A chunk schedule needs whole sizes with 1 <= first <= largest.`)
  }
  if (largest > maximumScanChunk) {
    // A worker writes a chunk's results into its scratch area: a bigger chunk would overflow it.
    throw new RangeError(`A scan chunk holds at most ${maximumScanChunk} slots, not ${largest}.`)
  }
  const chunkStarts: number[] = []
  for (
    let start = 0, size = first;
    start < slotCount;
    start += size, size = Math.min(largest, size * 2)
  ) {
    chunkStarts.push(start)
  }
  return {
    indexId,
    slotCount,
    chunkStarts,
    largestChunk: largest,
    chunkCursor: new Int32Array(new SharedArrayBuffer(4)),
    candidateMask,
  }
}

export function chunkCount(range: ScanRange): number {
  return range.chunkStarts.length
}

export function chunkAt(range: ScanRange, chunk: number): ClaimedChunk {
  const start = range.chunkStarts[chunk]!
  const end = range.chunkStarts[chunk + 1] ?? range.slotCount
  return { chunk, start, count: end - start }
}

export function* claimChunks(range: ScanRange): Generator<ClaimedChunk> {
  for (;;) {
    const chunk = Atomics.add(range.chunkCursor, 0, 1)
    if (chunk >= range.chunkStarts.length) return
    yield chunkAt(range, chunk)
  }
}
