/**
 * The points of a results plot made from what `results.points` answered: the molecules of the
 * scope with a number in the table's readouts and within its ranges (the table's rows that a plot
 * can place), each column over them as doubles (NaN where a molecule has none). A range keeps a
 * molecule as the table's range filter does, qualified values by the index's own rule
 * (`meetsComparison`), so the plot and the table agree on which molecules they hold.
 */
import {
  meetsComparison,
  type Comparison,
  type IndexedCell,
} from '../../../../src-common/analysis/readouts/comparisons.ts'
import type { Modifier } from '../../../../src-common/analysis/readouts/readout-value.ts'
import type { PlotColumn } from '../plots/point-layout.ts'
import type { ChosenAxes, PlotChoice, PointColumn } from './plot-columns.ts'
import {
  columnOfKey,
  isPropertyKey,
  type ColumnKey,
  type ColumnRange,
  type PlotColumnKey,
} from './results-address.ts'

/** One column as `results.points` answers it, over every molecule of the scope. */
export interface RawColumn {
  values: readonly (number | null)[]
  modifiers: readonly (string | null)[]
}

/** One column over the plotted molecules: NaN where a molecule has none. */
export interface PlotValues {
  values: Float64Array
  modifiers: readonly (string | null)[]
}

/** The molecules a plot shows and their columns, all read for one request. */
export interface PlotPoints {
  /** The plotted molecules, ascending. */
  ids: Float64Array
  columns: ReadonlyMap<PlotColumnKey, PlotValues>
  /** The axes these points were read for. */
  axes: ChosenAxes
  /** Molecules in the scope, with a number in the readouts or not. */
  inScope: number
}

/** What decides a plot's molecules and columns. */
export interface PointsSpec {
  axes: ChosenAxes
  /** A molecule needs a number in one of these readouts. */
  members: readonly ColumnKey[]
  ranges: readonly ColumnRange[]
}

/** Every column a spec needs read: its axes', its readouts' and its ranges'. */
export function columnsOf(spec: PointsSpec): PlotColumnKey[] {
  const { x, y, colour, size, histogram } = spec.axes
  const keys = [
    ...[x, y, colour, size, histogram].flatMap((choice) => (choice ? [choice.key] : [])),
    ...spec.members,
    ...spec.ranges.map((range) => range.column),
  ]
  return [...new Set(keys)]
}

/** A column as `results.points` takes it. */
export function pointColumnOf(key: PlotColumnKey): PointColumn {
  if (isPropertyKey(key)) return { property: key }
  const column = columnOfKey(key)
  if (!column) throw new Error(`No plot column ${key}.`)
  return column
}

/**
 * The points of a spec over the molecules `ids` (as read, every column in `read` parallel to
 * them). Columns equal to those of `before` keep their objects, so that a plot given them again
 * keeps its zoom and the scales its reader chose.
 */
export function plotPoints(
  ids: readonly number[],
  read: ReadonlyMap<PlotColumnKey, RawColumn>,
  spec: PointsSpec,
  before: PlotPoints | null,
): PlotPoints {
  const members = spec.members.flatMap((key) => read.get(key) ?? [])
  const ranges = spec.ranges.flatMap((range) => {
    const column = read.get(range.column)
    return column ? [{ column, comparison: rangeComparison(range) }] : []
  })
  const rows: number[] = []
  for (let row = 0; row < ids.length; row += 1) {
    if (!members.some((column) => typeof column.values[row] === 'number')) continue
    if (ranges.every(({ column, comparison }) => meetsComparison(comparison, cellOf(column, row))))
      rows.push(row)
  }
  const columns = new Map<PlotColumnKey, PlotValues>()
  for (const key of columnsOf(spec)) {
    const raw = read.get(key)
    if (!raw) continue
    const values = Float64Array.from(rows, (row) => raw.values[row] ?? Number.NaN)
    const modifiers = rows.map((row) => raw.modifiers[row] ?? null)
    const kept = before?.columns.get(key)
    columns.set(
      key,
      kept && sameNumbers(kept.values, values) && sameList(kept.modifiers, modifiers)
        ? kept
        : { values, modifiers },
    )
  }
  const plotted = Float64Array.from(rows, (row) => ids[row]!)
  return {
    ids: before && sameNumbers(before.ids, plotted) ? before.ids : plotted,
    columns,
    axes: spec.axes,
    inScope: ids.length,
  }
}

/**
 * Columns as a plot takes them, the same object for the same values and choice (a new object
 * would make the plot show its whole extent again and forget its log scales).
 */
export class PlotColumns {
  readonly #made = new WeakMap<PlotValues, Map<string, PlotColumn>>()

  of(choice: PlotChoice, values: PlotValues): PlotColumn {
    const made = this.#made.get(values) ?? new Map<string, PlotColumn>()
    this.#made.set(values, made)
    const key = `${choice.label}\u0000${choice.unit ?? ''}\u0000${choice.scale}`
    let column = made.get(key)
    if (!column) {
      column = {
        label: choice.label,
        unit: choice.unit,
        values: values.values,
        modifiers: values.modifiers,
        scale: choice.scale,
      }
      made.set(key, column)
    }
    return column
  }
}

export function sameList<T>(first: readonly T[], second: readonly T[]): boolean {
  if (first === second) return true
  if (first.length !== second.length) return false
  for (let index = 0; index < first.length; index += 1) {
    if (first[index] !== second[index]) return false
  }
  return true
}

/** Equal element by element, NaN equal to NaN (no value). */
function sameNumbers(first: Float64Array, second: Float64Array): boolean {
  if (first.length !== second.length) return false
  for (let index = 0; index < first.length; index += 1) {
    const [a, b] = [first[index]!, second[index]!]
    if (a !== b && !(Number.isNaN(a) && Number.isNaN(b))) return false
  }
  return true
}

/** A table's range as the index compares it: both ends inclusive. */
function rangeComparison(range: ColumnRange): Comparison {
  return {
    kind: 'range',
    scale: 'number',
    lower: range.min === null ? null : { value: range.min, inclusive: true },
    upper: range.max === null ? null : { value: range.max, inclusive: true },
  }
}

const modifiers: readonly string[] = ['<', '<=', '>', '>=', '~']

function cellOf(column: RawColumn, row: number): IndexedCell {
  const number = column.values[row]
  if (typeof number !== 'number') return { kind: 'empty', number: null, modifier: null, text: null }
  const modifier = column.modifiers[row] ?? null
  return {
    kind: 'number',
    number,
    modifier: modifier !== null && modifiers.includes(modifier) ? (modifier as Modifier) : null,
    text: null,
  }
}
