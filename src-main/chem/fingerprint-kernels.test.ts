import { describe, expect, it } from 'vitest'
import { instantiateKernels } from './fingerprint-kernels.ts'
import {
  fingerprintBytes,
  fingerprintPtr,
  pagesForSlots,
  scratchArea,
} from './fingerprint-layout.ts'
import { popcount } from './popcount.ts'
import { webAssembly } from './shared-memory-runtime.ts'

/** A deterministic pseudo-random generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    return state / 2 ** 32
  }
}

function fingerprints(count: number, bitsEach: number, seed: number): Uint8Array[] {
  const next = random(seed)
  return Array.from({ length: count }, () => {
    const fingerprint = new Uint8Array(fingerprintBytes)
    for (let bit = 0; bit < bitsEach; bit++) {
      const position = Math.floor(next() * fingerprintBytes * 8)
      fingerprint[position >> 3]! |= 1 << (position & 7)
    }
    return fingerprint
  })
}

function memoryWith(stored: readonly Uint8Array[]) {
  const memory = new webAssembly.Memory({
    initial: pagesForSlots(stored.length),
    maximum: 65536,
    shared: true,
  })
  const bytes = new Uint8Array(memory.buffer)
  stored.forEach((fingerprint, slot) => bytes.set(fingerprint, fingerprintPtr(slot)))
  return { memory, bytes }
}

describe('fingerprint kernels', () => {
  // Sign bits of 32- and 64-bit words are where a typed-array screen silently goes wrong.
  const edgeBits = new Uint8Array(fingerprintBytes)
  for (const bit of [31, 63, 1024, 2047]) edgeBits[bit >> 3]! |= 1 << (bit & 7)
  const stored = [...fingerprints(500, 40, 1), edgeBits, new Uint8Array(fingerprintBytes)]
  const { memory, bytes } = memoryWith(stored)
  const kernels = instantiateKernels(memory)
  const { queryPtr, outPtr } = scratchArea(3)

  it('screens: answers exactly the fingerprints holding every query bit', () => {
    const queries = [
      ...fingerprints(20, 3, 2),
      edgeBits,
      stored[17]!,
      new Uint8Array(fingerprintBytes),
    ]
    for (const query of queries) {
      bytes.set(query, queryPtr)
      const count = kernels.screen(queryPtr, fingerprintPtr(0), stored.length, outPtr)
      const found = [...new Uint32Array(memory.buffer, outPtr, count)]
      const expected = stored.flatMap((fingerprint, slot) =>
        fingerprint.every((byte, i) => (byte & query[i]!) === query[i]) ? [slot] : [],
      )
      expect(found).toEqual(expected)
    }
  })

  it('screens listed slots, answering positions in the list, in place', () => {
    const listed = [0, 3, 17, 200, 499, 500, 501, 17]
    for (const query of [...fingerprints(20, 3, 4), edgeBits, stored[17]!]) {
      bytes.set(query, queryPtr)
      new Uint32Array(memory.buffer, outPtr, listed.length).set(listed)
      const count = kernels.screenSlots(queryPtr, fingerprintPtr(0), listed.length, outPtr, outPtr)
      const found = [...new Uint32Array(memory.buffer, outPtr, count)]
      const expected = listed.flatMap((slot, position) =>
        stored[slot]!.every((byte, i) => (byte & query[i]!) === query[i]) ? [position] : [],
      )
      expect(found).toEqual(expected)
    }
  })

  it('counts shared bits of listed slots with the query, in place', () => {
    const listed = [501, 2, 40, 41, 499, 7, 500]
    for (const query of [...fingerprints(5, 45, 5), edgeBits]) {
      bytes.set(query, queryPtr)
      new Uint32Array(memory.buffer, outPtr, listed.length).set(listed)
      kernels.intersectionsOfSlots(queryPtr, fingerprintPtr(0), listed.length, outPtr, outPtr)
      const counts = [...new Uint16Array(memory.buffer, outPtr, listed.length)]
      const expected = listed.map((slot) =>
        popcount(stored[slot]!.map((byte, i) => byte & query[i]!)),
      )
      expect(counts).toEqual(expected)
    }
  })

  it('counts shared bits of every fingerprint with the query', () => {
    for (const query of [...fingerprints(5, 45, 3), edgeBits]) {
      bytes.set(query, queryPtr)
      kernels.intersections(queryPtr, fingerprintPtr(2), stored.length - 2, outPtr)
      const counts = [...new Uint16Array(memory.buffer, outPtr, stored.length - 2)]
      const expected = stored
        .slice(2)
        .map((fingerprint) => popcount(fingerprint.map((byte, i) => byte & query[i]!)))
      expect(counts).toEqual(expected)
    }
  })
})
