import { formatTick, linearAxis, logAxis, type Axis } from './axis-ticks.ts'
import type { CurvePoint } from './dose-response-models.ts'
import { encodePng } from './png.ts'
import { Raster, type Color } from './raster.ts'

/**
 * Draws a dose-response chart: framed axes with ticks and labels, measured points (outliers as
 * hollow rings) and the fitted curve. On a log concentration axis, points at zero or negative
 * concentration cannot be placed and are left out.
 */

export interface DoseResponsePlot {
  title: string
  xLabel: string
  yLabel: string
  logX: boolean
  points: readonly CurvePoint[]
  /** The fitted curves (one per run, say); none when no fit succeeded. */
  curves: readonly ((x: number) => number)[]
  /** Size multiplier of the API's `size` parameter; 1 gives 480 x 360 pixels. */
  scale?: number
}

export interface DrawnPlot {
  raster: Raster
  /** Pixel position of a data coordinate, for callers that annotate or inspect the image. */
  toPixel: (x: number, y: number) => { column: number; row: number }
}

export const PLOT_COLORS = {
  background: [255, 255, 255],
  frame: [60, 60, 60],
  grid: [226, 226, 226],
  text: [30, 30, 30],
  point: [31, 98, 180],
  curve: [214, 96, 24],
} as const satisfies Record<string, Color>

const BASE_WIDTH = 480
const BASE_HEIGHT = 360
const CURVE_SAMPLES = 240

export function drawDoseResponsePlot(plot: DoseResponsePlot): DrawnPlot {
  const scale = plot.scale ?? 1
  if (!Number.isFinite(scale) || scale < 0.25 || scale > 8) {
    throw new Error(`plot size multiplier must be between 0.25 and 8, not ${plot.scale}`)
  }
  const textScale = Math.max(1, Math.round(scale))
  const raster = new Raster(
    Math.round(BASE_WIDTH * scale),
    Math.round(BASE_HEIGHT * scale),
    PLOT_COLORS.background,
  )
  const left = Math.round(70 * scale)
  const right = raster.width - Math.round(20 * scale)
  const top = Math.round(34 * scale)
  const bottom = raster.height - Math.round(50 * scale)

  const points = plot.points.filter(
    (point) => Number.isFinite(point.x) && Number.isFinite(point.y) && (!plot.logX || point.x > 0),
  )
  const xAxis = axisFor(
    points.map((point) => point.x),
    plot.logX,
  )
  const curveXs = sampleXs(xAxis, plot.logX)
  const curveYs = plot.curves.map((curve) => curveXs.map(curve))
  // The points set the scale: an extrapolated curve must not squash them into a line.
  const yValues =
    points.length > 0 ? points.map((point) => point.y) : curveYs.flat().filter(Number.isFinite)
  const yAxis =
    yValues.length > 0 ? linearAxis(Math.min(...yValues), Math.max(...yValues)) : linearAxis(0, 100)

  const xFraction = (x: number): number =>
    plot.logX
      ? (Math.log10(x) - Math.log10(xAxis.min)) / (Math.log10(xAxis.max) - Math.log10(xAxis.min))
      : (x - xAxis.min) / (xAxis.max - xAxis.min)
  const toPixel = (x: number, y: number): { column: number; row: number } => ({
    column: left + xFraction(x) * (right - left),
    row: bottom - ((y - yAxis.min) / (yAxis.max - yAxis.min)) * (bottom - top),
  })

  const tickLength = Math.round(4 * scale)
  const glyphHeight = Raster.textHeight(textScale)
  for (const tick of xAxis.ticks) {
    const { column } = toPixel(tick, yAxis.min)
    raster.line(column, top, column, bottom, PLOT_COLORS.grid)
    raster.line(column, bottom, column, bottom + tickLength, PLOT_COLORS.frame)
    const label = formatTick(tick)
    raster.text(
      column - Raster.textWidth(label, textScale) / 2,
      bottom + tickLength + 3,
      label,
      PLOT_COLORS.text,
      textScale,
    )
  }
  for (const tick of yAxis.ticks) {
    const { row } = toPixel(xAxis.min, tick)
    raster.line(left, row, right, row, PLOT_COLORS.grid)
    raster.line(left - tickLength, row, left, row, PLOT_COLORS.frame)
    const label = formatTick(tick)
    raster.text(
      left - tickLength - 3 - Raster.textWidth(label, textScale),
      row - glyphHeight / 2,
      label,
      PLOT_COLORS.text,
      textScale,
    )
  }
  frame(raster, left, top, right, bottom, Math.max(1, Math.round(scale)))

  raster.text(
    (raster.width - Raster.textWidth(plot.xLabel, textScale)) / 2,
    raster.height - glyphHeight - 4 * scale,
    plot.xLabel,
    PLOT_COLORS.text,
    textScale,
  )
  raster.text(
    4 * scale,
    (top + bottom) / 2 + Raster.textWidth(plot.yLabel, textScale) / 2,
    plot.yLabel,
    PLOT_COLORS.text,
    textScale,
    true,
  )
  raster.text(
    (raster.width - Raster.textWidth(plot.title, textScale)) / 2,
    10 * scale,
    plot.title,
    PLOT_COLORS.text,
    textScale,
  )

  const thickness = Math.max(2, Math.round(2 * scale))
  for (const ys of curveYs) {
    for (let index = 1; index < curveXs.length; index += 1) {
      const y0 = ys[index - 1]!
      const y1 = ys[index]!
      if (!Number.isFinite(y0) || !Number.isFinite(y1)) continue
      const from = toPixel(curveXs[index - 1]!, clamp(y0, yAxis))
      const to = toPixel(curveXs[index]!, clamp(y1, yAxis))
      raster.line(from.column, from.row, to.column, to.row, PLOT_COLORS.curve, thickness)
    }
  }
  const radius = 4 * scale
  for (const point of points) {
    const { column, row } = toPixel(point.x, point.y)
    raster.circle(column, row, radius, PLOT_COLORS.point, point.outlier === true, 1.5 * scale)
  }
  return { raster, toPixel }
}

export function renderDoseResponsePng(plot: DoseResponsePlot): Buffer {
  const { raster } = drawDoseResponsePlot(plot)
  return encodePng(raster.width, raster.height, raster.pixels)
}

function axisFor(xs: number[], logX: boolean): Axis {
  if (xs.length === 0) return logX ? logAxis(1e-9, 1e-5) : linearAxis(0, 1)
  const low = Math.min(...xs)
  const high = Math.max(...xs)
  return logX ? logAxis(low, high) : linearAxis(Math.min(0, low), high)
}

/** Keeps curves that shoot off (steep fits, extrapolation) inside the plot frame. */
function clamp(y: number, axis: Axis): number {
  return Math.min(axis.max, Math.max(axis.min, y))
}

function sampleXs(axis: Axis, logX: boolean): number[] {
  return Array.from({ length: CURVE_SAMPLES + 1 }, (_, index) => {
    const fraction = index / CURVE_SAMPLES
    return logX
      ? Math.pow(
          10,
          Math.log10(axis.min) + fraction * (Math.log10(axis.max) - Math.log10(axis.min)),
        )
      : axis.min + fraction * (axis.max - axis.min)
  })
}

function frame(
  raster: Raster,
  left: number,
  top: number,
  right: number,
  bottom: number,
  width: number,
): void {
  raster.fillRect(left, top, right - left, width, PLOT_COLORS.frame)
  raster.fillRect(left, bottom - width + 1, right - left, width, PLOT_COLORS.frame)
  raster.fillRect(left, top, width, bottom - top, PLOT_COLORS.frame)
  raster.fillRect(right - width + 1, top, width, bottom - top + 1, PLOT_COLORS.frame)
}
