/**
 * A plate's layout (what each well holds) drawn on a canvas, for plates too large to lay out as
 * one element per well: 1536 focusable elements took about 300 ms of a 1536-well plate page's
 * first draw, where the canvas takes a few milliseconds. The geometry is the heat map's, so the
 * two maps of a plate line up; the keyboard moves a focus over the wells (PlateMap.svelte).
 */
import { heatGeometry, type HeatGeometry } from './heat-map.ts'
import { rowLabel, wellState, type PlateWell, type WellState } from './plate-layout.ts'

/** Plates up to this many wells are laid out as elements, one per well; larger ones drawn. */
export const largestElementLayout = 384

export function layoutDrawn(wells: readonly (readonly PlateWell[])[]): boolean {
  return wells.length * (wells[0]?.length ?? 0) > largestElementLayout
}

export function layoutGeometry(rows: number, columns: number): HeatGeometry {
  return heatGeometry(rows, columns, { strips: false })
}

export interface LayoutColours {
  fill: Record<WellState, string>
  border: Record<WellState, string>
  axis: string
  focus: string
  selected: string
}

export interface LayoutDrawing {
  wells: readonly (readonly PlateWell[])[]
  geometry: HeatGeometry
  colours: LayoutColours
  font: string
  focused: { row: number; column: number } | null
  selected: { row: number; column: number } | null
}

const states: readonly WellState[] = ['sample', 'positive', 'negative', 'reference', 'empty']

/**
 * Draws each well as a circle in its state's colours, as the element layout does (empty wells
 * with a dashed outline), one path per state; then the axes, the selected well and the focus.
 */
export function drawLayoutMap(context: CanvasRenderingContext2D, drawing: LayoutDrawing): void {
  const { wells, geometry, colours } = drawing
  const { cell, gap, axis } = geometry
  const pitch = cell + gap
  const radius = cell / 2 - 0.5
  const rows = wells.length
  const columns = wells[0]?.length ?? 0
  context.clearRect(0, 0, geometry.width, geometry.height)
  const centres = new Map<WellState, number[]>(states.map((state) => [state, []]))
  for (const row of wells) {
    for (const well of row) {
      centres
        .get(wellState(well))!
        .push(axis + (well.column - 1) * pitch + cell / 2, axis + (well.row - 1) * pitch + cell / 2)
    }
  }
  context.lineWidth = 1
  for (const state of states) {
    const points = centres.get(state)!
    if (points.length === 0) continue
    context.beginPath()
    for (let at = 0; at < points.length; at += 2) {
      context.moveTo(points[at]! + radius, points[at + 1]!)
      context.arc(points[at]!, points[at + 1]!, radius, 0, Math.PI * 2)
    }
    context.fillStyle = colours.fill[state]
    context.fill()
    context.strokeStyle = colours.border[state]
    context.setLineDash(state === 'empty' ? [2, 2] : [])
    context.stroke()
  }
  context.setLineDash([])
  if (axis > 0) {
    context.fillStyle = colours.axis
    context.font = drawing.font
    context.textAlign = 'center'
    context.textBaseline = 'middle'
    const every = columns > 24 ? 4 : columns > 12 ? 2 : 1
    for (let column = 1; column <= columns; column += 1) {
      if (column !== 1 && column % every !== 0) continue
      context.fillText(String(column), axis + (column - 1) * pitch + cell / 2, axis / 2)
    }
    const everyRow = rows > 16 ? 2 : 1
    for (let row = 1; row <= rows; row += 1) {
      if (row !== 1 && row % everyRow !== 0) continue
      context.fillText(rowLabel(row), axis / 2, axis + (row - 1) * pitch + cell / 2)
    }
  }
  for (const [place, colour] of [
    [drawing.selected, colours.selected],
    [drawing.focused, colours.focus],
  ] as const) {
    if (!place) continue
    context.lineWidth = 2
    context.strokeStyle = colour
    context.strokeRect(
      axis + (place.column - 1) * pitch - 2,
      axis + (place.row - 1) * pitch - 2,
      cell + 4,
      cell + 4,
    )
  }
}

/**
 * Where a key moves a focus on a grid of `rows` by `columns` (1-based): arrows one well, Home and
 * End to the row's ends, Page Up and Down to the column's; the focus stays put at an edge. Null for
 * keys that do not move it.
 */
export function keyMove(
  key: string,
  at: { row: number; column: number },
  rows: number,
  columns: number,
): { row: number; column: number } | null {
  const moves: Record<string, [number, number]> = {
    ArrowRight: [at.row, at.column + 1],
    ArrowLeft: [at.row, at.column - 1],
    ArrowDown: [at.row + 1, at.column],
    ArrowUp: [at.row - 1, at.column],
    Home: [at.row, 1],
    End: [at.row, columns],
    PageUp: [1, at.column],
    PageDown: [rows, at.column],
  }
  const move = moves[key]
  if (!move) return null
  const [row, column] = move
  return {
    row: Math.min(Math.max(row, 1), rows),
    column: Math.min(Math.max(column, 1), columns),
  }
}
