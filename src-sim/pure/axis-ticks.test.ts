import { describe, expect, it } from 'vitest'
import { formatTick, linearAxis, logAxis } from './axis-ticks.ts'

describe('linearAxis', () => {
  it('chooses round steps that cover the data', () => {
    expect(linearAxis(3, 97)).toEqual({ min: 0, max: 100, ticks: [0, 20, 40, 60, 80, 100] })
    expect(linearAxis(-0.13, 0.42).ticks).toEqual([-0.2, 0, 0.2, 0.4, 0.6])
    expect(linearAxis(0.01, 0.052).ticks).toEqual([0.01, 0.02, 0.03, 0.04, 0.05, 0.06])
  })

  it('widens a flat range and accepts reversed limits', () => {
    const flat = linearAxis(50, 50)
    expect(flat.min).toBeLessThan(50)
    expect(flat.max).toBeGreaterThan(50)
    expect(linearAxis(10, 0)).toEqual(linearAxis(0, 10))
  })

  it('refuses infinite limits', () => {
    expect(() => linearAxis(0, Infinity)).toThrow('An axis needs finite limits')
  })
})

describe('logAxis', () => {
  it('spans whole decades', () => {
    expect(logAxis(3e-9, 2e-6).ticks).toEqual([1e-9, 1e-8, 1e-7, 1e-6, 1e-5])
    expect(logAxis(1e-8, 1e-6).ticks).toEqual([1e-8, 1e-7, 1e-6])
  })

  it('spans at least one decade', () => {
    expect(logAxis(1e-7, 1e-7).ticks).toEqual([1e-8, 1e-7, 1e-6])
  })

  it('refuses non-positive limits', () => {
    expect(() => logAxis(0, 1)).toThrow('A log axis needs positive limits')
  })
})

describe('formatTick', () => {
  it('writes ordinary values plainly and extreme ones with an exponent', () => {
    expect([0, 20, -0.5, 1e-7, 3e-10, 25000, 1.5e6].map(formatTick)).toEqual([
      '0',
      '20',
      '-0.5',
      '1e-7',
      '3e-10',
      '25000',
      '1.5e6',
    ])
  })
})
