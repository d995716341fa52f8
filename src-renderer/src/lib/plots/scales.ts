/**
 * Scales from a column's values to unit coordinates (0 at the domain's start, 1 at its end) and
 * back. Plots keep every point in unit coordinates and let the view window (pan and zoom) map
 * them to pixels, so a log axis is only a different way into the unit square.
 *
 * Zero and negative values have no place on a log axis: `columnExtent` counts them apart from the
 * missing ones, so that a plot can say how many it left out and why.
 */
import { linearTicks, logTicks, type Tick } from './ticks.ts'

export type ScaleKind = 'linear' | 'log'

export interface Scale {
  kind: ScaleKind
  /** The domain in data units: what unit coordinates 0 and 1 stand for. */
  min: number
  max: number
  toUnit(value: number): number
  fromUnit(unit: number): number
  /** Ticks for the part of the domain between two unit coordinates (a zoomed view's). */
  ticks(fromUnit: number, toUnit: number, count: number): Tick[]
}

export interface ColumnExtent {
  /** The smallest and largest value that the scale can place; null when there is none. */
  min: number | null
  max: number | null
  /** Values that can be placed. */
  count: number
  /** No value (null, undefined or not a finite number). */
  missing: number
  /** Zero or negative values, which a log scale cannot place (always 0 on a linear scale). */
  nonPositive: number
}

/** Whether a scale of this kind can place a value. */
export function placeable(value: number | null | undefined, kind: ScaleKind): value is number {
  return typeof value === 'number' && Number.isFinite(value) && (kind === 'linear' || value > 0)
}

export function columnExtent(values: ArrayLike<number | null>, kind: ScaleKind): ColumnExtent {
  let min = Number.POSITIVE_INFINITY
  let max = Number.NEGATIVE_INFINITY
  let count = 0
  let missing = 0
  let nonPositive = 0
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index]
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      missing += 1
      continue
    }
    if (kind === 'log' && value <= 0) {
      nonPositive += 1
      continue
    }
    count += 1
    if (value < min) min = value
    if (value > max) max = value
  }
  return count === 0
    ? { min: null, max: null, count, missing, nonPositive }
    : { min, max, count, missing, nonPositive }
}

/** A linear scale over [min, max]; a single value gets a domain around it. */
export function linearScale(min: number, max: number): Scale {
  let low = Math.min(min, max)
  let high = Math.max(min, max)
  if (!Number.isFinite(low) || !Number.isFinite(high))
    throw new Error('A scale needs a finite domain.')
  if (low === high) {
    const half = low === 0 ? 1 : Math.abs(low) * 0.1
    low -= half
    high += half
  }
  const span = high - low
  return {
    kind: 'linear',
    min: low,
    max: high,
    toUnit: (value) => (value - low) / span,
    fromUnit: (unit) => low + unit * span,
    ticks: (from, to, count) => linearTicks(low + from * span, low + to * span, count),
  }
}

/** A log scale over [min, max], both positive; a single value gets a factor of two each side. */
export function logScale(min: number, max: number): Scale {
  let low = Math.min(min, max)
  let high = Math.max(min, max)
  if (!(low > 0) || !Number.isFinite(high)) {
    throw new Error(`A log scale needs a positive domain, not ${min} to ${max}.`)
  }
  if (low === high) {
    low /= 2
    high *= 2
  }
  const lowExponent = Math.log10(low)
  const span = Math.log10(high) - lowExponent
  return {
    kind: 'log',
    min: low,
    max: high,
    toUnit: (value) => (Math.log10(value) - lowExponent) / span,
    fromUnit: (unit) => 10 ** (lowExponent + unit * span),
    ticks: (from, to, count) =>
      logTicks(10 ** (lowExponent + from * span), 10 ** (lowExponent + to * span), count),
  }
}

/**
 * The scale a plot uses for a column: its values' extent with a margin of `padding` (a fraction
 * of the span, in log units on a log scale) each side, so that no point sits on the frame.
 * Null when no value can be placed.
 */
export function scaleOf(extent: ColumnExtent, kind: ScaleKind, padding = 0.04): Scale | null {
  if (extent.min === null || extent.max === null) return null
  if (kind === 'log') {
    const low = Math.log10(extent.min)
    const high = Math.log10(extent.max)
    const margin = (high - low || 1) * padding
    return logScale(10 ** (low - margin), 10 ** (high + margin))
  }
  const margin = (extent.max - extent.min || Math.abs(extent.min) || 1) * padding
  return linearScale(extent.min - margin, extent.max + margin)
}
