/**
 * The colours of a results table's cells: each readout column on its own sequential scale, from
 * pale (the poor end) to deep blue (the good end), whichever end the person calls good. The
 * palette is ColorBrewer's YlGnBu, a sequential scheme that stays readable to the common forms of
 * colour blindness and in greyscale, because its lightness falls steadily from end to end. Text on
 * a cell is black or white, whichever contrasts more: with these two, every background reaches at
 * least 4.5:1 (WCAG AA). Concentrations (and any positive values spanning three decades or more)
 * are placed on a log scale, as potencies are read; only numbers are coloured.
 */
import { parseUnit } from '../../../../src-common/analysis/readouts/units.ts'
import type { ResultsCell } from '../../../../src-common/analysis/readouts/results-table.ts'

export type GoodDirection = 'low' | 'high'

/** ColorBrewer YlGnBu, 9 classes, from the poor end to the good end. */
export const palette = [
  '#ffffd9',
  '#edf8b1',
  '#c7e9b4',
  '#7fcdbb',
  '#41b6c4',
  '#1d91c0',
  '#225ea8',
  '#253494',
  '#081d58',
] as const

export interface ColumnScale {
  min: number
  max: number
  kind: 'linear' | 'log'
}

export interface CellColours {
  background: string
  text: string
}

/** Positive values spanning this factor or more are placed on a log scale. */
const logSpan = 1000

/** Whether a unit measures a concentration (uM, nM, mg/mL...): read on a log scale, low good. */
export function isConcentration(unit: string | null): boolean {
  const dimension = parseUnit(unit)?.dimension
  return dimension === 'molar concentration' || dimension === 'mass concentration'
}

/** The scale of a column whose numbers run from `min` to `max`; null without two finite ends. */
export function columnScale(min: number, max: number, unit: string | null): ColumnScale | null {
  if (!Number.isFinite(min) || !Number.isFinite(max) || min > max) return null
  const log = min > 0 && (isConcentration(unit) || max / min >= logSpan)
  return { min, max, kind: log ? 'log' : 'linear' }
}

/** Where a value lies on a scale, from 0 (its minimum) to 1 (its maximum), clamped. */
export function scalePosition(value: number, scale: ColumnScale): number {
  if (scale.max === scale.min) return 0.5
  const [low, high, at] =
    scale.kind === 'log'
      ? [Math.log(scale.min), Math.log(scale.max), value > 0 ? Math.log(value) : -Infinity]
      : [scale.min, scale.max, value]
  const position = (at - low) / (high - low)
  return Math.min(1, Math.max(0, Number.isNaN(position) ? 0 : position))
}

/** How good a position is, from 0 (the poor end) to 1 (the good end). */
export function goodness(position: number, direction: GoodDirection): number {
  return direction === 'low' ? 1 - position : position
}

/** The palette's colour at a goodness from 0 to 1, with the text colour that reads best on it. */
export function sequentialColour(goodness: number): CellColours {
  const at = Math.min(1, Math.max(0, goodness)) * (palette.length - 1)
  const index = Math.min(palette.length - 2, Math.floor(at))
  const from = rgbOf(palette[index]!)
  const to = rgbOf(palette[index + 1]!)
  const share = at - index
  const background = hexOf(from.map((channel, i) => channel + (to[i]! - channel) * share))
  const onBlack = contrastRatio(background, '#000000')
  const onWhite = contrastRatio(background, '#ffffff')
  return { background, text: onBlack >= onWhite ? '#000000' : '#ffffff' }
}

/** The colours of a cell; null for cells shown uncoloured (text, dates, empty, no scale). */
export function cellColours(
  cell: ResultsCell | null,
  scale: ColumnScale | null,
  direction: GoodDirection,
): CellColours | null {
  if (!cell || cell.kind !== 'number' || cell.number === null || scale === null) return null
  return sequentialColour(goodness(scalePosition(cell.number, scale), direction))
}

/** A CSS gradient of the palette from the low end to the high end of a column. */
export function scaleGradient(direction: GoodDirection): string {
  const stops = direction === 'low' ? [...palette].reverse() : [...palette]
  return `linear-gradient(to right, ${stops.join(', ')})`
}

/** WCAG relative luminance of an sRGB colour `#rrggbb`. */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = rgbOf(hex).map((channel) => {
    const c = channel / 255
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
}

/** WCAG contrast ratio of two colours, from 1 to 21. */
export function contrastRatio(first: string, second: string): number {
  const [light, dark] = [relativeLuminance(first), relativeLuminance(second)].sort((a, b) => b - a)
  return (light! + 0.05) / (dark! + 0.05)
}

function rgbOf(hex: string): number[] {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex)
  if (!match) throw new Error(`${hex} is not a colour of the form #rrggbb.`)
  return [match[1]!, match[2]!, match[3]!].map((pair) => parseInt(pair, 16))
}

function hexOf(channels: readonly number[]): string {
  return `#${channels.map((channel) => Math.round(channel).toString(16).padStart(2, '0')).join('')}`
}
