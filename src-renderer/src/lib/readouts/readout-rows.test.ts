import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../../../../src-common/values.ts'
import { rowOf } from '../testing/rows.ts'
import {
  controlStateOf,
  groupByProtocol,
  readoutDefinitionsOf,
  readReadoutRow,
  readReadoutRows,
} from './readout-rows.ts'

const kinase = rowOf('protocols', {
  id: 1,
  name: 'Kinase IC50',
  readout_definitions: [
    { id: 1, name: 'Concentration', unit_label: 'uM', precision: 4 },
    { id: 4, name: 'Comment', data_type: 'Text' },
    { id: 2, name: '% Inhibition', unit_label: '%', precision: 1 },
    { id: 5, name: 'IC50', unit_label: 'uM', precision: 3, calculated: true },
  ],
})
const binding = rowOf('protocols', {
  id: 2,
  name: 'GPCR binding',
  readout_definitions: [{ id: 9, name: 'Ki' }],
})

/** A readout row as the cache gives it: its columns read from the record as the vault sent it. */
const readoutRow = (json: JsonObject) => rowOf('readout_rows', json)

const row = (id: number, protocol: number, readouts: Record<string, unknown>) => ({
  id,
  class: 'readout row',
  type: 'detail row',
  molecule: 4,
  batch: 8,
  run: { id: 3, run_date: '2026-07-24' },
  protocol,
  plate: 1,
  well: 'A03',
  readouts,
})

describe('readReadoutRow', () => {
  it('reads links, the well, the control state and every cell', () => {
    const read = readReadoutRow(
      readoutRow({
        ...row(44, 1, { '2': { value: 47.7, outlier: true, note: 'pipetting error' } }),
        control_state: '+',
      }),
    )!
    expect(read).toMatchObject({
      id: 44,
      aggregate: false,
      protocolId: 1,
      runId: 3,
      runDate: '2026-07-24',
      moleculeId: 4,
      batchId: 8,
      plateId: 1,
      well: 'A03',
      control: '+',
    })
    expect(read.cells.get(2)).toEqual({
      value: 47.7,
      qualifier: null,
      outlier: true,
      note: 'pipetting error',
    })
  })

  it('reads aggregate rows, wells given as objects, and rows without a molecule', () => {
    const read = readReadoutRow(
      readoutRow({
        id: '9',
        type: 'aggregate row',
        molecule: null,
        well: { pos: 'P24' },
        readouts: 'garbage',
      }),
    )!
    expect(read).toMatchObject({ id: 9, aggregate: true, moleculeId: null, well: 'P24' })
    expect(read.cells.size).toBe(0)
  })

  it('places a row by the columns the cache computed, not by reading its JSON again', () => {
    const cached = readoutRow(row(5, 1, { '1': { value: 2 } }))
    const read = readReadoutRow({
      ...cached,
      columns: { ...cached.columns, well: 'H12', protocol_id: 2, control_state: '-' },
    })!
    expect(read).toMatchObject({ well: 'H12', protocolId: 2, control: '-' })
    expect(read.cells.get(1)?.value).toBe(2)
  })

  it('skips rows without an id', () => {
    expect(readReadoutRows([{ id: 'x' }, row(1, 1, {})].map(readoutRow)).map((r) => r.id)).toEqual([
      1,
    ])
  })
})

describe('groupByProtocol', () => {
  it('makes one table per protocol with only the columns that hold values', () => {
    const rows = readReadoutRows(
      [
        row(1, 1, { '1': { value: 10 }, '2': { value: 95 } }),
        row(2, 2, { '9': { value: 3.2, modifier: '<' } }),
        row(3, 1, { '2': { value: 50 }, '7': { note: 'unknown readout' } }),
      ].map(readoutRow),
    )
    const groups = groupByProtocol(rows, [kinase, binding])
    expect(groups.map((group) => group.protocolName)).toEqual(['GPCR binding', 'Kinase IC50'])
    const kinaseGroup = groups[1]!
    expect(kinaseGroup.rows.map((r) => r.id)).toEqual([1, 3])
    expect(kinaseGroup.definitions.map((d) => d.name)).toEqual([
      'Concentration',
      '% Inhibition',
      'Readout 7',
    ])
  })

  it('names a protocol it does not have by its id', () => {
    const groups = groupByProtocol(
      readReadoutRows([readoutRow(row(1, 12, { '1': { value: 1 } }))]),
      [],
    )
    expect(groups[0]?.protocolName).toBe('Protocol #12')
  })
})

describe('readout definitions and control states', () => {
  it('reads definitions with their unit, precision and origin', () => {
    expect(readoutDefinitionsOf(kinase)[3]).toEqual({
      id: 5,
      name: 'IC50',
      unit: 'uM',
      precision: 3,
      calculated: true,
      text: false,
    })
    expect(readoutDefinitionsOf(kinase)[1]?.text).toBe(true)
    expect(readoutDefinitionsOf(null)).toEqual([])
  })

  it('knows the three control states', () => {
    expect(['+', '-', '#', 'x', null].map(controlStateOf)).toEqual(['+', '-', '#', null, null])
  })
})
