import { describe, expect, it } from 'vitest'
import { list, page, setAsideIn } from './envelope.ts'
import { readoutRow } from './resources/assay-records.ts'
import { integer, object, optional, readAnswer, readLeniently, string, timestamp } from './shape.ts'

const record = object({ id: integer, name: optional(string), modified_at: optional(timestamp) })

describe('lists read leniently', () => {
  it('keeps a member of an unexpected shape as given and reads the others', () => {
    const answer = [
      { id: '7', name: 'plain', modified_at: '2024-03-05 10:00:00+02:00' },
      { id: 8, name: { first: 'odd' }, modified_at: 'last Tuesday' },
    ]
    const records = readAnswer('test', list(record), answer)
    expect(records).toEqual([
      { id: 7, name: 'plain', modified_at: '2024-03-05T08:00:00Z' },
      { id: 8, name: { first: 'odd' }, modified_at: 'last Tuesday' },
    ])
    expect(setAsideIn(records)).toEqual([])
  })

  it('sets aside a record without a readable id, naming why, and keeps the rest', () => {
    const read = readAnswer('test', page(record), {
      count: 4,
      offset: 0,
      objects: [{ id: 1 }, { name: 'no id' }, { id: 'x' }, { id: 4 }],
    })
    expect(read.objects).toEqual([{ id: 1 }, { id: 4 }])
    expect(setAsideIn(read.objects)).toEqual([
      { index: 1, reason: 'id: expected an integer, got nothing' },
      { index: 2, reason: 'id: expected an integer, got "x"' },
    ])
  })

  it('still refuses an answer that is not a list at all', () => {
    expect(() => readAnswer('test', page(record), { objects: 'nope' })).toThrow(
      'objects: expected an array, got "nope"',
    )
  })

  it('reads strictly outside a list', () => {
    expect(() => readAnswer('test', record, { id: 1, name: { first: 'odd' } })).toThrow(
      'name: expected a string',
    )
    expect(readLeniently(record, { id: 1, name: { first: 'odd' } })).toEqual({
      id: 1,
      name: { first: 'odd' },
    })
  })
})

describe('readout cells and fit constraints in the forms real vaults send', () => {
  it('reads bare cells, objects and notes without values in one row', () => {
    const row = {
      id: 1,
      run: { id: 2, run_date: '2024-03-05' },
      readouts: {
        '10': 12,
        '11': '1.20E+2',
        '12': '>30000',
        '13': 'ND',
        '14': { value: 30000, modifier: '>' },
        '15': { note: 'no fit' },
        '16': true,
      },
    }
    expect(readAnswer('test', readoutRow, structuredClone(row))).toEqual(row)
  })

  it('refuses, outside a list, a cell that is neither an object nor a scalar', () => {
    expect(() => readAnswer('test', readoutRow, { id: 1, readouts: { '10': [1, 2] } })).toThrow(
      'readouts.10: expected a readout cell',
    )
  })
})
