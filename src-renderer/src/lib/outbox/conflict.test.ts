import { describe, expect, it } from 'vitest'
import { conflictRows, showValue } from './conflict.ts'
import { itemView } from '../testing/outbox-items.ts'

describe('conflictRows', () => {
  it('sets a correction beside the server copy, readout by readout', () => {
    const item = itemView({
      state: 'conflict',
      payload: { row: 44, readouts: { '2': { value: 33.3, outlier: true } } },
      theirs: { id: 44, readouts: { '2': { value: 44.4 } } },
    })
    expect(conflictRows(item, (id) => (id === '2' ? '% Inhibition (%)' : id))).toEqual([
      { label: '% Inhibition (%)', mine: '33.3', theirs: '44.4', same: false },
      { label: '% Inhibition (%) · outlier', mine: 'Yes', theirs: 'No', same: false },
    ])
  })

  it('compares field changes by field, and titles of notebook entries', () => {
    const batch = itemView({
      operation: 'batch.update',
      payload: {
        batch: 3,
        changes: { name: 'B-2', batch_fields: { Purity: 98, Colour: 'white' } },
      },
      theirs: { id: 3, name: 'B-1', batch_fields: { Purity: 95, Colour: 'white' } },
    })
    expect(conflictRows(batch)).toEqual([
      { label: 'Name', mine: 'B-2', theirs: 'B-1', same: false },
      { label: 'Purity', mine: '98', theirs: '95', same: false },
      { label: 'Colour', mine: 'white', theirs: 'white', same: true },
    ])
    const entry = itemView({
      operation: 'eln.update',
      payload: { entry: { id: 5 }, title: 'Mine' },
      theirs: { id: 5, name: 'Theirs' },
    })
    expect(conflictRows(entry)).toEqual([
      { label: 'Title', mine: 'Mine', theirs: 'Theirs', same: false },
    ])
  })

  it('shows empty and structured values in words', () => {
    expect(showValue(null)).toBe('—')
    expect(showValue(['a', 'b'])).toBe('a, b')
    expect(showValue({ id: 1, name: 'Kinase Inhibitors' })).toBe('Kinase Inhibitors')
  })
})
