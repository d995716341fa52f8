import { describe, expect, it } from 'vitest'
import {
  fieldEntriesOf,
  flagOf,
  idOf,
  linkIdOf,
  namedLinksOf,
  numberOf,
  personOf,
  recordsOf,
  textOf,
} from './record-values.ts'

describe('record readers', () => {
  it('reads ids from numbers, digit strings and link objects only', () => {
    expect(idOf(12)).toBe(12)
    expect(idOf(' 12 ')).toBe(12)
    expect(idOf('12a')).toBeNull()
    expect(idOf(1.5)).toBeNull()
    expect(linkIdOf({ id: '7', name: 'Kinase' })).toBe(7)
    expect(linkIdOf(null)).toBeNull()
  })

  it('reads numbers and flags sent as strings', () => {
    expect(numberOf('399.47')).toBe(399.47)
    expect(numberOf('')).toBeNull()
    expect(numberOf(Number.NaN)).toBeNull()
    expect(flagOf('true')).toBe(true)
    expect(flagOf(undefined)).toBe(false)
  })

  it('treats blank text as missing and writes booleans as words', () => {
    expect(textOf('  ')).toBeNull()
    expect(textOf(3)).toBe('3')
    expect(textOf(true)).toBe('Yes')
    expect(textOf({})).toBeNull()
  })

  it('names people from either shape', () => {
    expect(personOf({ first_name: 'Rosalind', last_name: 'Franklin' })).toBe('Rosalind Franklin')
    expect(personOf('Ada Lovelace')).toBe('Ada Lovelace')
    expect(personOf({ name: 'Lab robot' })).toBe('Lab robot')
    expect(personOf(undefined)).toBeNull()
  })

  it('reads link lists, skipping what has no id', () => {
    expect(namedLinksOf([{ id: 1, name: 'Kinase' }, 4, { name: 'no id' }])).toEqual([
      { id: 1, name: 'Kinase' },
      { id: 4, name: '#4' },
    ])
    expect(recordsOf([{ id: 1 }, 2, null])).toEqual([{ id: 1 }])
    expect(namedLinksOf('nope')).toEqual([])
  })

  it('turns vault-defined fields into labelled text, in order', () => {
    expect(
      fieldEntriesOf({
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
    expect(fieldEntriesOf(null)).toEqual([])
  })
})
