/**
 * A well of a heat map in words, as the hover, the live region and the wells table say it: its
 * position, value with unit (and its qualifier), what it holds (a batch, or which control), and
 * what the statistics did with it (an outlier, left out and why, how far from its group's mean,
 * a correction waiting in the outbox).
 */
import type { PlateWellValue } from '../../../../src-main/ipc/contract.ts'
import { scaleLabel } from './heat-scale.ts'

const controlWords: Record<string, string> = {
  '+': 'positive control',
  '-': 'negative control',
  '#': 'reference',
}

export interface WellWordsOptions {
  unit: string | null
  batchName: (batchId: number) => string
  /** Further reads of the readout in the same well. */
  repeats?: number
}

/** The value as shown: its qualifier, the number to three significant digits, its unit. */
export function valueWords(value: PlateWellValue | null, unit: string | null): string {
  if (value === null || value.kind === 'empty') return 'no value'
  if (value.kind === 'number' && value.number !== null) {
    return `${value.modifier ?? ''}${scaleLabel(value.number)}${unit ? ` ${unit}` : ''}`
  }
  return value.text ?? value.kind
}

/** What the well holds: a batch by name, or the control it is. */
export function contentWords(
  value: PlateWellValue | null,
  batchName: (id: number) => string,
): string {
  if (value === null) return 'empty'
  const control = value.controlState?.trim() ?? ''
  if (controlWords[control]) return controlWords[control]
  if (value.batchId !== null) return batchName(value.batchId)
  return 'sample'
}

/** What the statistics did with it, in words; empty when it counted as usual. */
export function statusWords(value: PlateWellValue | null): string[] {
  if (value === null) return []
  const words: string[] = []
  if (value.outlier) words.push('outlier (left out)')
  else if (value.excluded !== null && value.kind !== 'empty')
    words.push(`left out: ${value.excluded}`)
  if (value.deviation !== null && value.level > 0) {
    const sign = value.deviation > 0 ? '+' : '−'
    words.push(`${sign}${Math.abs(value.deviation).toFixed(1)} SD from the ${value.group} mean`)
  }
  if (value.pending) words.push(`correction ${value.pending.state}`)
  if (value.note) words.push(`note: ${value.note}`)
  return words
}

export function wellWords(
  value: PlateWellValue | null,
  position: string,
  options: WellWordsOptions,
): string {
  const parts = [
    `${position}: ${valueWords(value, options.unit)}`,
    contentWords(value, options.batchName),
    ...statusWords(value),
  ]
  if (options.repeats)
    parts.push(`${options.repeats} more ${options.repeats === 1 ? 'read' : 'reads'} in this well`)
  return parts.join(', ')
}
