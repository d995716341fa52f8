import type { Database } from 'better-sqlite3'
import { formatDay, formatSeconds } from '../../core/dates.ts'
import { plateFormat, wellLabel } from '../../pure/well-positions.ts'

/**
 * Reads readout rows as the API shows them (docs/spec/gaps.md): `{id, class, type, molecule, batch,
 * run{id, run_date}, protocol, plate?, well?, control_state?, readouts{definition id: cell}}`.
 * A cell has `value` (number or text), and `modifier`, `outlier` and `note` only when set.
 */

export interface ReadoutCell {
  value?: number | string
  modifier?: '<' | '>'
  outlier?: boolean
  note?: string
}

export interface ReadoutRowRecord {
  id: number
  class: 'readout row'
  type: 'detail row' | 'aggregate row'
  molecule: number | null
  batch: number | null
  run: { id: number; run_date: string }
  protocol: number
  plate?: number
  well?: string
  control_state?: string
  readouts: Record<string, ReadoutCell | number | string>
  created_at: string
  modified_at: string
}

interface RowData {
  id: number
  type: 'detail row' | 'aggregate row'
  protocol_id: number
  run_id: number
  run_date: number
  batch_id: number | null
  molecule_id: number | null
  plate_id: number | null
  plate_size: number | null
  well_row: number | null
  well_col: number | null
  control_state: string | null
  created_at: number
  modified_at: number
}

export interface CellData {
  row_id: number
  definition_id: number
  number_value: number | null
  text_value: string | null
  modifier: '<' | '>' | null
  outlier: number
  note: string | null
}

/** The columns every readout row query selects, for `readoutRowsFrom`. */
export const readoutRowColumns = `readout_rows.id, readout_rows.type, readout_rows.protocol_id,
  readout_rows.run_id, runs.run_date, readout_rows.batch_id, batches.molecule_id,
  readout_rows.plate_id, plates.size AS plate_size, readout_rows.well_row, readout_rows.well_col,
  readout_rows.control_state, readout_rows.created_at, readout_rows.modified_at`

/** The joins those columns need. */
export const readoutRowJoins = `JOIN runs ON runs.id = readout_rows.run_id
  LEFT JOIN batches ON batches.id = readout_rows.batch_id
  LEFT JOIN plates ON plates.id = readout_rows.plate_id`

/**
 * A cell as the API sends it; with `bare` (the `bareReadoutCells` fault), a cell that has only a
 * value is that value, as real vaults' protocol data sends it.
 */
export function cellOf(cell: CellData, bare = false): ReadoutCell | number | string {
  if (bare && !cell.modifier && !cell.outlier && !cell.note) {
    if (cell.number_value !== null) return cell.number_value
    if (cell.text_value !== null) return cell.text_value
  }
  const result: ReadoutCell = {}
  if (cell.number_value !== null) result.value = cell.number_value
  else if (cell.text_value !== null) result.value = cell.text_value
  if (cell.modifier) result.modifier = cell.modifier
  if (cell.outlier) result.outlier = true
  if (cell.note) result.note = cell.note
  return result
}

/** A cell as sent, bare or not, as the object it stands for. */
export function cellObject(
  cell: ReadoutCell | number | string | undefined,
): ReadoutCell | undefined {
  return typeof cell === 'number' || typeof cell === 'string' ? { value: cell } : cell
}

/**
 * Builds records for rows selected with `readoutRowColumns`, in the given order. `definitions`
 * limits the readouts returned (all when undefined).
 */
export function readoutRowsFrom(
  db: Database,
  rows: readonly unknown[],
  definitions?: readonly number[],
  bareCells = false,
): ReadoutRowRecord[] {
  const data = rows as RowData[]
  if (data.length === 0) return []
  const cells = db
    .prepare(
      `SELECT * FROM readout_cells WHERE row_id IN (SELECT value FROM json_each(?))
       ORDER BY row_id, definition_id`,
    )
    .all(JSON.stringify(data.map((row) => row.id))) as CellData[]
  const wanted = definitions ? new Set(definitions) : undefined
  const byRow = new Map<number, Record<string, ReadoutCell | number | string>>()
  for (const cell of cells) {
    if (wanted && !wanted.has(cell.definition_id)) continue
    let readouts = byRow.get(cell.row_id)
    if (!readouts) byRow.set(cell.row_id, (readouts = {}))
    readouts[String(cell.definition_id)] = cellOf(cell, bareCells)
  }
  return data.map((row) => {
    const record: ReadoutRowRecord = {
      id: row.id,
      class: 'readout row',
      type: row.type,
      molecule: row.molecule_id,
      batch: row.batch_id,
      run: { id: row.run_id, run_date: formatDay(row.run_date) },
      protocol: row.protocol_id,
      readouts: byRow.get(row.id) ?? {},
      created_at: formatSeconds(row.created_at),
      modified_at: formatSeconds(row.modified_at),
    }
    if (row.plate_id !== null) record.plate = row.plate_id
    if (row.well_row !== null && row.well_col !== null) {
      const format = plateFormat(row.plate_size ?? 96) ?? { size: 96, rows: 8, columns: 12 }
      record.well = wellLabel({ row: row.well_row, col: row.well_col }, format)
    }
    if (row.control_state !== null) record.control_state = row.control_state
    return record
  })
}

/** Writes one cell of a row, replacing what was there. */
export function writeCell(
  db: Database,
  rowId: number,
  definitionId: number,
  cell: ReadoutCell,
): void {
  db.prepare(
    `INSERT OR REPLACE INTO readout_cells
       (row_id, definition_id, number_value, text_value, modifier, outlier, note)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    rowId,
    definitionId,
    typeof cell.value === 'number' ? cell.value : null,
    typeof cell.value === 'string' ? cell.value : null,
    cell.modifier ?? null,
    cell.outlier ? 1 : 0,
    cell.note ?? null,
  )
}
