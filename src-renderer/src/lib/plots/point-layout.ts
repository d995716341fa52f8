/**
 * The points of a scatter plot made ready to draw, hit-test and select: every row with an x and a
 * y its scales can place, in unit coordinates, in the spatial grid's order (see spatial-grid.ts),
 * with its colour and size positions and whether a plotted value is qualified (`<`, `>`).
 *
 * Rows left out are counted by reason, first reason first (no x, no y, x ≤ 0 on a log axis,
 * y ≤ 0 on a log axis), so the plot can say what it does not show; a colour or size column's
 * missing values are drawn in the "no value" colour or size and counted too.
 */
import { columnExtent, placeable, scaleOf, type Scale, type ScaleKind } from './scales.ts'
import { gridOrder, type GridOrder } from './spatial-grid.ts'

/** One column of a plot: the values of every row, as `results.points` answers them. */
export interface PlotColumn {
  /** What axes, legends and tooltips call it. */
  label: string
  unit?: string | null
  values: ArrayLike<number | null>
  /** A qualified value's modifier (`<`, `>`, `<=`...), else null. */
  modifiers?: ArrayLike<string | null> | null
  /** How the column is best read (concentrations: log); the reader may switch. */
  scale?: ScaleKind
}

export interface PointColumns {
  ids: ArrayLike<number>
  x: PlotColumn
  y: PlotColumn
  colour?: PlotColumn | null
  size?: PlotColumn | null
}

export interface PointScales {
  x: ScaleKind
  y: ScaleKind
  colour?: ScaleKind
  size?: ScaleKind
}

/** Colour and size positions run 0..255; this one means "no value". */
export const noValue = 256

export interface LeftOut {
  missingX: number
  missingY: number
  nonPositiveX: number
  nonPositiveY: number
}

export interface PointLayout {
  /** Rows in the input. */
  total: number
  /** Points shown. */
  count: number
  /** Each shown point's row in the input, in grid order. */
  rows: Uint32Array
  u: Float64Array
  v: Float64Array
  /** Position along the colour scale, 0..255, or `noValue`; null without a colour column. */
  colour: Uint16Array | null
  size: Uint16Array | null
  /** 1 where any plotted value of the point is qualified. */
  qualified: Uint8Array
  qualifiedCount: number
  /** Null when no row has a value the scale can place. */
  xScale: Scale | null
  yScale: Scale | null
  colourScale: Scale | null
  sizeScale: Scale | null
  leftOut: LeftOut
  /** Shown points without a colour (or size) value the scale can place. */
  colourMissing: number
  sizeMissing: number
  grid: GridOrder
}

function isQualified(modifiers: ArrayLike<string | null>, row: number): boolean {
  const modifier = modifiers[row]
  return typeof modifier === 'string' && modifier !== '' && modifier !== '='
}

/**
 * A column's values as doubles, NaN where there is none: read once, since reading a plain array
 * that mixes numbers and nulls costs several times as much as a typed array, and a layout reads
 * each value two or three times.
 */
function numbers(values: ArrayLike<number | null>): Float64Array {
  if (values instanceof Float64Array) return values
  const result = new Float64Array(values.length)
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index]
    result[index] = typeof value === 'number' ? value : Number.NaN
  }
  return result
}

/** Positions along an optional column's scale: 0..255, or noValue. */
function positions(
  column: PlotColumn | null | undefined,
  kind: ScaleKind,
  rows: Uint32Array,
  count: number,
): { scale: Scale | null; positions: Uint16Array | null; missing: number } {
  if (!column) return { scale: null, positions: null, missing: 0 }
  const values = numbers(column.values)
  const scale = scaleOf(columnExtent(values, kind), kind, 0)
  const result = new Uint16Array(count)
  let missing = 0
  for (let position = 0; position < count; position += 1) {
    const value = values[rows[position]!]!
    if (scale === null || !placeable(value, kind)) {
      result[position] = noValue
      missing += 1
    } else {
      const t = scale.toUnit(value)
      result[position] = Math.round(Math.min(1, Math.max(0, t)) * 255)
    }
  }
  return { scale, positions: result, missing }
}

export function layoutPoints(columns: PointColumns, scales: PointScales): PointLayout {
  const { ids, x, y } = columns
  const total = ids.length
  for (const [name, column] of [
    ['x', x],
    ['y', y],
    ['colour', columns.colour],
    ['size', columns.size],
  ] as const) {
    if (column && column.values.length !== total) {
      throw new Error(
        `The ${name} column "${column.label}" has ${column.values.length} values for ${total} points.`,
      )
    }
  }
  const xValues = numbers(x.values)
  const yValues = numbers(y.values)
  const xScale = scaleOf(columnExtent(xValues, scales.x), scales.x)
  const yScale = scaleOf(columnExtent(yValues, scales.y), scales.y)
  const leftOut: LeftOut = { missingX: 0, missingY: 0, nonPositiveX: 0, nonPositiveY: 0 }
  const shownRows = new Uint32Array(total)
  let shown = 0
  for (let row = 0; row < total; row += 1) {
    const xValue = xValues[row]!
    const yValue = yValues[row]!
    if (!Number.isFinite(xValue)) leftOut.missingX += 1
    else if (!Number.isFinite(yValue)) leftOut.missingY += 1
    else if (scales.x === 'log' && xValue <= 0) leftOut.nonPositiveX += 1
    else if (scales.y === 'log' && yValue <= 0) leftOut.nonPositiveY += 1
    else shownRows[shown++] = row
  }
  const count = xScale && yScale ? shown : 0
  const rawU = new Float64Array(count)
  const rawV = new Float64Array(count)
  for (let index = 0; index < count; index += 1) {
    const row = shownRows[index]!
    rawU[index] = xScale!.toUnit(xValues[row]!)
    rawV[index] = yScale!.toUnit(yValues[row]!)
  }
  const grid = gridOrder(rawU, rawV, count)
  const rows = new Uint32Array(count)
  const u = new Float64Array(count)
  const v = new Float64Array(count)
  for (let position = 0; position < count; position += 1) {
    const index = grid.order[position]!
    rows[position] = shownRows[index]!
    u[position] = rawU[index]!
    v[position] = rawV[index]!
  }
  const colour = positions(columns.colour, scales.colour ?? 'linear', rows, count)
  const size = positions(columns.size, scales.size ?? 'linear', rows, count)
  const qualified = new Uint8Array(count)
  let qualifiedCount = 0
  const modifierColumns = [x, y, columns.colour, columns.size].flatMap((column) =>
    column?.modifiers ? [column.modifiers] : [],
  )
  for (let position = 0; position < count; position += 1) {
    const row = rows[position]!
    for (const modifiers of modifierColumns) {
      if (isQualified(modifiers, row)) {
        qualified[position] = 1
        qualifiedCount += 1
        break
      }
    }
  }
  return {
    total,
    count,
    rows,
    u,
    v,
    colour: colour.positions,
    size: size.positions,
    qualified,
    qualifiedCount,
    xScale,
    yScale,
    colourScale: colour.scale,
    sizeScale: size.scale,
    leftOut,
    colourMissing: colour.missing,
    sizeMissing: size.missing,
    grid,
  }
}
