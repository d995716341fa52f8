import { describe, expect, it } from 'vitest'
import {
  isSet,
  toId,
  toLinkId,
  toNamedLinks,
  toNumber,
  toPersonName,
  toObjects,
  toText,
} from '../values.ts'
import { displayText, formatFieldEntries } from './values.ts'

describe('record readers', () => {
  it('reads ids from numbers, digit strings and link objects only', () => {
    expect(toId(12)).toBe(12)
    expect(toId(' 12 ')).toBe(12)
    expect(toId('12a')).toBeNull()
    expect(toId(1.5)).toBeNull()
    expect(toLinkId({ id: '7', name: 'Kinase' })).toBe(7)
    expect(toLinkId(null)).toBeNull()
  })

  it('reads numbers and flags sent as strings', () => {
    expect(toNumber('399.47')).toBe(399.47)
    expect(toNumber('')).toBeNull()
    expect(toNumber(Number.NaN)).toBeNull()
    expect(isSet('true')).toBe(true)
    expect(isSet(undefined)).toBe(false)
  })

  it('treats blank text as missing and writes booleans as words', () => {
    expect(toText('  ')).toBeNull()
    expect(toText(3)).toBe('3')
    expect(displayText(true)).toBe('Yes')
    expect(toText(true)).toBe('true')
    expect(toText({})).toBeNull()
  })

  it('names people from either shape', () => {
    expect(toPersonName({ first_name: 'Rosalind', last_name: 'Franklin' })).toBe(
      'Rosalind Franklin',
    )
    expect(toPersonName('Ada Lovelace')).toBe('Ada Lovelace')
    expect(toPersonName({ name: 'Lab robot' })).toBe('Lab robot')
    expect(toPersonName(undefined)).toBeNull()
  })

  it('reads link lists, skipping what has no id', () => {
    expect(toNamedLinks([{ id: 1, name: 'Kinase' }, 4, { name: 'no id' }])).toEqual([
      { id: 1, name: 'Kinase' },
      { id: 4, name: '#4' },
    ])
    expect(toObjects([{ id: 1 }, 2, null])).toEqual([{ id: 1 }])
    expect(toNamedLinks('nope')).toEqual([])
  })

  it('turns vault-defined fields into labelled text, in order', () => {
    expect(
      formatFieldEntries({
        'Purity (%)': 99.5,
        Chemist: 'R. Franklin',
        Empty: '',
        Tags: ['a', 'b'],
        Supplier: { id: 3, name: 'Enamine' },
      }),
    ).toEqual([
      { label: 'Purity (%)', value: '99.5' },
      { label: 'Chemist', value: 'R. Franklin' },
      { label: 'Tags', value: 'a, b' },
      { label: 'Supplier', value: 'Enamine' },
    ])
    expect(formatFieldEntries(null)).toEqual([])
  })
})
