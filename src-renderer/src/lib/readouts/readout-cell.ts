/**
 * One cell of a readout row, as docs/spec/gaps.md describes it: an optional value (number or text),
 * an optional qualifier (`<` or `>`, "below / above the measurable range"), an outlier flag and a
 * note. A cell may carry a note and no value.
 */
import { formatMeasure } from '../../../../src-common/format/numbers.ts'
import { isSet, isObject, toNumber, toText } from '../../../../src-common/values.ts'

export type Qualifier = '<' | '>'

export interface ReadoutCell {
  value: number | string | null
  qualifier: Qualifier | null
  outlier: boolean
  note: string | null
}

/** What a cell's column knows about its values (from the protocol's readout definition). */
export interface ReadoutFormat {
  /** Decimals to show; 2 when the protocol does not say. */
  precision?: number | null
  unit?: string | null
}

const qualifiers: Record<string, Qualifier> = { '<': '<', '>': '>', '≤': '<', '≥': '>' }

/** Reads a cell; null when there is nothing in it at all. */
export function readCell(raw: unknown): ReadoutCell | null {
  const cell = isObject(raw) ? raw : { value: raw }
  const number = toNumber(cell.value)
  const value = typeof cell.value === 'number' || number !== null ? number : toText(cell.value)
  const qualifier = qualifiers[String(cell.modifier ?? '').trim()] ?? null
  const outlier = isSet(cell.outlier)
  const note = toText(cell.note)
  if (value === null && note === null && !outlier) return null
  return { value, qualifier, outlier, note }
}

/** The value as shown in a table: "< 0.123", "47.7", "inactive"; empty when there is none. */
export function formatCellValue(cell: ReadoutCell, format: ReadoutFormat = {}): string {
  if (cell.value === null) return ''
  const text =
    typeof cell.value === 'number' ? formatMeasure(cell.value, format.precision ?? 2) : cell.value
  return cell.qualifier ? `${cell.qualifier} ${text}` : text
}

/** Read aloud in place of the marks: "< 0.123 uM, outlier, note: pipetting error". */
export function describeCell(cell: ReadoutCell, format: ReadoutFormat = {}): string {
  const parts: string[] = []
  const value = formatCellValue(cell, format)
  if (value) parts.push(format.unit ? `${value} ${format.unit}` : value)
  else parts.push('no value')
  if (cell.outlier) parts.push('outlier')
  if (cell.note) parts.push(`note: ${cell.note}`)
  return parts.join(', ')
}

/** What a column of cells sorts by: the number (qualified or not), else the text. */
export function cellSortValue(cell: ReadoutCell | null): number | string | null {
  return cell?.value ?? null
}
