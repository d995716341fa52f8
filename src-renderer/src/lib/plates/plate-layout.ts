/**
 * A plate as a grid of wells: its dimensions (from its size, or from the wells it has), well
 * labels ("A01", "AF48"), and what each well holds: a batch or sample, or a control (+ positive,
 * - negative, # reference molecule) from the control layout or the readout rows.
 */
import { isPlateSize, plateFormats } from '../../../../src-common/plates.ts'
import type { ControlState } from '../readouts/readout-rows.ts'

export interface PlateDimensions {
  rows: number
  columns: number
}

/** Larger grids are not plates a person reads well by well; they are refused, not drawn. */
export const largestPlate = 3456

export interface WellContent {
  /** 1-based, as the vault numbers them. */
  row: number
  column: number
  batchId?: number | null
  sampleId?: number | null
  control?: ControlState | null
}

export interface PlateWell {
  row: number
  column: number
  position: string
  batchId: number | null
  sampleId: number | null
  control: ControlState | null
}

/** "A", "B" … "Z", "AA", "AB" … for 1-based rows. */
export function rowLabel(row: number): string {
  let label = ''
  for (let rest = row; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    label = String.fromCharCode(65 + ((rest - 1) % 26)) + label
  }
  return label
}

export function wellPosition(row: number, column: number): string {
  return `${rowLabel(row)}${String(column).padStart(2, '0')}`
}

/** Reads "A01", "b7" or "AF48"; null for anything else. */
export function parseWellPosition(position: string): { row: number; column: number } | null {
  const match = /^\s*([A-Za-z]{1,2})\s*0*(\d{1,3})\s*$/.exec(position)
  if (!match) return null
  const row = [...match[1]!.toUpperCase()].reduce(
    (sum, letter) => sum * 26 + letter.charCodeAt(0) - 64,
    0,
  )
  const column = Number(match[2])
  return column > 0 ? { row, column } : null
}

/** The plate's grid: a standard format for its size, else just large enough for its wells. */
export function plateDimensions(
  size: number | null,
  wells: readonly Pick<WellContent, 'row' | 'column'>[],
): PlateDimensions {
  const standard = size !== null && isPlateSize(size) ? plateFormats[size] : undefined
  // A loop, not Math.max(...wells): a 1536-well plate's spread arguments cost a frame's share.
  let rows = standard?.rows ?? 0
  let columns = standard?.columns ?? 0
  for (const well of wells) {
    if (well.row > rows) rows = well.row
    if (well.column > columns) columns = well.column
  }
  if (standard || rows * columns > 0) return { rows, columns }
  return { rows: 8, columns: 12 }
}

/**
 * Every well of the plate, row by row. Contents given for the same well are merged: a control
 * state from any source marks the well, and the first batch or sample named for it is kept.
 */
export function plateWells(size: number | null, contents: readonly WellContent[]): PlateWell[][] {
  const valid = contents.filter(
    (content) =>
      Number.isInteger(content.row) &&
      Number.isInteger(content.column) &&
      content.row > 0 &&
      content.column > 0,
  )
  const { rows, columns } = plateDimensions(size, valid)
  if (rows * columns > largestPlate) {
    throw new RangeError(
      `A plate of ${rows} rows by ${columns} columns is larger than Vault Desk draws (${largestPlate} wells).`,
    )
  }
  const grid = Array.from({ length: rows }, (_, rowIndex) =>
    Array.from({ length: columns }, (_, columnIndex): PlateWell => ({
      row: rowIndex + 1,
      column: columnIndex + 1,
      position: wellPosition(rowIndex + 1, columnIndex + 1),
      batchId: null,
      sampleId: null,
      control: null,
    })),
  )
  for (const content of valid) {
    const well = grid[content.row - 1]![content.column - 1]!
    well.batchId ??= content.batchId ?? null
    well.sampleId ??= content.sampleId ?? null
    well.control ??= content.control ?? null
  }
  return grid
}

export type WellState = 'sample' | 'positive' | 'negative' | 'reference' | 'empty'

export function wellState(well: PlateWell): WellState {
  if (well.control === '+') return 'positive'
  if (well.control === '-') return 'negative'
  if (well.control === '#') return 'reference'
  return well.batchId !== null || well.sampleId !== null ? 'sample' : 'empty'
}

export const wellStateLabels: Record<WellState, string> = {
  sample: 'Compound',
  positive: 'Positive control',
  negative: 'Negative control',
  reference: 'Reference molecule',
  empty: 'Empty',
}
