/**
 * Positions on a grid of rows and columns, labelled as the vault labels plate wells and the places
 * of an inventory box: `A01` is row 1, column 1; rows after Z go on AA, AB...; the column has at
 * least two digits. Shared by plate well lists and sample placement, in the window and the CLI.
 */

export interface GridSize {
  rows: number
  columns: number
}

export interface GridPosition {
  /** 1-based. */
  row: number
  column: number
}

export function gridRowLabel(row: number): string {
  let label = ''
  for (let rest = row; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    label = String.fromCharCode(65 + ((rest - 1) % 26)) + label
  }
  return label
}

export function gridLabel(position: GridPosition): string {
  return `${gridRowLabel(position.row)}${String(position.column).padStart(2, '0')}`
}

/** Reads `A01`, `a1`, `B 7` or `AF48`; null when the text is no position label at all. */
export function readGridLabel(text: string): GridPosition | null {
  const match = /^\s*([A-Za-z]{1,2})\s*0*(\d{1,4})\s*$/.exec(text)
  if (!match) return null
  const row = [...match[1]!.toUpperCase()].reduce(
    (sum, letter) => sum * 26 + letter.charCodeAt(0) - 64,
    0,
  )
  const column = Number(match[2])
  return column > 0 ? { row, column } : null
}

export function isOnGrid(position: GridPosition, grid: GridSize): boolean {
  return (
    position.row >= 1 &&
    position.row <= grid.rows &&
    position.column >= 1 &&
    position.column <= grid.columns
  )
}

/** The last label of a grid (`H12` on 8 × 12), for messages that say what would fit. */
export function lastGridLabel(grid: GridSize): string {
  return gridLabel({ row: grid.rows, column: grid.columns })
}

export type GridLabelReading =
  { ok: true; position: GridPosition; label: string } | { ok: false; message: string }

/** A position given by a person, read and checked against the grid, or why it is refused. */
export function readPositionOn(text: string, grid: GridSize, what: string): GridLabelReading {
  const position = readGridLabel(text)
  if (!position) {
    return {
      ok: false,
      message: `${JSON.stringify(text.trim())} is not a position: give a row letter and a column number, such as A01.`,
    }
  }
  const label = gridLabel(position)
  if (!isOnGrid(position, grid)) {
    return {
      ok: false,
      message: `${label} is not on ${what} (${grid.rows} rows × ${grid.columns} columns, A01 to ${lastGridLabel(grid)}).`,
    }
  }
  return { ok: true, position, label }
}
