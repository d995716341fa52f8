/**
 * An aggregate as a results table shows it: its modifier kept (`>30`, `<0.0137`), numbers to
 * three significant digits (whole numbers from a thousand up), text as given (`ND`), and in words
 * for screen readers with its n and whether it is the vault's own value or computed here.
 */
import type { ResultsCell } from '../../../../src-common/analysis/readouts/results-table.ts'
import { formatMeasure, formatSignificant } from '../../../../src-common/format/numbers.ts'

const signs: Record<string, string> = { '<': '<', '<=': '≤', '>': '>', '>=': '≥', '~': '~' }
const words: Record<string, string> = {
  '<': 'below',
  '<=': 'at most',
  '>': 'above',
  '>=': 'at least',
  '~': 'about',
}

/** A number as a table shows it: three significant digits, whole from a thousand up. */
export function formatResult(value: number): string {
  return Math.abs(value) >= 1000 ? formatMeasure(value, 0) : formatSignificant(value, 3)
}

/** The value as the cell shows it; empty for no value. */
export function cellText(cell: ResultsCell | null): string {
  if (!cell) return ''
  if (cell.kind === 'number' && cell.number !== null) {
    const sign = cell.modifier ? (signs[cell.modifier] ?? cell.modifier) : ''
    return `${sign}${formatResult(cell.number)}`
  }
  return cell.text ?? ''
}

/** Digits kept of a value computed here: more than a table shows, without a mean's float noise. */
const keptDigits = 6

/**
 * The value in full, for a tooltip or the detail panel: the vault's own as it gave it, one
 * computed here to six significant digits.
 */
export function exactText(cell: ResultsCell | null, unit: string | null): string {
  if (!cell) return ''
  const suffix = unit && cell.kind === 'number' ? ` ${unit}` : ''
  if (cell.kind === 'number' && cell.number !== null) {
    const sign = cell.modifier ? (signs[cell.modifier] ?? cell.modifier) : ''
    const given = cell.source === 'vault' && cell.text !== null && cell.text.trim() !== ''
    const digits = given ? cell.text!.trim() : String(Number(cell.number.toPrecision(keptDigits)))
    return `${sign}${digits}${suffix}`
  }
  return cell.text ?? ''
}

/** Where a value comes from, in words. */
export function sourceText(cell: ResultsCell): string {
  if (cell.source === 'vault') return "the vault's own value"
  return cell.n === 1 ? 'computed here from 1 row' : `computed here from ${cell.n} rows`
}

/** The whole cell in words: "above 30 uM, n 3, computed here from 3 rows"; "no value". */
export function describeResult(cell: ResultsCell | null, unit: string | null): string {
  if (!cell || (cell.kind === 'empty' && !cell.text)) return 'no value'
  let value = cell.text ?? ''
  if (cell.kind === 'number' && cell.number !== null) {
    const word = cell.modifier ? `${words[cell.modifier] ?? cell.modifier} ` : ''
    value = `${word}${formatResult(cell.number)}${unit ? ` ${unit}` : ''}`
  }
  return `${value}, n ${cell.n}, ${sourceText(cell)}`
}
