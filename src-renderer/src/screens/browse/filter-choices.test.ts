import { describe, expect, it } from 'vitest'
import { choicesFrom, chosenIndex, columnsOf } from './filter-choices.ts'
import type { FilterChoice } from './list-definitions.ts'

describe('filter choices', () => {
  it('offers one choice per linked record, named like the record', () => {
    const choices = choicesFrom('protocol_id', [
      { value: 2, count: 3, label: 'GPCR binding' },
      { value: 1, count: 9, label: 'Kinase IC50' },
      { value: null, count: 4 },
    ])
    expect(choices).toEqual([
      { label: 'GPCR binding', set: { protocol_id: 2 } },
      { label: 'Kinase IC50', set: { protocol_id: 1 } },
    ])
  })

  it('offers each distinct value of a column once, in natural order', () => {
    const choices = choicesFrom('location', [
      { value: 'Shelf 10', count: 1 },
      { value: 'Shelf 2', count: 2 },
      { value: null, count: 1 },
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
