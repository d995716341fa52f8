/**
 * A plate's wells as columns: one array per field, all of one length, well `i` being entry `i` of
 * each. Main sends a plate's wells this way (`plates.quality`, `plates.ofRun`) and the heat map,
 * its hover and the wells table read them this way: a 1536-well plate's 1536 objects of 16 keys
 * made the answer four times as large to send, to parse and to hold as page state, where a column
 * of numbers is one array. `wellAt` gives one well as an object where a single one is wanted (a
 * hover, a table row).
 */
import type { WellExclusion, WellGroup } from '../analysis/plate-quality.ts'

/** A correction of the well's readout row waiting in the outbox. */
export interface PendingMark {
  state: string
  itemIds: number[]
}

/** One well's value of a readout, with what the plate's statistics made of it. */
export interface PlateWellValue {
  rowId: number
  /** The label the vault gave (`A01`); null when the row names no well. */
  well: string | null
  batchId: number | null
  moleculeId: number | null
  /** `+`, `-`, `#` as the vault wrote it, or null for a sample well. */
  controlState: string | null
  /** `number`, `text`, `date`, `boolean` or `empty`, as the index read the cell. */
  kind: string
  number: number | null
  /** `<`, `>`... of a qualified value; such a value is drawn but left out of the statistics. */
  modifier: string | null
  text: string | null
  outlier: boolean
  note: string | null
  pending: PendingMark | null
  /** The well's group and its distance from the group's mean, in the group's SDs. */
  group: WellGroup | null
  deviation: number | null
  /** How many deviation thresholds it is beyond (0: none). */
  level: number
  /** Why the statistics leave it out; null when they use it. */
  excluded: WellExclusion | null
}

export type PlateWellColumns = { [Field in keyof PlateWellValue]: PlateWellValue[Field][] }

export const plateWellFields = [
  'rowId',
  'well',
  'batchId',
  'moleculeId',
  'controlState',
  'kind',
  'number',
  'modifier',
  'text',
  'outlier',
  'note',
  'pending',
  'group',
  'deviation',
  'level',
  'excluded',
] as const satisfies readonly (keyof PlateWellValue)[]

/** Columns with no wells, to fill with `push`. */
export function emptyWellColumns(): PlateWellColumns {
  return Object.fromEntries(
    plateWellFields.map((field) => [field, []]),
  ) as unknown as PlateWellColumns
}

export function wellCount(columns: PlateWellColumns): number {
  return columns.rowId.length
}

/** Well `index` as an object; refused, naming the range, for an index outside the columns. */
export function wellAt(columns: PlateWellColumns, index: number): PlateWellValue {
  const count = wellCount(columns)
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    throw new RangeError(
      `Well ${index} is not among the plate's ${count} wells (0 to ${count - 1}).`,
    )
  }
  return Object.fromEntries(
    plateWellFields.map((field) => [field, columns[field][index]]),
  ) as unknown as PlateWellValue
}

/** Wells given as objects, as columns. */
export function wellColumns(values: readonly PlateWellValue[]): PlateWellColumns {
  const columns = emptyWellColumns()
  for (const value of values) {
    for (const field of plateWellFields) (columns[field] as unknown[]).push(value[field])
  }
  return columns
}

/** Every well as an object, in the columns' order. */
export function wellRows(columns: PlateWellColumns): PlateWellValue[] {
  return Array.from({ length: wellCount(columns) }, (_, index) => wellAt(columns, index))
}

/**
 * The wells of a plate's readout rows, whichever readout they hold: each row's well label and
 * control state (for the plate's layout) and its id (to link the well to its rows).
 */
export interface PlateRowMarks {
  rowId: number[]
  well: (string | null)[]
  controlState: (string | null)[]
}
