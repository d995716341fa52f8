/**
 * Formatters for list cells and preview facts, shared by the declarations of record kinds: a
 * value read from a row becomes the text a person reads, or empty when there is none.
 */
import type { CellValue } from '../records/kind-declaration.ts'
import { toNamedLinks, toNumber, toText } from '../values.ts'
import { formatDay } from './dates.ts'
import { formatCount, formatMeasure } from './numbers.ts'

export const dayCell = (value: CellValue): string =>
  formatDay(typeof value === 'string' ? value : null)

export const decimalsCell =
  (places: number) =>
  (value: CellValue): string =>
    typeof value === 'number' ? formatMeasure(value, places) : ''

export const countCell = (value: CellValue): string =>
  typeof value === 'number' ? formatCount(value) : ''

/** A measure with its unit ("399.47 g/mol"), or null. */
export function measure(value: unknown, decimals: number, unit = ''): string | null {
  const number = toNumber(value)
  return number === null ? null : `${formatMeasure(number, decimals)}${unit}`
}

/** The names of linked records (`projects: [{id, name}]`), joined, or null. */
export function linkNames(value: unknown): string | null {
  return (
    toNamedLinks(value)
      .map((link) => link.name)
      .join(', ') || null
  )
}

/** A day from a date or timestamp member, or null. */
export const day = (value: unknown): string | null => formatDay(toText(value)) || null
