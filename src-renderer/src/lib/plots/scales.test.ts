import { describe, expect, it } from 'vitest'
import { columnExtent, linearScale, logScale, placeable, scaleOf } from './scales.ts'

describe('column extents', () => {
  it('count missing values apart from those a log scale cannot place', () => {
    const values = [3, null, 0, -2, 100, Number.NaN, 0.5, Number.POSITIVE_INFINITY]
    expect(columnExtent(values, 'linear')).toEqual({
      min: -2,
      max: 100,
      count: 5,
      missing: 3,
      nonPositive: 0,
    })
    expect(columnExtent(values, 'log')).toEqual({
      min: 0.5,
      max: 100,
      count: 3,
      missing: 3,
      nonPositive: 2,
    })
    expect(columnExtent([null, -1], 'log')).toEqual({
      min: null,
      max: null,
      count: 0,
      missing: 1,
      nonPositive: 1,
    })
    expect(placeable(0, 'log')).toBe(false)
    expect(placeable(0, 'linear')).toBe(true)
    expect(placeable(null, 'linear')).toBe(false)
  })
})

describe('scales', () => {
  it('map a linear domain onto [0, 1] and back', () => {
    const scale = linearScale(200, 600)
    expect(scale.toUnit(200)).toBe(0)
    expect(scale.toUnit(500)).toBe(0.75)
    expect(scale.fromUnit(0.25)).toBe(300)
    expect(scale.ticks(0, 1, 4).map((tick) => tick.value)).toEqual([200, 300, 400, 500, 600])
    // A zoomed window's ticks: the middle half.
    expect(scale.ticks(0.25, 0.75, 4).map((tick) => tick.value)).toEqual([300, 350, 400, 450, 500])
  })

  it('map a log domain by decades', () => {
    const scale = logScale(1, 10_000)
    expect(scale.toUnit(100)).toBeCloseTo(0.5, 12)
    expect(scale.fromUnit(0.75)).toBeCloseTo(1000, 9)
    expect(scale.ticks(0, 1, 6).map((tick) => tick.value)).toEqual([1, 10, 100, 1000, 10_000])
    expect(() => logScale(0, 10)).toThrow(/positive domain, not 0 to 10/)
  })

  it('widen a single value and pad a column so no point sits on the frame', () => {
    expect([linearScale(5, 5).min, linearScale(5, 5).max]).toEqual([4.5, 5.5])
    expect([linearScale(0, 0).min, linearScale(0, 0).max]).toEqual([-1, 1])
    const padded = scaleOf(columnExtent([10, 20, 30], 'linear'), 'linear', 0.05)!
    expect([padded.min, padded.max]).toEqual([9, 31])
    const logPadded = scaleOf(columnExtent([1, 100], 'log'), 'log', 0.05)!
    expect(logPadded.min).toBeCloseTo(10 ** -0.1, 12)
    expect(logPadded.max).toBeCloseTo(10 ** 2.1, 9)
    expect(scaleOf(columnExtent([null], 'linear'), 'linear')).toBeNull()
  })
})
