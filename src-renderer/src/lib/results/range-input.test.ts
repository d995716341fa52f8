import { describe, expect, it } from 'vitest'
import { describeRange, readRange } from './range-input.ts'

describe('a range typed in a column menu', () => {
  it('reads numbers in any ordinary form, and empty fields as open ends', () => {
    expect(readRange('0.01', '1', 'uM')).toEqual({ ok: true, min: 0.01, max: 1 })
    expect(readRange(' 1e-3 ', '', 'uM')).toEqual({ ok: true, min: 0.001, max: null })
    expect(readRange('', '.5', null)).toEqual({ ok: true, min: null, max: 0.5 })
    expect(readRange('-10', '+110', '%')).toEqual({ ok: true, min: -10, max: 110 })
    expect(readRange('', '', 'uM')).toEqual({ ok: true, min: null, max: null })
  })

  it('says which bound is wrong and why', () => {
    expect(readRange('abc', '1', 'uM')).toEqual({
      ok: false,
      field: 'min',
      message: 'The lower bound “abc” is not a number.',
    })
    expect(readRange('1', '0,5', 'uM')).toEqual({
      ok: false,
      field: 'max',
      message: 'The upper bound “0,5” has a comma: write decimals with a point.',
    })
    expect(readRange('5', '1', 'uM')).toEqual({
      ok: false,
      field: 'min',
      message: 'The lower bound 5 uM is above the upper bound 1 uM.',
    })
    expect(readRange('1', 'Infinity', null)).toMatchObject({ ok: false, field: 'max' })
    expect(readRange('1e999', '', null)).toMatchObject({ ok: false, field: 'min' })
  })

  it('puts a range into words', () => {
    expect(describeRange(0.01, 1, 'uM')).toBe('0.01 to 1 uM')
    expect(describeRange(5, null, '%')).toBe('at least 5 %')
    expect(describeRange(null, 30, null)).toBe('at most 30')
  })
})
