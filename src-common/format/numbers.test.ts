import { describe, expect, it } from 'vitest'
import {
  formatAmount,
  formatBytes,
  formatCount,
  formatMeasure,
  formatSignificant,
} from './numbers.ts'

describe('formatMeasure', () => {
  it('shows at most the given decimals, grouping thousands', () => {
    expect(formatMeasure(47.7, 1, 'en')).toBe('47.7')
    expect(formatMeasure(0.123, 4, 'en')).toBe('0.123')
    expect(formatMeasure(204233, 0, 'en')).toBe('204,233')
    expect(formatMeasure(-1.25, 1, 'en')).toBe('-1.3')
  })

  it('keeps significant digits for values that would round to zero', () => {
    expect(formatMeasure(0.0000025, 3, 'en')).toBe('0.0000025')
    expect(formatMeasure(0, 3, 'en')).toBe('0')
  })

  it('tolerates out-of-range decimals', () => {
    expect(formatMeasure(1.23456, -2, 'en')).toBe('1')
    expect(formatMeasure(1.5, 99, 'en')).toBe('1.5')
  })
})

describe('formatCount and formatAmount', () => {
  it('groups whole numbers and puts the unit after an amount', () => {
    expect(formatCount(100000, 'en')).toBe('100,000')
    expect(formatAmount(15.8, 'mg', 'en')).toBe('15.8 mg')
    expect(formatAmount(3, null, 'en')).toBe('3')
    expect(formatAmount(null, 'mg', 'en')).toBe('')
  })
})

describe('formatSignificant', () => {
  it('keeps three significant digits at any scale', () => {
    expect(formatSignificant(91_600.4, 3, 'en')).toBe('91,600')
    expect(formatSignificant(53.24, 3, 'en')).toBe('53.2')
    expect(formatSignificant(0.000967, 3, 'en')).toBe('0.000967')
  })
})

describe('formatBytes', () => {
  it('picks the unit that keeps the number short', () => {
    expect(formatBytes(161, 'en')).toBe('161 B')
    expect(formatBytes(2_516_582, 'en')).toBe('2.4 MB')
    expect(formatBytes(1024, 'en')).toBe('1 KB')
  })
})
