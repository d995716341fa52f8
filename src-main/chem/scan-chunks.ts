/**
 * How the workers of one search share its slots: the range (every slot, or the candidate slots the
 * search is narrowed to) is cut into chunks, and each worker takes the next unclaimed chunk from a
 * shared counter until none is left. A busy or slow worker thus takes fewer chunks, and progress
 * arrives chunk by chunk. Chunks start small and double up to a largest size, so that the first
 * hits in index order are known early.
 */
import { maximumScanChunk } from './fingerprint-layout.ts'
import type { ScanRange } from './worker-protocol.ts'

export interface ChunkSchedule {
  first: number
  largest: number
}

/** A chunk of a scan: `count` slots from `start` on, or positions in the candidate list. */
export interface ClaimedChunk {
  chunk: number
  start: number
  count: number
}

/**
 * A scan of slots 0..slotCount-1, or of `candidates` alone (ascending slots below slotCount, in
 * shared memory so that every worker reads the one list).
 */
export function scanRange(
  indexId: string,
  slotCount: number,
  schedule: ChunkSchedule,
  candidates: Int32Array | null,
): ScanRange {
  const { first, largest } = schedule
  if (!Number.isInteger(first) || !Number.isInteger(largest) || first < 1 || first > largest) {
    throw new RangeError(`A chunk schedule needs whole sizes with 1 <= first <= largest.`)
  }
  if (largest > maximumScanChunk) {
    // A worker writes a chunk's results into its scratch area: a bigger chunk would overflow it.
    throw new RangeError(`A scan chunk holds at most ${maximumScanChunk} slots, not ${largest}.`)
  }
  const length = candidates?.length ?? slotCount
  const chunkStarts: number[] = []
  for (
    let start = 0, size = first;
    start < length;
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
    candidates,
  }
}

export function chunkCount(range: ScanRange): number {
  return range.chunkStarts.length
}

/** How many slots the scan covers. */
export function scanLength(range: ScanRange): number {
  return range.candidates?.length ?? range.slotCount
}

export function chunkAt(range: ScanRange, chunk: number): ClaimedChunk {
  const start = range.chunkStarts[chunk]!
  const end = range.chunkStarts[chunk + 1] ?? scanLength(range)
  return { chunk, start, count: end - start }
}

export function* claimChunks(range: ScanRange): Generator<ClaimedChunk> {
  for (;;) {
    const chunk = Atomics.add(range.chunkCursor, 0, 1)
    if (chunk >= range.chunkStarts.length) return
    yield chunkAt(range, chunk)
  }
}
