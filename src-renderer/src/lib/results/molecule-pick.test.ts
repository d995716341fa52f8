import { describe, expect, it } from 'vitest'
import {
  decodeIds,
  encodeIds,
  hashOf,
  inlineLimit,
  maxPicked,
  PickMemory,
  type PickStorage,
} from './molecule-pick.ts'

/** A page's storage as a Map; `full` refuses every write, as a storage over its quota does. */
function storage(full = false): PickStorage & { items: Map<string, string> } {
  const items = new Map<string, string>()
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => {
      if (full) throw new Error('QuotaExceededError')
      items.set(key, value)
    },
    removeItem: (key) => void items.delete(key),
  }
}

/** Ids spread over a vault of 250,000 molecules, from a fixed seed. */
function spread(count: number, seed: number): number[] {
  const ids = new Set<number>()
  let state = seed
  while (ids.size < count) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    ids.add(state % 250_000)
  }
  return [...ids]
}

describe('the compact form of picked molecules', () => {
  it('writes distances and runs, ascending, and reads them back', () => {
    expect(encodeIds([22, 5, 6, 7, 8, 20, 6])).toBe('5-3.c.2')
    expect(decodeIds('5-3.c.2')).toEqual([5, 6, 7, 8, 20, 22])
    expect(encodeIds([0, 1, 36])).toBe('0-1.z')
    expect(decodeIds('0-1.z')).toEqual([0, 1, 36])
    expect(encodeIds([])).toBe('')
    expect(decodeIds('')).toEqual([])
    const many = spread(5000, 7)
    expect(decodeIds(encodeIds(many))).toEqual(many.toSorted((a, b) => a - b))
  })

  it('reads nothing that is not one', () => {
    for (const text of ['5..3', '5.0', 'A', '5-', '-3', '5-3-1', '5,6', ' 5', 'zzzzzzzzzzzz']) {
      expect(decodeIds(text), text).toBeNull()
    }
    // More molecules than a table can be narrowed to.
    expect(decodeIds(`1-${maxPicked.toString(36)}`)).toBeNull()
    expect(decodeIds(`1-${(maxPicked - 1).toString(36)}`)).toHaveLength(maxPicked)
  })
})

describe('picks too large for an address', () => {
  it('keeps a small pick in the address itself', () => {
    const memory = new PickMemory(() => null)
    const pick = memory.pick([9, 3, 4])
    expect(pick).toEqual({ ids: [3, 4, 9], token: '3-1.5' })
    expect(memory.read('3-1.5')).toEqual(pick)
    expect(memory.read('3..1')).toBeNull()
  })

  it('keeps a large one in storage, found again after a reload', () => {
    const stored = storage()
    const ids = spread(3000, 11)
    expect(encodeIds(ids).length).toBeGreaterThan(inlineLimit)
    const pick = new PickMemory(() => stored).pick(ids)
    expect(pick.token).toMatch(/^~[0-9a-z]{14}$/)
    expect(pick.token.length).toBeLessThan(20)
    // A new page (a reload) with the same storage.
    const read = new PickMemory(() => stored).read(pick.token)
    expect(read).toEqual({ ids: ids.toSorted((a, b) => a - b), token: pick.token })
    // A page that never kept it says so rather than narrowing to nothing.
    expect(new PickMemory(() => storage()).read(pick.token)).toEqual({
      ids: null,
      token: pick.token,
    })
    expect(new PickMemory(() => stored).read('~not a key')).toBeNull()
  })

  it('keeps only the last few in storage, and in memory when storage refuses', () => {
    const stored = storage()
    const memory = new PickMemory(() => stored)
    const tokens = Array.from({ length: 10 }, (_, index) => memory.pick(spread(3000, index)).token)
    const reloaded = new PickMemory(() => stored)
    expect(tokens.map((token) => reloaded.read(token)?.ids !== null)).toEqual([
      false,
      false,
      ...Array<boolean>(8).fill(true),
    ])
    expect([...stored.items.keys()].filter((key) => key.includes('/'))).toHaveLength(8)

    const refusing = new PickMemory(() => storage(true))
    const pick = refusing.pick(spread(3000, 99))
    expect(refusing.read(pick.token)?.ids).toEqual(pick.ids)
    const throwing = new PickMemory(() => {
      throw new Error('SecurityError')
    })
    expect(throwing.read(throwing.pick(spread(3000, 98)).token)?.ids).toHaveLength(3000)
  })

  it('refuses more molecules than a table can be narrowed to', () => {
    const memory = new PickMemory(() => null)
    expect(() => memory.pick(Array.from({ length: maxPicked + 1 }, (_, id) => id * 2))).toThrow(
      /at most 250,000 molecules/,
    )
  })

  it('names different picks differently', () => {
    const keys = new Set(Array.from({ length: 2000 }, (_, index) => hashOf(`1-${index}`)))
    expect(keys.size).toBe(2000)
  })
})
