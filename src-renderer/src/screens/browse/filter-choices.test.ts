import { describe, expect, it } from 'vitest'
import { choicesFrom, chosenIndex, columnsOf } from './filter-choices.ts'
import type { FilterChoice } from './list-definitions.ts'

describe('filter choices', () => {
  it('offers one choice per record, named like the record', () => {
    const choices = choicesFrom({ kind: 'protocols', column: 'protocol_id', member: 'id' }, [
      { id: 2, name: 'GPCR binding' },
      { id: 1, name: 'Kinase IC50' },
      { id: 'x', name: 'no id' },
    ])
    expect(choices).toEqual([
      { label: 'GPCR binding', set: { protocol_id: 2 } },
      { label: 'Kinase IC50', set: { protocol_id: 1 } },
    ])
  })

  it('offers each distinct value of a member once, in natural order', () => {
    const choices = choicesFrom({ kind: 'plates', column: 'location', member: 'location' }, [
      { location: 'Shelf 10' },
      { location: 'Shelf 2' },
      { location: 'Shelf 2' },
      { location: '' },
    ])
    expect(choices.map((choice) => choice.label)).toEqual(['Shelf 2', 'Shelf 10'])
  })

  it('finds the chosen option and the columns to clear', () => {
    const choices: FilterChoice[] = [
      { label: 'Outliers', set: { has_outlier: 1 } },
      { label: 'Notes', set: { has_note: 1 } },
    ]
    expect(chosenIndex(choices, { has_note: 1 })).toBe(1)
    expect(chosenIndex(choices, {})).toBe(-1)
    expect(columnsOf(choices)).toEqual(['has_outlier', 'has_note'])
  })
})
