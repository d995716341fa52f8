import { describe, expect, it } from 'vitest'
import { IdSlots } from './id-slots.ts'

/** A deterministic pseudo-random generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    return state / 2 ** 32
  }
}

describe('id slots', () => {
  it('answer as a map would, for counters, huge, negative and fractional ids', () => {
    const next = random(7)
    const idKinds = [
      () => Math.floor(next() * 5000),
      () => 2 ** 40 + Math.floor(next() * 100),
      () => -Math.floor(next() * 100),
      () => Math.floor(next() * 100) + 0.5,
      () => (1 << 20) + Math.floor(next() * 3000),
    ]
    const slots = new IdSlots()
    const expected = new Map<number, number>()
    for (let step = 0; step < 20_000; step++) {
      const id = idKinds[Math.floor(next() * idKinds.length)]!()
      if (next() < 0.3) {
        expect(slots.delete(id)).toBe(expected.delete(id))
      } else {
        slots.set(id, step)
        expected.set(id, step)
      }
      expect(slots.size).toBe(expected.size)
    }
    for (const id of [...expected.keys(), -1, 0.25, 2 ** 41, 123_456_789]) {
      expect(slots.get(id)).toBe(expected.get(id))
      expect(slots.has(id)).toBe(expected.has(id))
    }
  })

  it('moves an id from the map to the array once the index is large enough', () => {
    const slots = new IdSlots()
    const far = (1 << 20) + 10
    slots.set(far, 0)
    for (let id = 0; id < 300_000; id++) slots.set(id, id + 1)
    slots.set(far, 7)
    expect(slots.size).toBe(300_001)
    expect(slots.get(far)).toBe(7)
    expect(slots.delete(far)).toBe(true)
    expect(slots.get(far)).toBeUndefined()
    expect(slots.size).toBe(300_000)
  })
})
