import { describe, expect, it } from 'vitest'
import { compareScoredSlots, TopScores } from './top-scores.ts'

describe('TopScores', () => {
  it('keeps the k best of many offers, ties going to the lower slot', () => {
    const offers = Array.from({ length: 300 }, (_, slot) => ({
      slot,
      score: ((slot * 37) % 101) / 100,
    }))
    const top = new TopScores(25)
    for (const { slot, score } of [...offers].reverse()) top.offer(score, slot)
    expect(top.sorted()).toEqual([...offers].sort(compareScoredSlots).slice(0, 25))
  })

  it('reports the score to beat once full', () => {
    const top = new TopScores(2)
    expect(top.floor).toBe(-Infinity)
    top.offer(0.5, 1)
    top.offer(0.9, 2)
    expect(top.floor).toBe(0.5)
    top.offer(0.7, 3)
    expect(top.floor).toBe(0.7)
  })

  it('refuses a capacity that is not a positive whole number', () => {
    expect(() => new TopScores(0)).toThrow('TopScores needs a positive whole capacity, not 0.')
  })
})
