/**
 * The colour scale of a plate heat map. Sequential: viridis, whose lightness rises steadily from
 * end to end, so that it reads in greyscale and to the common forms of colour blindness.
 * Diverging: ColorBrewer's RdBu, blue below the centre and red above, white at the centre (the
 * negative controls' mean, or a value the person gives), symmetric about it so that equal
 * distances look equally strong. The domain is the range of the wells the statistics use (an
 * outlier would otherwise squeeze every other well into one colour); values beyond it take the
 * end colours and the legend says the ends are clamped.
 */
import { formatSignificant } from '../../../../src-common/format/numbers.ts'
import { hex, type Rgb } from '../plots/colours.ts'

export type ScaleKind = 'sequential' | 'diverging'

/** Viridis at nine evenly spaced points (matplotlib's table). */
export const viridis = [
  '#440154',
  '#472d7b',
  '#3b528b',
  '#2c728e',
  '#21918c',
  '#28ae80',
  '#5ec962',
  '#addc30',
  '#fde725',
] as const

/** ColorBrewer RdBu, 11 classes, from the low end (blue) to the high end (red). */
export const redBlue = [
  '#053061',
  '#2166ac',
  '#4393c3',
  '#92c5de',
  '#d1e5f0',
  '#f7f7f7',
  '#fddbc7',
  '#f4a582',
  '#d6604d',
  '#b2182b',
  '#67001f',
] as const

export interface HeatScale {
  kind: ScaleKind
  /** The ends of the domain (for a diverging scale, centre ± its half width). */
  min: number
  max: number
  /** The diverging scale's centre; null for a sequential one. */
  centre: number | null
  /** The colour of a value (`#rrggbb`); values beyond the domain take the end colours. */
  colour(value: number): string
  /** The same colour as its channels, for pixels written directly. */
  rgb(value: number): Rgb
  /** Values for the legend's marks, within the domain. */
  ticks: number[]
}

/**
 * The scale of a set of values: null when none is finite. A diverging scale without a finite
 * centre is centred on the middle of the values.
 */
export function heatScale(
  values: readonly number[],
  kind: ScaleKind,
  centre: number | null = null,
): HeatScale | null {
  let low = Infinity
  let high = -Infinity
  for (const value of values) {
    if (!Number.isFinite(value)) continue
    if (value < low) low = value
    if (value > high) high = value
  }
  if (low > high) return null
  if (kind === 'sequential') {
    const [min, max] = low === high ? [low - 0.5, low + 0.5] : [low, high]
    const rgb = (value: number) => paletteRgb(viridis, (value - min) / (max - min))
    return {
      kind,
      min,
      max,
      centre: null,
      colour: (value) => hex(rgb(value)),
      rgb,
      ticks: niceTicks(min, max, 5),
    }
  }
  const middle = centre !== null && Number.isFinite(centre) ? centre : (low + high) / 2
  const half = Math.max(Math.abs(high - middle), Math.abs(middle - low)) || 1
  const min = middle - half
  const max = middle + half
  const rgb = (value: number) => paletteRgb(redBlue, (value - min) / (max - min))
  return {
    kind,
    min,
    max,
    centre: middle,
    colour: (value) => hex(rgb(value)),
    rgb,
    ticks: [...new Set([...niceTicks(min, max, 5), middle])].sort((a, b) => a - b),
  }
}

/** A CSS gradient of the scale from its low end to its high end. */
export function scaleGradient(kind: ScaleKind): string {
  return `linear-gradient(to right, ${(kind === 'sequential' ? viridis : redBlue).join(', ')})`
}

/** Where a value lies on the scale, from 0 (its minimum) to 1 (its maximum), clamped. */
export function scaleFraction(scale: Pick<HeatScale, 'min' | 'max'>, value: number): number {
  const fraction = (value - scale.min) / (scale.max - scale.min)
  return Math.min(1, Math.max(0, Number.isNaN(fraction) ? 0.5 : fraction))
}

/** Up to about `count` round values (1, 2 or 5 times a power of ten apart) within [min, max]. */
export function niceTicks(min: number, max: number, count: number): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max) || max <= min || count < 1) return [min]
  const rough = (max - min) / count
  const power = 10 ** Math.floor(Math.log10(rough))
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((size) => size >= rough)!
  const ticks: number[] = []
  for (let tick = Math.ceil(min / step) * step; tick <= max + step * 1e-9; tick += step) {
    // Rounded to the step's decimals: 0.1 + 0.2 is shown as 0.3.
    ticks.push(Number(tick.toFixed(Math.max(0, -Math.floor(Math.log10(step))))))
  }
  return ticks
}

/** A value as the legend and the hover show it: three significant digits. */
export function scaleLabel(value: number): string {
  return formatSignificant(value, 3)
}

/**
 * The stops of each palette as numbers, read once: a 1536-well map asks for a colour per well,
 * and parsing the stops each time took about a third of its drawing.
 */
const paletteStops = new Map<readonly string[], number[][]>()

/** The palette's colour at a fraction from 0 to 1, interpolated in sRGB between its stops. */
function paletteRgb(palette: readonly string[], fraction: number): Rgb {
  let stops = paletteStops.get(palette)
  if (!stops) paletteStops.set(palette, (stops = palette.map(rgbOf)))
  const at =
    Math.min(1, Math.max(0, Number.isNaN(fraction) ? 0.5 : fraction)) * (palette.length - 1)
  const index = Math.min(palette.length - 2, Math.floor(at))
  const from = stops[index]!
  const to = stops[index + 1]!
  const share = at - index
  const level = (channel: number) =>
    Math.round(from[channel]! + (to[channel]! - from[channel]!) * share)
  return [level(0), level(1), level(2)]
}

function rgbOf(hex: string): number[] {
  return [1, 3, 5].map((start) => parseInt(hex.slice(start, start + 2), 16))
}
