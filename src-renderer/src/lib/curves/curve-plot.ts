/**
 * The geometry of a dose-response panel, computed apart from the SVG that shows it: the
 * concentration axis (log10, padded around the tested range, ticks in readable molar units), the
 * response axis, each point's place and how it is drawn, the curve sampled evenly along the log
 * axis whatever its equation, and the potency marker with its interval. Points a log axis cannot
 * place (no concentration, zero or negative) are counted, never dropped silently.
 */
import type { CurveSeries } from '../../../../src-main/ipc/contract.ts'
import { curveFrom, type Curve } from '../../../../src-common/analysis/dose-response/index.ts'
import { linearTicks, logTicks } from '../plots/ticks.ts'
import { formatConcentration, type ConcentrationUnit } from './concentration-units.ts'

export type PanelPoint = CurveSeries['points'][number]

/** How a point is drawn: used by the fit, an outlier (hollow), or left out for another reason. */
export type PointStyle = 'used' | 'outlier' | 'excluded'

export interface PlacedPoint {
  point: PanelPoint
  x: number
  y: number
  style: PointStyle
  /** A correction of its row waits in the outbox (drawn with a dashed ring). */
  pending: boolean
}

export interface AxisTick {
  /** The position along the axis, in pixels of the panel. */
  at: number
  label: string
}

export interface PanelSize {
  width: number
  height: number
  /** Room for tick labels; small multiples use little. */
  margin: { top: number; right: number; bottom: number; left: number }
  /** About how many ticks each axis gets. */
  ticks: number
}

export interface PanelGeometry {
  size: PanelSize
  /** The plotting area inside the margins. */
  plot: { left: number; top: number; right: number; bottom: number }
  /** log10 of the concentrations at the axis' ends (in the readout's unit). */
  logDomain: [number, number]
  responseDomain: [number, number]
  xTicks: AxisTick[]
  yTicks: AxisTick[]
  points: PlacedPoint[]
  /** Points with a response but no place on the log axis (no, zero or a negative concentration). */
  unplaced: PanelPoint[]
  /** The drawn curve as an SVG path (sub-paths where it is undefined); null without a curve. */
  path: string | null
  /** The potency on the axis: its centre and 95% interval in pixels, at the curve's half way. */
  potency: { x: number; low: number | null; high: number | null; y: number } | null
}

export const largePanel: PanelSize = {
  width: 560,
  height: 340,
  margin: { top: 16, right: 20, bottom: 44, left: 56 },
  ticks: 6,
}

export const smallPanel: PanelSize = {
  width: 240,
  height: 150,
  margin: { top: 8, right: 8, bottom: 22, left: 34 },
  ticks: 3,
}

/** Samples along the axis: enough for a steep Hill curve to look smooth at any panel size. */
export const curveSamples = 120

/** A checked curve of the series' drawn parameters; null when nothing is drawn or it cannot be. */
export function drawnCurve(series: Pick<CurveSeries, 'drawn'>): Curve | null {
  if (!series.drawn) return null
  const reading = curveFrom(series.drawn.equationType, series.drawn.parameters)
  return reading.ok ? reading.curve : null
}

/**
 * The curve at `count` concentrations spaced evenly in log10 between the axis' ends: a Linear or
 * Michaelis-Menten curve is drawn on the same log axis as a Hill curve, so it is sampled along
 * that axis too. Undefined places (a pole, an overflow) break the curve: each run of defined
 * samples is a segment.
 */
export function sampleAlongAxis(
  curve: Curve,
  logFrom: number,
  logTo: number,
  count = curveSamples,
): { x: number; y: number }[][] {
  const steps = Math.max(2, Math.floor(count))
  const segments: { x: number; y: number }[][] = []
  let segment: { x: number; y: number }[] = []
  for (let index = 0; index < steps; index += 1) {
    const x = 10 ** (logFrom + ((logTo - logFrom) * index) / (steps - 1))
    const y = curve.at(x)
    if (y === null) {
      if (segment.length > 0) segments.push(segment)
      segment = []
    } else {
      segment.push({ x, y })
    }
  }
  if (segment.length > 0) segments.push(segment)
  return segments
}

function styleOf(point: PanelPoint): PointStyle {
  if (point.outlier) return 'outlier'
  return point.exclusion === null ? 'used' : 'excluded'
}

/**
 * The log10 range the axis shows: the tested concentrations (every placeable point, outliers too)
 * and the potency's interval when it lies near them, padded by a quarter decade; one decade
 * either side of a single concentration; 1 nM to 100 µM (in the readout's unit) without any.
 */
export function logDomainOf(
  concentrations: readonly number[],
  potency: { value: number; low?: number | null; high?: number | null } | null,
  unit: ConcentrationUnit,
): [number, number] {
  const logs = concentrations.filter((value) => value > 0).map(Math.log10)
  if (logs.length === 0) {
    const shift = unit.molarExponent ?? -6
    return [-9 - shift, -4 - shift]
  }
  let low = Math.min(...logs)
  let high = Math.max(...logs)
  // A potency far outside the tested range is not known well enough to widen the axis for.
  const near = (value: number | null | undefined) =>
    value !== null &&
    value !== undefined &&
    value > 0 &&
    Math.log10(value) > low - 1 &&
    Math.log10(value) < high + 1
  for (const value of [potency?.value, potency?.low, potency?.high]) {
    if (near(value)) {
      low = Math.min(low, Math.log10(value!))
      high = Math.max(high, Math.log10(value!))
    }
  }
  if (high - low < 1e-9) return [low - 1, high + 1]
  return [low - 0.25, high + 0.25]
}

/**
 * The response range: the points' responses, widened to take in the curve where it stays near
 * them (a plateau far beyond the points does not squash them into a line), padded by 6%.
 */
export function responseDomainOf(
  responses: readonly number[],
  curveValues: readonly number[],
): [number, number] {
  const finite = responses.filter(Number.isFinite)
  const curve = curveValues.filter(Number.isFinite)
  if (finite.length === 0 && curve.length === 0) return [0, 1]
  let low = Math.min(...(finite.length > 0 ? finite : curve))
  let high = Math.max(...(finite.length > 0 ? finite : curve))
  const span = Math.max(high - low, Math.abs(high) * 0.1, 1e-9)
  for (const value of curve) {
    if (value >= low - span * 0.5 && value <= high + span * 0.5) {
      low = Math.min(low, value)
      high = Math.max(high, value)
    }
  }
  const pad = Math.max(high - low, Math.abs(high) * 0.1, 1e-9) * 0.06
  return [low - pad, high + pad]
}

/** Ticks along the concentration axis, labelled in readable units ("100 nM", "1 µM"). */
export function concentrationTicks(
  logDomain: readonly [number, number],
  unit: ConcentrationUnit,
  count: number,
): { value: number; label: string }[] {
  return logTicks(10 ** logDomain[0], 10 ** logDomain[1], count).map((tick) => ({
    value: tick.value,
    label: unit.molarExponent === null ? tick.label : formatConcentration(tick.value, unit),
  }))
}

/** Everything a panel draws, in its pixels. */
export function panelGeometry(
  series: Pick<CurveSeries, 'points' | 'drawn' | 'local'>,
  unit: ConcentrationUnit,
  size: PanelSize,
): PanelGeometry {
  const plot = {
    left: size.margin.left,
    top: size.margin.top,
    right: size.width - size.margin.right,
    bottom: size.height - size.margin.bottom,
  }
  const curve = drawnCurve(series)
  const potency = potencyOf(series)
  const withResponse = series.points.filter((point) => point.response !== null)
  const placeable = withResponse.filter(
    (point) => point.concentration !== null && point.concentration > 0,
  )
  const logDomain = logDomainOf(
    placeable.map((point) => point.concentration!),
    potency,
    unit,
  )
  const samples = curve ? sampleAlongAxis(curve, logDomain[0], logDomain[1]) : []
  const responseDomain = responseDomainOf(
    placeable.map((point) => point.response!),
    samples.flat().map((sample) => sample.y),
  )
  const xOf = (logValue: number) =>
    plot.left +
    ((logValue - logDomain[0]) / (logDomain[1] - logDomain[0])) * (plot.right - plot.left)
  const yOf = (value: number) =>
    plot.bottom -
    ((value - responseDomain[0]) / (responseDomain[1] - responseDomain[0])) *
      (plot.bottom - plot.top)
  const points: PlacedPoint[] = placeable.map((point) => ({
    point,
    x: xOf(Math.log10(point.concentration!)),
    y: yOf(point.response!),
    style: styleOf(point),
    pending: point.pending !== null,
  }))
  const path =
    samples.length === 0
      ? null
      : samples
          .map((segment) =>
            segment
              .map(
                (sample, index) =>
                  `${index === 0 ? 'M' : 'L'}${round(xOf(Math.log10(sample.x)))},${round(yOf(sample.y))}`,
              )
              .join(''),
          )
          .join('')
  let potencyMark: PanelGeometry['potency'] = null
  if (curve && potency && potency.value > 0) {
    const logValue = Math.log10(potency.value)
    const y = curve.at(potency.value)
    if (logValue >= logDomain[0] && logValue <= logDomain[1] && y !== null) {
      const clamp = (value: number | null) =>
        value === null || !(value > 0)
          ? null
          : xOf(Math.min(logDomain[1], Math.max(logDomain[0], Math.log10(value))))
      potencyMark = {
        x: xOf(logValue),
        low: clamp(potency.low),
        high: clamp(potency.high),
        y: yOf(y),
      }
    }
  }
  return {
    size,
    plot,
    logDomain,
    responseDomain,
    xTicks: concentrationTicks(logDomain, unit, size.ticks).map((tick) => ({
      at: xOf(Math.log10(tick.value)),
      label: tick.label,
    })),
    yTicks: linearTicks(responseDomain[0], responseDomain[1], size.ticks).map((tick) => ({
      at: yOf(tick.value),
      label: tick.label,
    })),
    points,
    unplaced: withResponse.filter((point) => !placeable.includes(point)),
    path,
    potency: potencyMark,
  }
}

/**
 * The potency the panel marks: the drawn curve's centre (the vault's IC50 when its curve is
 * drawn), with the local fit's 95% interval where the local fit found one.
 */
export function potencyOf(
  series: Pick<CurveSeries, 'drawn' | 'local'>,
): { value: number; low: number | null; high: number | null } | null {
  const drawn = series.drawn
  const local = series.local.potency
  const centre = drawn?.equationType === 'Hill' ? drawn.parameters.ic50 : undefined
  if (centre === undefined || !(centre > 0)) return null
  return {
    value: centre,
    low: local?.confidenceInterval95?.low ?? null,
    high: local?.confidenceInterval95?.high ?? null,
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100
}
