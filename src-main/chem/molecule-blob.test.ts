import { describe, expect, it } from 'vitest'
import { graphOffsetOf, packMoleculeBlob, pickleOf } from './molecule-blob.ts'

const pickle = Uint8Array.from([0xef, 0xbe, 0xad, 0xde, 7, 8, 9])
const graph = Uint8Array.from([1, 0, 0, 6, 0, 0])

describe('molecule blobs', () => {
  it('keep the graph and the pickle apart', () => {
    const arena = new Uint8Array(40)
    const blob = packMoleculeBlob(graph, pickle)
    arena.set(blob, 10)
    expect(graphOffsetOf(arena, 10)).toBe(13)
    expect([...arena.subarray(13, 13 + graph.length)]).toEqual([...graph])
    expect([...pickleOf(arena, 10, blob.length)]).toEqual([...pickle])
  })

  it('say so when the molecule has no graph', () => {
    const blob = packMoleculeBlob(null, pickle)
    expect(graphOffsetOf(blob, 0)).toBe(-1)
    expect([...pickleOf(blob, 0, blob.length)]).toEqual([...pickle])
  })

  it('read a bare pickle, written before graphs existed, as a pickle with no graph', () => {
    expect(graphOffsetOf(pickle, 0)).toBe(-1)
    expect([...pickleOf(pickle, 0, pickle.length)]).toEqual([...pickle])
  })
})
