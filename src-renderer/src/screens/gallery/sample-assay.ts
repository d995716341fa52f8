/**
 * A made-up dose-response run for the component gallery: readouts with every mark a cell can carry
 * (qualifiers, outliers, notes, text), the 96-well plate they came from, and the freezer it is
 * stored in. Shaped as the vault sends them, and read by the same code as real records.
 */
import { buildLocationTree } from '../../lib/inventory/location-tree.ts'
import { plateWells, type WellContent } from '../../lib/plates/plate-layout.ts'
import { readoutDefinitionsOf, readReadoutRows } from '../../lib/readouts/readout-rows.ts'
import { rowOfKind } from '../../../../src-common/records/record-kinds.ts'

const protocol = rowOfKind('protocols', {
  id: 1,
  name: 'Kinase IC50',
  readout_definitions: [
    { id: 1, name: 'Concentration', unit_label: 'µM', precision: 3, data_type: 'Number' },
    { id: 2, name: '% Inhibition', unit_label: '%', precision: 1, data_type: 'Number' },
    { id: 3, name: 'IC50', unit_label: 'µM', precision: 3, data_type: 'Number', calculated: true },
    { id: 4, name: 'Comment', data_type: 'Text' },
  ],
})

const concentrations = [30, 10, 3.33, 1.11, 0.37, 0.123, 0.041, 0.014]
const inhibition = [98.2, 95.1, 81.4, 55.3, 27.9, 9.6, 2.2, -1.4]

const detailRows = concentrations.map((concentration, index) => ({
  id: index + 1,
  type: 'detail row',
  batch: 12,
  run: { id: 3, run_date: '2026-07-24' },
  protocol: 1,
  well: `${String.fromCharCode(65 + index)}03`,
  readouts: {
    1: { value: concentration },
    2: {
      value: index === 2 ? 47.7 : inhibition[index],
      ...(index === 2 ? { outlier: true, note: 'pipetting error' } : {}),
    },
    ...(index === 0 ? { 4: { value: 'precipitate at top concentration' } } : {}),
  },
}))

export const sampleDefinitions = readoutDefinitionsOf(protocol)

export const sampleReadouts = readReadoutRows(
  [
    ...detailRows,
    {
      id: 20,
      type: 'aggregate row',
      batch: 12,
      run: { id: 3, run_date: '2026-07-24' },
      protocol: 1,
      readouts: { 3: { value: 1.52 } },
    },
    {
      id: 21,
      type: 'aggregate row',
      batch: 13,
      run: { id: 3, run_date: '2026-07-24' },
      protocol: 1,
      readouts: { 3: { value: 30, modifier: '>' }, 4: { note: 'inactive at every concentration' } },
    },
    {
      id: 22,
      type: 'aggregate row',
      batch: 14,
      run: { id: 3, run_date: '2026-07-24' },
      protocol: 1,
      readouts: { 3: { value: 0.014, modifier: '<' } },
    },
  ].map((record) => rowOfKind('readout_rows', record)),
)

export const sampleBatchNames = new Map([
  [12, 'VD-000412-001'],
  [13, 'VD-000587-002'],
  [14, 'VD-001203-001'],
])

const plateContents: WellContent[] = [
  ...Array.from({ length: 8 }, (_, row) => [
    { row: row + 1, column: 1, control: row < 7 ? ('-' as const) : ('#' as const) },
    { row: row + 1, column: 2, control: '+' as const },
  ]).flat(),
  ...Array.from({ length: 8 }, (_, row) =>
    Array.from({ length: 9 }, (_, column) => ({
      row: row + 1,
      column: column + 3,
      batchId: 12 + (column % 3),
    })),
  ).flat(),
]

export const samplePlate = plateWells(96, plateContents)

export const sampleLocations = buildLocationTree(
  [
    { id: 1, value: 'Freezer A (−20 °C)', parent_id: null },
    { id: 2, value: 'Rack 1', parent_id: 1 },
    { id: 3, value: 'Box 1', parent_id: 2, num_rows: 9, num_columns: 9, filled_position_count: 19 },
    { id: 4, value: 'Box 2', parent_id: 2, num_rows: 9, num_columns: 9, filled_position_count: 20 },
    { id: 5, value: 'Room temperature cabinet', parent_id: null },
    { id: 6, value: 'Shelf 1', parent_id: 5, filled_position_count: 21 },
  ].map((record) => rowOfKind('inventory_locations', record)),
)
