import { describe, expect, it } from 'vitest'
import { distinct, toFlag, toId, toLinkId, toLinkIds, toNumber, toPersonName } from './values.ts'

describe('tolerant readers of server values', () => {
  it('reads ids from numbers and digit strings only', () => {
    expect(toId(12)).toBe(12)
    expect(toId(' 12 ')).toBe(12)
    expect(toId('-3')).toBe(-3)
    for (const value of ['12a', '1.5', 1.5, '', null, {}, Number.MAX_SAFE_INTEGER + 2]) {
      expect(toId(value), String(value)).toBeNull()
    }
  })

  it('reads links as bare ids or objects with an id', () => {
    expect(toLinkId({ id: '7', name: 'x' })).toBe(7)
    expect(toLinkId('7')).toBe(7)
    expect(toLinkId({ name: 'no id' })).toBeNull()
    expect(toLinkIds([{ id: 1 }, 2, '3', { id: 'x' }, null])).toEqual([1, 2, 3])
    expect(toLinkIds('not a list')).toEqual([])
  })

  it('reads numbers and flags sent as strings', () => {
    expect(toNumber('180.16')).toBe(180.16)
    expect(toNumber('967E-06')).toBeCloseTo(0.000967)
    expect(toNumber('n/a')).toBeNull()
    expect(toNumber(' ')).toBeNull()
    expect([toFlag('true'), toFlag(true), toFlag('0'), toFlag(false), toFlag('maybe')]).toEqual([
      1,
      1,
      0,
      0,
      null,
    ])
  })

  it('reads people as strings or as first and last names', () => {
    expect(toPersonName('Ada Lovelace')).toBe('Ada Lovelace')
    expect(toPersonName({ id: 5, first_name: 'Ada', last_name: 'Lovelace' })).toBe('Ada Lovelace')
    expect(toPersonName({ name: 'Lab robot' })).toBe('Lab robot')
    expect(toPersonName(5)).toBeNull()
  })

  it('keeps each value of a list once, in order, short or long', () => {
    expect(distinct([])).toEqual([])
    expect(distinct([3])).toEqual([3])
    expect(distinct([3, 1, 3, 2, 1])).toEqual([3, 1, 2])
    const long = Array.from({ length: 40 }, (_, index) => index % 25)
    expect(distinct(long)).toEqual(Array.from({ length: 25 }, (_, index) => index))
  })
})
