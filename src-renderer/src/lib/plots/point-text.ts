/**
 * The words a plot says about its points: a point's values for its tooltip, table row and screen
 * reader, an axis title, and what the plot leaves out and why.
 */
import type { LeftOut, PlotColumn } from './point-layout.ts'
import type { ScaleKind } from './scales.ts'
import { formatValue } from './ticks.ts'

const count = new Intl.NumberFormat('en-US')

export function formatCount(value: number): string {
  return count.format(value)
}

/** A column's value in a row as written for a person: "> 30,000", "2.51", or "no value". */
export function cellText(column: PlotColumn, row: number): string {
  const value = column.values[row]
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'no value'
  const modifier = column.modifiers?.[row]
  const text = formatValue(value)
  return modifier && modifier !== '=' ? `${modifier} ${text}` : text
}

/** "Molecular weight (g/mol)". */
export function columnTitle(column: PlotColumn): string {
  return column.unit ? `${column.label} (${column.unit})` : column.label
}

/** An axis title: the column's, and "log scale" where it is one. */
export function axisTitle(column: PlotColumn, scale: ScaleKind): string {
  return scale === 'log' ? `${columnTitle(column)}, log scale` : columnTitle(column)
}

/** "Molecular weight 342 g/mol" (the unit after the value, as it is read aloud). */
export function valueWithUnit(column: PlotColumn, row: number): string {
  const text = cellText(column, row)
  return column.unit && text !== 'no value' ? `${text} ${column.unit}` : text
}

/** A point described in one sentence: "VD-000123: Molecular weight 342 g/mol, logP 2.5." */
export function describePoint(name: string, columns: readonly PlotColumn[], row: number): string {
  const values = columns.map((column) => `${column.label} ${valueWithUnit(column, row)}`)
  return `${name}: ${values.join(', ')}.`
}

function plural(value: number, one: string, many: string): string {
  return `${formatCount(value)} ${value === 1 ? one : many}`
}

/**
 * What a plot leaves out, one sentence per reason, in the words of the columns: "12 molecules
 * without a value for logP." "3 with IC50 at or below zero, which a log axis cannot show."
 */
export function leftOutSentences(
  leftOut: LeftOut,
  x: PlotColumn,
  y: PlotColumn,
  noun: readonly [one: string, many: string] = ['point', 'points'],
): string[] {
  const sentences: string[] = []
  const without = (value: number, column: PlotColumn) =>
    `${plural(value, noun[0], noun[1])} without a value for ${column.label}.`
  const nonPositive = (value: number, column: PlotColumn) =>
    `${plural(value, noun[0], noun[1])} with ${column.label} at or below zero, which a log axis cannot show.`
  if (leftOut.missingX > 0) sentences.push(without(leftOut.missingX, x))
  if (leftOut.missingY > 0) sentences.push(without(leftOut.missingY, y))
  if (leftOut.nonPositiveX > 0) sentences.push(nonPositive(leftOut.nonPositiveX, x))
  if (leftOut.nonPositiveY > 0) sentences.push(nonPositive(leftOut.nonPositiveY, y))
  return sentences
}
