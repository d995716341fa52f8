/**
 * How big and how opaque a plot's markers are. With many points in view they shrink and turn more
 * transparent, so that dense regions read as density rather than as one blot (and a frame stays
 * within its time: the raster's work is the points in view times a marker's pixels); zooming in
 * shows fewer points, larger. A size column maps onto marker area, not diameter, so that a value
 * twice as large looks twice as large.
 */
import { noValue } from './point-layout.ts'

/** The pixels of markers one frame may draw, about (points in view × marker area). */
const pixelBudget = 1_000_000
/** Diameters in CSS pixels. */
const smallestCss = 2
const largestCss = 8
/** The raster's largest marker, in device pixels. */
export const maxDiameter = 40

/** The marker diameter in device pixels for this many points in view. */
export function autoDiameter(pointsInView: number, devicePixelRatio: number): number {
  const fits = Math.sqrt(pixelBudget / Math.max(1, pointsInView))
  const css = Math.min(largestCss, Math.max(smallestCss, fits / devicePixelRatio))
  return Math.max(1, Math.min(maxDiameter, Math.round(css * devicePixelRatio)))
}

/** Opacity of one marker: nearly opaque for a few hundred points, lighter for many. */
export function autoOpacity(pointsInView: number): number {
  const decades = Math.log10(Math.max(1, pointsInView / 500))
  return Math.min(0.9, Math.max(0.4, 0.9 - 0.12 * decades))
}

/** The smallest and largest diameter a size column spans, around the automatic one. */
export function sizeRange(base: number): [number, number] {
  const smallest = Math.max(2, Math.round(base * 0.6))
  const largest = Math.min(maxDiameter, Math.max(smallest + 2, Math.round(base * 2.6)))
  return [smallest, largest]
}

/**
 * Diameters by size position (0..255 along the size column's scale, `noValue` for none): area
 * grows in proportion to the position; rows without a value get the smallest marker.
 */
export function sizeDiameters(base: number): Uint8Array {
  const diameters = new Uint8Array(noValue + 1)
  for (let position = 0; position < noValue; position += 1) {
    diameters[position] = diameterAt(position / 255, base)
  }
  diameters[noValue] = sizeRange(base)[0]
  return diameters
}

/** The diameter at a position t in [0, 1] along a size column's scale (legends use it too). */
export function diameterAt(t: number, base: number): number {
  const [smallest, largest] = sizeRange(base)
  return Math.round(Math.sqrt(smallest ** 2 + t * (largest ** 2 - smallest ** 2)))
}
