import { describe, expect, it } from 'vitest'
import { readReadoutRows } from '../readouts/readout-rows.ts'
import { rowOf } from '../testing/rows.ts'
import { plateContents, readoutMarks } from './plate-contents.ts'

describe('plateContents', () => {
  it('reads batches and samples from the wells, controls from layouts and readout rows', () => {
    const plate = rowOf('plates', {
      id: 1,
      wells: [
        { row: 1, col: 3, pos: 'A03', batch: 1992, sample: null },
        { pos: 'B04', batch: { id: 5 }, sample: 9 },
        { pos: 'nowhere', batch: 3 },
      ],
    })
    const layout = rowOf('control_layouts', {
      id: 4,
      plate_id: 1,
      control_wells: [
        { row: 1, col: 1, control_state: '-' },
        { pos: 'P02', control_state: '#' },
        { row: 1, col: 2, control_state: 'unknown' },
      ],
    })
    const rows = readReadoutRows([
      rowOf('readout_rows', { id: 1, well: 'A02', control_state: '+' }),
      rowOf('readout_rows', { id: 2, well: 'A03' }),
    ])
    expect(plateContents(plate, [layout], rows)).toEqual([
      { row: 1, column: 3, batchId: 1992, sampleId: null },
      { row: 2, column: 4, batchId: 5, sampleId: 9 },
      { row: 1, column: 1, control: '-' },
      { row: 16, column: 2, control: '#' },
      { row: 1, column: 2, control: '+' },
    ])
  })

  it('reads a plate without wells as empty', () => {
    expect(plateContents(rowOf('plates', { id: 2, wells: 'n/a' }), [], [])).toEqual([])
  })

  it('reads readout rows’ wells and control states without their values, as readReadoutRows does', () => {
    const records = [
      rowOf('readout_rows', {
        id: 7,
        well: 'A02',
        control_state: ' + ',
        readouts: { 18: { value: 4.2 } },
      }),
      rowOf('readout_rows', { id: 8, well: 'AF48', control_state: 'sample' }),
      rowOf('readout_rows', { id: 9 }),
      { ...rowOf('readout_rows', { well: 'B01', control_state: '-' }), id: null },
    ]
    expect(readoutMarks(records)).toEqual([
      { id: 7, well: 'A02', control: '+' },
      { id: 8, well: 'AF48', control: null },
      { id: 9, well: null, control: null },
    ])
    expect(readoutMarks(records).map(({ id, well, control }) => ({ id, well, control }))).toEqual(
      readReadoutRows(records).map(({ id, well, control }) => ({ id, well, control })),
    )
  })
})
