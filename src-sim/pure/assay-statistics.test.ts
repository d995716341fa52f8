import { describe, expect, it } from 'vitest'
import { formatVaultNumber, summarize, zPrime } from './assay-statistics.ts'

describe('summarize', () => {
  it('gives count, mean and sample deviation, ignoring non-finite values', () => {
    expect(summarize([2, 4, 4, 4, 5, 5, 7, 9, NaN])).toEqual({
      count: 8,
      mean: 5,
      deviation: Math.sqrt(32 / 7),
    })
    expect(summarize([3])).toEqual({ count: 1, mean: 3, deviation: 0 })
    expect(summarize([])).toBeUndefined()
  })
})

describe('zPrime', () => {
  it('is 1 - 3(σ+ + σ-)/|μ+ - μ-|', () => {
    const positive = { count: 8, mean: 100, deviation: 5 }
    const negative = { count: 8, mean: 10, deviation: 4 }
    expect(zPrime(positive, negative)).toBeCloseTo(1 - 27 / 90, 12)
    expect(zPrime(negative, positive)).toBeCloseTo(0.7, 12)
    expect(zPrime(positive, { ...negative, mean: 100 })).toBeUndefined()
  })
})

describe('formatVaultNumber', () => {
  it('writes three significant digits with a signed two-digit exponent', () => {
    expect(formatVaultNumber(0.000967)).toBe('967E-06')
    expect(formatVaultNumber(12.5)).toBe('125E-01')
    expect(formatVaultNumber(4500)).toBe('450E+01')
    expect(formatVaultNumber(-0.5)).toBe('-500E-03')
    expect(formatVaultNumber(999.6)).toBe('100E+01')
    expect(formatVaultNumber(0)).toBe('0E+00')
  })

  it('round-trips through Number()', () => {
    for (const value of [1.23e-9, 0.0456, 7.89, 123456]) {
      expect(Number(formatVaultNumber(value)) / value).toBeCloseTo(1, 2)
    }
  })

  it('refuses non-finite values', () => {
    expect(() => formatVaultNumber(Infinity)).toThrow('cannot format Infinity as a statistic')
  })
})
