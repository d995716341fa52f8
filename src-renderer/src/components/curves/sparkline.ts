/**
 * A results table row's curves as a sparkline: the row's series of one calculation overlaid on
 * one log concentration axis, the series with the median IC50 drawn in full (points styled as the
 * panel styles them, its drawn curve: the vault's or the local fit, as the panel chooses) and the
 * others faint behind it. Only geometry here, in the sparkline's pixels; the cell paints it on a
 * canvas (cheap for a screenful of rows) and says it in words beside it. The axes take in every
 * shown series' points, so a row's spread between runs is what the eye sees.
 */
import type { CurveSeries } from '../../../../src-main/ipc/contract.ts'
import type { ConcentrationUnit } from '../../lib/curves/concentration-units.ts'
import {
  drawnCurve,
  logDomainOf,
  potencyOf,
  responseDomainOf,
  sampleAlongAxis,
  type PointStyle,
} from '../../lib/curves/curve-plot.ts'

export interface SparklineSize {
  width: number
  height: number
  /** Room kept free around the drawing, so that points at the ends are whole. */
  inset: number
}

export const sparklineSize: SparklineSize = { width: 156, height: 64, inset: 4 }

/** Samples along the axis: a sparkline is a few dozen pixels wide. */
const sparklineSamples = 48

export interface SparklinePoint {
  x: number
  y: number
  style: PointStyle
}

export interface SparklineSeries {
  id: number
  /** The series with the median IC50 (or the row's first without any): drawn in full. */
  main: boolean
  source: 'vault' | 'local' | null
  points: SparklinePoint[]
  /** The drawn curve's segments, each a polyline of [x, y]; none without a curve. */
  curve: [number, number][][]
}

export interface SparklineGeometry {
  size: SparklineSize
  /** Back to front: the faint ones first, the main series last. */
  series: SparklineSeries[]
  /** The main series' potency on the axis (a tick where its curve crosses half way). */
  potency: { x: number; y: number } | null
}

/**
 * Where everything of a row's sparkline goes. `series` is the row's, the main one first (as
 * `curves.ofResults` sends them).
 */
export function sparklineGeometry(
  series: readonly Pick<CurveSeries, 'id' | 'points' | 'drawn' | 'local'>[],
  unit: ConcentrationUnit,
  size: SparklineSize = sparklineSize,
): SparklineGeometry {
  const main = series[0]
  const placeable = series.map((entry) =>
    entry.points.filter(
      (point) => point.response !== null && point.concentration !== null && point.concentration > 0,
    ),
  )
  const potency = main ? potencyOf(main) : null
  const logDomain = logDomainOf(
    placeable.flat().map((point) => point.concentration!),
    potency,
    unit,
  )
  const samples = series.map((entry) => {
    const curve = drawnCurve(entry)
    return curve ? sampleAlongAxis(curve, logDomain[0], logDomain[1], sparklineSamples) : []
  })
  const responseDomain = responseDomainOf(
    placeable.flat().map((point) => point.response!),
    samples.flat(2).map((sample) => sample.y),
  )
  const left = size.inset
  const right = size.width - size.inset
  const top = size.inset
  const bottom = size.height - size.inset
  const xOf = (logValue: number) =>
    left + ((logValue - logDomain[0]) / (logDomain[1] - logDomain[0])) * (right - left)
  const yOf = (value: number) =>
    bottom -
    ((value - responseDomain[0]) / (responseDomain[1] - responseDomain[0])) * (bottom - top)
  const drawn: SparklineSeries[] = series.map((entry, index) => ({
    id: entry.id,
    main: index === 0,
    source: entry.drawn?.source ?? null,
    points: placeable[index]!.map((point) => ({
      x: xOf(Math.log10(point.concentration!)),
      y: yOf(point.response!),
      style: point.outlier ? 'outlier' : point.exclusion === null ? 'used' : 'excluded',
    })),
    curve: samples[index]!.map((segment) =>
      segment.map((sample): [number, number] => [xOf(Math.log10(sample.x)), yOf(sample.y)]),
    ),
  }))
  let potencyMark: SparklineGeometry['potency'] = null
  const mainCurve = main ? drawnCurve(main) : null
  if (mainCurve && potency) {
    const logValue = Math.log10(potency.value)
    const y = mainCurve.at(potency.value)
    if (logValue >= logDomain[0] && logValue <= logDomain[1] && y !== null) {
      potencyMark = { x: xOf(logValue), y: yOf(y) }
    }
  }
  return { size, series: drawn.reverse(), potency: potencyMark }
}

/** The colours a sparkline is painted with (the panel's, read from the page's tokens). */
export interface SparklinePalette {
  used: string
  vaultCurve: string
  localCurve: string
  outlier: string
  excluded: string
  potency: string
  surface: string
}

/** Paints a sparkline on a 2D context already scaled to CSS pixels. */
export function paintSparkline(
  context: CanvasRenderingContext2D,
  geometry: SparklineGeometry,
  palette: SparklinePalette,
): void {
  context.clearRect(0, 0, geometry.size.width, geometry.size.height)
  context.lineJoin = 'round'
  context.lineCap = 'round'
  for (const series of geometry.series) {
    context.globalAlpha = series.main ? 1 : 0.3
    context.strokeStyle = series.source === 'vault' ? palette.vaultCurve : palette.localCurve
    context.lineWidth = series.main ? 1.6 : 1
    for (const segment of series.curve) {
      context.beginPath()
      segment.forEach(([x, y], index) =>
        index === 0 ? context.moveTo(x, y) : context.lineTo(x, y),
      )
      context.stroke()
    }
    const radius = series.main ? 2 : 1.4
    for (const point of series.points) {
      context.beginPath()
      context.arc(point.x, point.y, radius, 0, Math.PI * 2)
      if (point.style === 'used') {
        context.fillStyle = palette.used
        context.fill()
      } else {
        context.fillStyle = palette.surface
        context.fill()
        context.lineWidth = 1
        context.strokeStyle = point.style === 'outlier' ? palette.outlier : palette.excluded
        context.stroke()
      }
    }
  }
  context.globalAlpha = 1
  if (geometry.potency) {
    const { x, y } = geometry.potency
    context.fillStyle = palette.potency
    context.beginPath()
    context.moveTo(x, y - 3)
    context.lineTo(x + 3, y)
    context.lineTo(x, y + 3)
    context.lineTo(x - 3, y)
    context.closePath()
    context.fill()
  }
}
