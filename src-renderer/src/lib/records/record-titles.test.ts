import { describe, expect, it } from 'vitest'
import { linkTitle, recordTitle } from './record-titles.ts'

describe('recordTitle', () => {
  it('uses the name a kind is known by', () => {
    expect(recordTitle('molecules', { id: 1, name: 'VD-000001' })).toBe('VD-000001')
    expect(
      recordTitle('batches', { id: 1, name: '001', molecule_batch_identifier: 'VD-000001-001' }),
    ).toBe('VD-000001-001')
    expect(recordTitle('inventory_locations', { id: 3, value: 'Box 1' })).toBe('Box 1')
    expect(recordTitle('eln_entries', { id: 2, title: 'Suzuki coupling' })).toBe('Suzuki coupling')
  })

  it('names records without a name by what they are', () => {
    expect(recordTitle('runs', { id: 1, run_date: '2026-07-24' })).toMatch(/^Run of .*2026/)
    expect(recordTitle('readout_rows', { id: 44, well: 'L03' })).toBe('Readout row 44 · well L03')
    expect(recordTitle('readout_rows', { id: 45 })).toBe('Readout row 45')
    expect(recordTitle('inventory_samples', { id: 7 })).toBe('Sample 7')
    expect(recordTitle('molecules', {})).toBe('Molecule')
  })

  it('names links by their name or their kind and id', () => {
    expect(linkTitle('protocols', { id: 1, name: 'Kinase IC50' }, 1)).toBe('Kinase IC50')
    expect(linkTitle('plates', 4, 4)).toBe('Plate 4')
  })
})
