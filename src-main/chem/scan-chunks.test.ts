import { describe, expect, it } from 'vitest'
import { maximumScanChunk } from './fingerprint-layout.ts'
import { chunkAt, claimChunks, scanRange } from './scan-chunks.ts'

describe('scan chunks', () => {
  it('start small and double up to the largest size, covering every slot once', () => {
    const range = scanRange('index', 1000, { first: 16, largest: 128 }, null)
    expect(range.chunkStarts).toEqual([0, 16, 48, 112, 240, 368, 496, 624, 752, 880])
    const chunks = range.chunkStarts.map((_, chunk) => chunkAt(range, chunk))
    expect(chunks.at(-1)).toEqual({ chunk: 9, start: 880, count: 120 })
    expect(chunks.reduce((sum, chunk) => sum + chunk.count, 0)).toBe(1000)
  })

  it('cover the candidate list alone when a search is narrowed, by position in it', () => {
    const candidates = Int32Array.from([3, 9, 10, 400, 401, 999, 5000])
    const range = scanRange('index', 100_000, { first: 2, largest: 4 }, candidates)
    expect(range.chunkStarts).toEqual([0, 2, 6])
    expect(range.chunkStarts.map((_, chunk) => chunkAt(range, chunk))).toEqual([
      { chunk: 0, start: 0, count: 2 },
      { chunk: 1, start: 2, count: 4 },
      { chunk: 2, start: 6, count: 1 },
    ])
    expect(
      scanRange('index', 100_000, { first: 2, largest: 4 }, new Int32Array(0)).chunkStarts,
    ).toEqual([])
  })

  it('are handed out once each, whoever asks', () => {
    const range = scanRange('index', 100, { first: 10, largest: 10 }, null)
    const first = claimChunks(range)
    const second = claimChunks(range)
    const claimed = [first.next(), second.next(), first.next(), second.next()].map(
      (step) => !step.done && step.value.chunk,
    )
    expect(claimed).toEqual([0, 1, 2, 3])
    expect([...first, ...second].map((chunk) => chunk.chunk)).toEqual([4, 5, 6, 7, 8, 9])
  })

  it('refuse a schedule whose chunks would overflow a worker scratch area', () => {
    expect(() => scanRange('index', 10, { first: 1, largest: maximumScanChunk + 1 }, null)).toThrow(
      `A scan chunk holds at most ${maximumScanChunk} slots, not ${maximumScanChunk + 1}.`,
    )
    expect(() => scanRange('index', 10, { first: 8, largest: 4 }, null)).toThrow(RangeError)
  })
})
