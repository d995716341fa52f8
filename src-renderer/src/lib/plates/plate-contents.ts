/**
 * What the wells of a cached plate hold, read from the three records that say it: the plate's own
 * `wells` (batches and samples), the control layouts for the plate (`control_wells`), and the
 * readout rows measured on it (each row names its well and, for controls, its state).
 */
import type { CachedRecord } from '../bridge.ts'
import { controlStateOf, type ControlState } from '../readouts/readout-rows.ts'
import {
  toLinkId,
  toNumber,
  toObjects,
  toText,
  type JsonObject,
} from '../../../../src-common/values.ts'
import { parseWellPosition, type WellContent } from './plate-layout.ts'

/** A well's coordinates from `row`/`col` or, failing that, its position label. */
function coordinatesOf(well: JsonObject): { row: number; column: number } | null {
  const row = toNumber(well.row)
  const column = toNumber(well.col ?? well.column)
  if (row !== null && column !== null) return { row, column }
  const position = toText(well.pos ?? well.position)
  return position === null ? null : parseWellPosition(position)
}

/** What the layout needs of a readout row measured on the plate: its well and control state. */
export interface ReadoutMark {
  id: number
  well: string | null
  control: ControlState | null
}

/**
 * The wells and control states of a plate's readout rows, without their values: a 1536-well
 * plate links thousands of rows, and reading every value (`readReadoutRows`) took about 120 ms of
 * its page's first draw where the layout needs two columns.
 */
export function readoutMarks(rows: readonly CachedRecord[]): ReadoutMark[] {
  const marks: ReadoutMark[] = []
  for (const row of rows) {
    if (row.id === null) continue
    marks.push({
      id: row.id,
      well: toText(row.columns.well),
      control: controlStateOf(row.columns.control_state),
    })
  }
  return marks
}

export function plateContents(
  plate: CachedRecord,
  controlLayouts: readonly CachedRecord[],
  readoutRows: readonly Omit<ReadoutMark, 'id'>[],
): WellContent[] {
  const contents: WellContent[] = []
  for (const well of toObjects(plate.json.wells)) {
    const at = coordinatesOf(well)
    if (at) contents.push({ ...at, batchId: toLinkId(well.batch), sampleId: toLinkId(well.sample) })
  }
  for (const layout of controlLayouts) {
    for (const well of toObjects(layout.json.control_wells)) {
      const at = coordinatesOf(well)
      const control = controlStateOf(well.control_state)
      if (at && control) contents.push({ ...at, control })
    }
  }
  for (const row of readoutRows) {
    const at = row.well === null ? null : parseWellPosition(row.well)
    if (at && row.control) contents.push({ ...at, control: row.control })
  }
  return contents
}
