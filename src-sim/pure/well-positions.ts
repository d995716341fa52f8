/**
 * Microplate geometry: standard formats and well labels. Rows and columns count from 1; the label
 * of row 1, column 1 is `A01`, rows after Z continue AA, AB, ... (1536-well plates have 32 rows).
 */

export interface PlateFormat {
  size: number
  rows: number
  columns: number
}

const PLATE_FORMATS: readonly PlateFormat[] = [
  { size: 6, rows: 2, columns: 3 },
  { size: 12, rows: 3, columns: 4 },
  { size: 24, rows: 4, columns: 6 },
  { size: 48, rows: 6, columns: 8 },
  { size: 96, rows: 8, columns: 12 },
  { size: 384, rows: 16, columns: 24 },
  { size: 1536, rows: 32, columns: 48 },
]

export interface WellPosition {
  row: number
  col: number
}

export function plateFormat(size: number): PlateFormat | undefined {
  return PLATE_FORMATS.find((format) => format.size === size)
}

export function rowLabel(row: number): string {
  if (!Number.isInteger(row) || row < 1) throw new Error(`row ${row} is not a positive integer`)
  return row <= 26
    ? String.fromCharCode(64 + row)
    : String.fromCharCode(64 + Math.floor((row - 1) / 26)) +
        String.fromCharCode(65 + ((row - 1) % 26))
}

export function wellLabel(position: WellPosition, format: PlateFormat): string {
  const digits = String(format.columns).length
  return rowLabel(position.row) + String(position.col).padStart(Math.max(2, digits), '0')
}

/**
 * Reads `A01`, `A1`, `a1` or `AF48`; returns undefined for anything that is not a well of the
 * format, so that callers can name the offending label.
 */
export function parseWellLabel(label: string, format: PlateFormat): WellPosition | undefined {
  const match = /^([A-Za-z]{1,2})0*(\d+)$/.exec(label.trim())
  if (!match) return undefined
  const letters = match[1]!.toUpperCase()
  const row =
    letters.length === 1
      ? letters.charCodeAt(0) - 64
      : (letters.charCodeAt(0) - 64) * 26 + (letters.charCodeAt(1) - 64)
  const col = Number(match[2])
  return isOnPlate({ row, col }, format) ? { row, col } : undefined
}

export function isOnPlate(position: WellPosition, format: PlateFormat): boolean {
  return (
    Number.isInteger(position.row) &&
    Number.isInteger(position.col) &&
    position.row >= 1 &&
    position.row <= format.rows &&
    position.col >= 1 &&
    position.col <= format.columns
  )
}
