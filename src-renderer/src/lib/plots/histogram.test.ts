import { describe, expect, it } from 'vitest'
import {
  countInRange,
  equalEdges,
  histogram,
  maxBins,
  percentile,
  ruleBinCount,
} from './histogram.ts'

describe('histograms', () => {
  it('count missing values and, on a log axis, those at or below zero', () => {
    const result = histogram([1, 10, 100, null, 0, -3, Number.NaN, 1000], {
      scale: 'log',
      binCount: 3,
    })
    expect(result.missing).toBe(2)
    expect(result.nonPositive).toBe(2)
    expect(result.binned).toBe(4)
    expect(result.edges).toEqual([1, 10, 100, 1000])
    expect(result.counts).toEqual([1, 1, 2])
    expect(result.counts.reduce((sum, count) => sum + count, 0)).toBe(result.binned)
  })

  it('put a value on an edge in the bin it opens, and the maximum in the last bin', () => {
    const result = histogram([0, 1, 2, 3, 4], { binCount: 4 })
    expect(result.edges).toEqual([0, 1, 2, 3, 4])
    expect(result.counts).toEqual([1, 1, 1, 2])
  })

  it('fall back to Sturges where half the values are equal, and say so', () => {
    const values = [...Array.from({ length: 60 }, () => 5), 1, 2, 3, 8, 9, 20]
    expect(ruleBinCount(Float64Array.from(values).sort(), 'freedman-diaconis')).toBe(1)
    const result = histogram(values)
    expect(result.fellBack).toBe(true)
    expect(result.rule).toBe('sturges')
    expect(result.counts.length).toBe(Math.ceil(Math.log2(66) + 1))
  })

  it('cap the bins at a readable number and say how many the rule wanted', () => {
    // A long tail on a linear axis: Freedman-Diaconis asks for thousands of bins.
    const values = Array.from({ length: 10_000 }, (_, index) => (index === 0 ? 1e6 : index % 100))
    const result = histogram(values)
    expect(result.capped).toBe(true)
    expect(result.wanted).toBeGreaterThan(maxBins)
    expect(result.counts.length).toBe(maxBins)
  })

  it('give one bin a unit wide around a single value, and none for no values', () => {
    const single = histogram([7, 7, 7])
    expect(single.edges).toEqual([6.5, 7.5])
    expect(single.counts).toEqual([3])
    expect(histogram([null, null]).counts).toEqual([])
    expect(equalEdges(0, 1, 4)).toEqual([0, 0.25, 0.5, 0.75, 1])
  })

  it('refuse a number of bins that is not a whole number from 1', () => {
    expect(() => histogram([1, 2], { binCount: 0 })).toThrow(
      'A histogram needs a whole number of bins from 1, not 0.',
    )
    expect(() => histogram([1, 2], { binCount: 2.5 })).toThrow(/not 2.5/)
  })

  it('interpolate percentiles between ranks and count a brushed range', () => {
    expect(percentile([1, 2, 3, 4], 0.25)).toBe(1.75)
    expect(percentile([1, 2, 3, 4], 1)).toBe(4)
    expect(percentile([], 0.5)).toBeNaN()
    expect(countInRange([1, 2, null, 3, 4], 2, 3)).toBe(2)
  })
})
