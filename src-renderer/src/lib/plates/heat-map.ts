/**
 * A plate heat map's model and drawing: the wells of one readout laid on the plate's grid, the
 * geometry of the map with its row and column mean strips, which cell a point falls in, and the
 * drawing on a canvas. A canvas, not an element per well: a 1536-well plate is drawn in a few
 * milliseconds, where as many elements take a layout of their own; the text alternative is the
 * wells table and the focus moves over wells by keyboard (PlateHeatMap.svelte).
 */
import type {
  LineMean,
  PlateWellColumns,
  PlateWellValue,
} from '../../../../src-main/ipc/contract.ts'
import { wellAt, wellCount } from '../../../../src-common/plates/well-columns.ts'
import { pixel } from '../plots/colours.ts'
import { plateDimensions, parseWellPosition, wellPosition } from './plate-layout.ts'
import type { HeatScale } from './heat-scale.ts'

export interface HeatWell {
  row: number
  column: number
  position: string
  /** Where the well's value is in the grid's columns (its first, if read more than once). */
  at: number | null
  /** Further values of the readout in the same well (a repeated read). */
  repeats: number
}

export interface HeatGrid {
  rows: number
  columns: number
  /** Row by row. */
  wells: HeatWell[][]
  /** The values the wells point into, as main sent them. */
  values: PlateWellColumns
  /** Values (by place in the columns) whose label could not be read, or lies off the grid. */
  unplaced: number[]
}

/** Wells larger than this many are not drawn: the grid would not be a plate. */
const largestGrid = 3456

/** The grid of a plate of `size` wells (its standard format) with the values placed on it. */
export function heatGrid(size: number | null, values: PlateWellColumns): HeatGrid {
  const placed: { row: number; column: number; at: number }[] = []
  const unplaced: number[] = []
  for (let at = 0; at < wellCount(values); at += 1) {
    const label = values.well[at]
    const place = label === null || label === undefined ? null : parseWellPosition(label)
    if (place) placed.push({ ...place, at })
    else unplaced.push(at)
  }
  let { rows, columns } = plateDimensions(size, placed)
  if (rows * columns > largestGrid) {
    // A stray label (`ZZ999`) must not make a plate of millions of wells: keep the format.
    ;({ rows, columns } = plateDimensions(size, []))
  }
  const wells = Array.from({ length: rows }, (_, rowIndex) =>
    Array.from({ length: columns }, (_, columnIndex): HeatWell => ({
      row: rowIndex + 1,
      column: columnIndex + 1,
      position: wellPosition(rowIndex + 1, columnIndex + 1),
      at: null,
      repeats: 0,
    })),
  )
  for (const { row, column, at } of placed) {
    const well = wells[row - 1]?.[column - 1]
    if (!well) unplaced.push(at)
    else if (well.at === null) well.at = at
    else well.repeats += 1
  }
  return { rows, columns, wells, values, unplaced }
}

/** The well's value as one object (for words and tables); null for a well without one. */
export function heatValue(grid: HeatGrid, well: HeatWell): PlateWellValue | null {
  return well.at === null ? null : wellAt(grid.values, well.at)
}

/** The number a well is coloured by: an unqualified or qualified number; null for the rest. */
export function drawnNumber(values: PlateWellColumns, at: number | null): number | null {
  return at !== null && values.kind[at] === 'number' ? (values.number[at] ?? null) : null
}

/** The numbers the statistics use (no outliers, no text), that a scale should span. */
export function scaledNumbers(values: PlateWellColumns): number[] {
  const numbers: number[] = []
  for (let at = 0; at < wellCount(values); at += 1) {
    const number = values.number[at]
    if (values.kind[at] === 'number' && number !== null && number !== undefined) {
      if (!values.outlier[at]) numbers.push(number)
    }
  }
  return numbers
}

export interface HeatGeometry {
  /** Device-independent pixels. */
  cell: number
  gap: number
  /** Room for the row letters and column numbers (0 in a thumbnail). */
  axis: number
  /** Distance between the map and its mean strips (0: no strips). */
  stripGap: number
  width: number
  height: number
  strips: boolean
}

/** The map's size: wells sized to the format (smaller in a thumbnail), strips if wanted. */
export function heatGeometry(
  rows: number,
  columns: number,
  options: { thumbnail?: boolean; strips?: boolean } = {},
): HeatGeometry {
  const thumbnail = options.thumbnail ?? false
  const strips = options.strips ?? !thumbnail
  const cell = thumbnail
    ? columns <= 12
      ? 12
      : columns <= 24
        ? 7
        : 4
    : columns <= 12
      ? 32
      : columns <= 24
        ? 20
        : 12
  const gap = thumbnail ? (columns <= 24 ? 1 : 0) : columns <= 24 ? 2 : 1
  const axis = thumbnail ? 0 : 24
  const stripGap = strips ? cell : 0
  const strip = strips ? stripGap + cell : 0
  return {
    cell,
    gap,
    axis,
    stripGap,
    strips,
    width: axis + columns * (cell + gap) + strip,
    height: axis + rows * (cell + gap) + strip,
  }
}

export type HeatTarget =
  | { kind: 'well'; row: number; column: number }
  | { kind: 'row mean'; row: number }
  | { kind: 'column mean'; column: number }

/** What lies at a point of the map (CSS pixels from its top left), or null. */
export function targetAt(
  geometry: HeatGeometry,
  rows: number,
  columns: number,
  x: number,
  y: number,
): HeatTarget | null {
  const pitch = geometry.cell + geometry.gap
  const column = Math.floor((x - geometry.axis) / pitch) + 1
  const row = Math.floor((y - geometry.axis) / pitch) + 1
  const mapWidth = geometry.axis + columns * pitch
  const mapHeight = geometry.axis + rows * pitch
  if (x >= geometry.axis && y >= geometry.axis && column <= columns && row <= rows) {
    return { kind: 'well', row, column }
  }
  if (!geometry.strips) return null
  const stripX = mapWidth + geometry.stripGap
  const stripY = mapHeight + geometry.stripGap
  if (x >= stripX && x < stripX + geometry.cell && row >= 1 && row <= rows) {
    return { kind: 'row mean', row }
  }
  if (y >= stripY && y < stripY + geometry.cell && column >= 1 && column <= columns) {
    return { kind: 'column mean', column }
  }
  return null
}

export interface HeatColours {
  /** Behind the wells. */
  background: string
  /** A well without a number. */
  empty: string
  /** Lines and marks on the wells. */
  ink: string
  /** The halo that keeps marks readable on dark colours. */
  halo: string
  axis: string
  focus: string
  pending: string
}

export interface HeatDrawing {
  grid: HeatGrid
  scale: HeatScale | null
  geometry: HeatGeometry
  /** Device pixels per CSS pixel: the context is scaled by it, the wells' pixels are written at it. */
  ratio: number
  colours: HeatColours
  rowMeans: readonly LineMean[]
  columnMeans: readonly LineMean[]
  /** Outlined with the keyboard focus ring. */
  focused: { row: number; column: number } | null
  selected: { row: number; column: number } | null
  font: string
}

/** The wells coloured by the scale, as pixels to put on the map's canvas at one go. */
export interface WellPixels {
  /** RGBA, row by row: each well with a number a solid block of its colour, the rest clear. */
  data: Uint8ClampedArray<ArrayBuffer>
  /** Where the block goes on the canvas, and its size, in device pixels. */
  left: number
  top: number
  width: number
  height: number
}

/**
 * The wells that have a number, each filled with its colour at `ratio` device pixels per CSS
 * pixel (edges rounded to whole device pixels), over the box of the grid: one putImageData
 * instead of a fillRect and a colour parsed per well.
 */
export function wellPixels(
  grid: HeatGrid,
  scale: HeatScale,
  geometry: HeatGeometry,
  ratio: number,
): WellPixels {
  const { cell, gap, axis } = geometry
  const pitch = cell + gap
  const device = (css: number) => Math.round(css * ratio)
  const left = device(axis)
  const top = device(axis)
  const width = Math.max(1, device(axis + grid.columns * pitch) - left)
  const height = Math.max(1, device(axis + grid.rows * pitch) - top)
  const data = new Uint8ClampedArray(width * height * 4)
  const words = new Uint32Array(data.buffer)
  for (const row of grid.wells) {
    for (const well of row) {
      const number = drawnNumber(grid.values, well.at)
      if (number === null) continue
      const word = pixel(scale.rgb(number))
      const x0 = device(axis + (well.column - 1) * pitch) - left
      const x1 = Math.min(width, device(axis + (well.column - 1) * pitch + cell) - left)
      const y0 = device(axis + (well.row - 1) * pitch) - top
      const y1 = Math.min(height, device(axis + (well.row - 1) * pitch + cell) - top)
      for (let y = y0; y < y1; y += 1) words.fill(word, y * width + x0, y * width + x1)
    }
  }
  return { data, left, top, width, height }
}

/**
 * Draws the map: each well in its value's colour, controls outlined (positive: a solid ring;
 * negative: a double ring; reference: a dotted ring), outliers crossed, wells left out of the
 * statistics for another reason struck through, a dot on wells with a correction waiting; then
 * the row and column means in the same colours; then the axes and the focus.
 */
export function drawHeatMap(context: CanvasRenderingContext2D, drawing: HeatDrawing): void {
  const { grid, scale, geometry, colours } = drawing
  const { cell, gap, axis } = geometry
  const pitch = cell + gap
  context.clearRect(0, 0, geometry.width, geometry.height)
  // The coloured wells go first, written as pixels at one go (putImageData replaces what lies
  // under it); the wells without a colour are filled together, each kind of ring drawn with its
  // style set once, and the marks come after every fill, each inside its own well.
  if (scale) {
    const wells = wellPixels(grid, scale, geometry, drawing.ratio)
    const image = new ImageData(wells.data, wells.width, wells.height)
    context.putImageData(image, wells.left, wells.top)
  }
  const ring = Math.max(1, Math.round(cell / 10))
  const empty: number[] = []
  const rings: Record<'solid' | 'dashed' | 'halo', number[]> = { solid: [], dashed: [], halo: [] }
  const values = grid.values
  const marked: { x: number; y: number; at: number }[] = []
  for (const row of grid.wells) {
    for (const well of row) {
      const x = axis + (well.column - 1) * pitch
      const y = axis + (well.row - 1) * pitch
      const { at } = well
      if (scale === null || drawnNumber(values, at) === null) empty.push(x, y)
      if (at === null) continue
      const control = values.controlState[at]?.trim() ?? ''
      if (control === '+' || control === '-' || control === '#') {
        rings[control === '#' ? 'dashed' : 'solid'].push(x + ring / 2, y + ring / 2)
        if (control === '-' && cell >= 6) rings.halo.push(x + ring * 1.5, y + ring * 1.5)
      }
      if (crossed(values, at) || (values.pending[at] && cell >= 6)) marked.push({ x, y, at })
    }
  }
  context.fillStyle = colours.empty
  for (let at = 0; at < empty.length; at += 2)
    context.fillRect(empty[at]!, empty[at + 1]!, cell, cell)
  context.lineWidth = ring
  for (const [kind, style, size] of [
    ['solid', colours.ink, cell - ring],
    ['dashed', colours.ink, cell - ring],
    ['halo', colours.halo, cell - ring * 3],
  ] as const) {
    const corners = rings[kind]
    context.strokeStyle = style
    context.setLineDash(kind === 'dashed' ? [ring, ring] : [])
    for (let at = 0; at < corners.length; at += 2) {
      context.strokeRect(corners[at]!, corners[at + 1]!, size, size)
    }
  }
  context.setLineDash([])
  for (const { x, y, at } of marked) {
    if (values.outlier[at]) {
      cross(context, x, y, cell, colours, true)
    } else if (crossed(values, at)) {
      cross(context, x, y, cell, colours, false)
    }
    if (values.pending[at] && cell >= 6) {
      const radius = Math.max(1.5, cell / 7)
      context.fillStyle = colours.pending
      context.beginPath()
      context.arc(x + cell - radius - 1, y + radius + 1, radius, 0, Math.PI * 2)
      context.fill()
    }
  }
  if (geometry.strips) {
    const stripX = axis + grid.columns * pitch + geometry.stripGap
    const stripY = axis + grid.rows * pitch + geometry.stripGap
    for (const line of drawing.rowMeans) {
      if (line.index > grid.rows) continue
      context.fillStyle =
        line.mean === null || scale === null ? colours.empty : scale.colour(line.mean)
      context.fillRect(stripX, axis + (line.index - 1) * pitch, cell, cell)
    }
    for (const line of drawing.columnMeans) {
      if (line.index > grid.columns) continue
      context.fillStyle =
        line.mean === null || scale === null ? colours.empty : scale.colour(line.mean)
      context.fillRect(axis + (line.index - 1) * pitch, stripY, cell, cell)
    }
  }
  if (axis > 0) {
    context.fillStyle = colours.axis
    context.font = drawing.font
    context.textAlign = 'center'
    context.textBaseline = 'middle'
    const every = grid.columns > 24 ? 4 : grid.columns > 12 ? 2 : 1
    for (let column = 1; column <= grid.columns; column += 1) {
      if (column !== 1 && column % every !== 0) continue
      context.fillText(String(column), axis + (column - 1) * pitch + cell / 2, axis / 2)
    }
    const everyRow = grid.rows > 16 ? 2 : 1
    for (let row = 1; row <= grid.rows; row += 1) {
      if (row !== 1 && row % everyRow !== 0) continue
      context.fillText(
        wellPosition(row, 1).replace(/\d+$/, ''),
        axis / 2,
        axis + (row - 1) * pitch + cell / 2,
      )
    }
  }
  for (const [place, colour, width] of [
    [drawing.selected, colours.ink, 2],
    [drawing.focused, colours.focus, 2],
  ] as const) {
    if (!place) continue
    context.lineWidth = width
    context.strokeStyle = colour
    context.strokeRect(
      axis + (place.column - 1) * pitch - width / 2 - 1,
      axis + (place.row - 1) * pitch - width / 2 - 1,
      cell + width + 2,
      cell + width + 2,
    )
  }
}

/** Crossed out: an outlier, or a value the statistics leave out for another reason. */
function crossed(values: PlateWellColumns, at: number): boolean {
  return values.outlier[at] === true || (values.excluded[at] != null && values.kind[at] !== 'empty')
}

function cross(
  context: CanvasRenderingContext2D,
  x: number,
  y: number,
  cell: number,
  colours: HeatColours,
  both: boolean,
): void {
  const inset = Math.max(1, cell / 5)
  const paths: [number, number, number, number][] = [
    [x + inset, y + cell - inset, x + cell - inset, y + inset],
  ]
  if (both) paths.push([x + inset, y + inset, x + cell - inset, y + cell - inset])
  for (const [stroke, width] of [
    [colours.halo, Math.max(2, cell / 6)],
    [colours.ink, Math.max(1, cell / 14)],
  ] as const) {
    context.strokeStyle = stroke
    context.lineWidth = width
    context.beginPath()
    for (const [x1, y1, x2, y2] of paths) {
      context.moveTo(x1, y1)
      context.lineTo(x2, y2)
    }
    context.stroke()
  }
}
