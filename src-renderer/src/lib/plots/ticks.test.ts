import { describe, expect, it } from 'vitest'
import { formatNumber, formatValue, linearTicks, logTicks, niceStep } from './ticks.ts'

const labels = (ticks: { label: string }[]) => ticks.map((tick) => tick.label)
const values = (ticks: { value: number }[]) => ticks.map((tick) => tick.value)

describe('linear ticks', () => {
  it('step by 1, 2 or 5 times a power of ten', () => {
    expect(niceStep(0, 10, 5)).toBe(2)
    expect(niceStep(0, 1, 10)).toBe(0.1)
    expect(niceStep(120, 880, 6)).toBe(100)
    expect(niceStep(0, 0.0037, 4)).toBe(0.001)
    expect(niceStep(3, 3, 5)).toBe(0)
  })

  it('fall inside the domain, evenly, without float noise in values or labels', () => {
    const ticks = linearTicks(0.05, 0.72, 6)
    expect(values(ticks)).toEqual([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7])
    expect(labels(ticks)).toEqual(['0.1', '0.2', '0.3', '0.4', '0.5', '0.6', '0.7'])
    expect(labels(linearTicks(-2.6, 7.4, 5))).toEqual(['−2', '0', '2', '4', '6'])
    expect(labels(linearTicks(118.3, 913.2, 6))).toEqual([
      '200',
      '300',
      '400',
      '500',
      '600',
      '700',
      '800',
      '900',
    ])
  })

  it('group thousands and write very large or small numbers with a power of ten', () => {
    expect(labels(linearTicks(0, 25_000, 5))).toEqual([
      '0',
      '5,000',
      '10,000',
      '15,000',
      '20,000',
      '25,000',
    ])
    expect(labels(linearTicks(0, 3e6, 3))).toEqual(['0', '10⁶', '2×10⁶', '3×10⁶'])
    expect(labels(linearTicks(0.00002, 0.00009, 4))).toEqual([
      '2×10⁻⁵',
      '4×10⁻⁵',
      '6×10⁻⁵',
      '8×10⁻⁵',
    ])
  })

  it('take the domain in either order and give one tick for a single value', () => {
    expect(values(linearTicks(10, 0, 5))).toEqual([0, 2, 4, 6, 8, 10])
    expect(labels(linearTicks(4, 4))).toEqual(['4'])
    expect(linearTicks(Number.NaN, 3)).toEqual([])
  })
})

describe('log ticks', () => {
  it('mark powers of ten over many decades, written plainly while short', () => {
    expect(labels(logTicks(0.5, 20_000, 6))).toEqual(['1', '10', '100', '1,000', '10,000'])
    expect(values(logTicks(0.5, 20_000, 6))).toEqual([1, 10, 100, 1000, 10_000])
  })

  it('switch to powers of ten when the numbers get long, skipping powers when crowded', () => {
    expect(labels(logTicks(1e-9, 1e-3, 8))).toEqual([
      '10⁻⁹',
      '10⁻⁸',
      '10⁻⁷',
      '10⁻⁶',
      '10⁻⁵',
      '10⁻⁴',
      '10⁻³',
    ])
    const crowded = logTicks(1e-12, 1e12, 6)
    expect(labels(crowded)).toEqual(['10⁻¹²', '10⁻⁷', '10⁻²', '10³', '10⁸'])
  })

  it('add 2 and 5 within each decade over a decade or two', () => {
    expect(values(logTicks(1, 100, 8))).toEqual([1, 2, 5, 10, 20, 50, 100])
    expect(labels(logTicks(0.01, 1, 8))).toEqual(['0.01', '0.02', '0.05', '0.1', '0.2', '0.5', '1'])
  })

  it('read like a linear axis within less than a decade, and refuse what is not positive', () => {
    expect(values(logTicks(30, 80, 6))).toEqual([40, 60, 80])
    expect(logTicks(0, 10)).toEqual([])
    expect(logTicks(-5, 10)).toEqual([])
  })
})

describe('numbers as written', () => {
  it('label at the precision of the step', () => {
    expect(formatNumber(2.5, 0.5)).toBe('2.5')
    expect(formatNumber(3, 0.5)).toBe('3.0')
    expect(formatNumber(-0.25, 0.05)).toBe('−0.25')
    expect(formatNumber(2_500_000, 500_000)).toBe('2.5×10⁶')
    expect(formatNumber(-1e7, 1e6)).toBe('−10⁷')
  })

  it('give values four significant digits for tooltips and tables', () => {
    expect(formatValue(342.157)).toBe('342.2')
    expect(formatValue(0.012345)).toBe('0.01235')
    expect(formatValue(30000)).toBe('30,000')
    expect(formatValue(-2.5)).toBe('−2.5')
    expect(formatValue(1.5e-7)).toBe('1.5×10⁻⁷')
    expect(formatValue(0)).toBe('0')
  })
})
