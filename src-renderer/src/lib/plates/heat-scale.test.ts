import { describe, expect, it } from 'vitest'
import { heatScale, niceTicks, redBlue, scaleFraction, viridis } from './heat-scale.ts'

describe('heat map scales', () => {
  it('spans a sequential scale over the values, ends in viridis’ end colours', () => {
    const scale = heatScale([10, 20, Number.NaN, 30], 'sequential')!
    expect(scale).toMatchObject({ kind: 'sequential', min: 10, max: 30, centre: null })
    expect(scale.colour(10)).toBe(viridis[0])
    expect(scale.colour(30)).toBe(viridis[8])
    // The middle of nine stops is the fifth; beyond the ends, the end colours.
    expect(scale.colour(20)).toBe(viridis[4])
    expect(scale.colour(-1000)).toBe(viridis[0])
    expect(scale.colour(1000)).toBe(viridis[8])
  })

  it('centres a diverging scale on the given value, symmetric about it', () => {
    // Negative controls at 2: the widest side (98 above) sets both halves.
    const scale = heatScale([0, 50, 100], 'diverging', 2)!
    expect(scale).toMatchObject({ min: -96, max: 100, centre: 2 })
    expect(scale.colour(2)).toBe(redBlue[5])
    expect(scale.colour(100)).toBe(redBlue[10])
    expect(scale.colour(-96)).toBe(redBlue[0])
    expect(scale.ticks).toContain(2)
    // Without a centre, the middle of the values.
    expect(heatScale([0, 10], 'diverging', null)!.centre).toBe(5)
    expect(heatScale([0, 10], 'diverging', Number.NaN)!.centre).toBe(5)
  })

  it('has no scale without a finite value, and widens a single value', () => {
    expect(heatScale([], 'sequential')).toBeNull()
    expect(heatScale([Number.NaN, Number.POSITIVE_INFINITY], 'diverging')).toBeNull()
    expect(heatScale([7, 7], 'sequential')).toMatchObject({ min: 6.5, max: 7.5 })
    expect(heatScale([7], 'diverging', 7)).toMatchObject({ min: 6, max: 8 })
  })

  it('gives round ticks inside the domain', () => {
    expect(niceTicks(0, 100, 5)).toEqual([0, 20, 40, 60, 80, 100])
    expect(niceTicks(-3.7, 12.2, 4)).toEqual([0, 5, 10])
    expect(niceTicks(0.1, 0.35, 5)).toEqual([0.1, 0.15, 0.2, 0.25, 0.3, 0.35])
    expect(niceTicks(5, 5, 5)).toEqual([5])
    expect(scaleFraction({ min: 0, max: 10 }, 15)).toBe(1)
  })
})
