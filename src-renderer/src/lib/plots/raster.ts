/**
 * Draws a scatter plot's points into pixels (an ImageData's words) in plain TypeScript: 250,000
 * points in a few milliseconds, where as many canvas path calls take hundreds, and the same pixels
 * on every machine (what the tests read back is what a person sees).
 *
 * Each marker is a sprite, a list of pixel offsets for its diameter and shape (filled disc, or a
 * ring for a qualified value). Drawing writes each covered pixel's colour and counts the markers
 * that covered it in the pixel's alpha byte (one word per pixel touched, not two); a second pass
 * blends each pixel over the background with the opacity of that many markers (1 - (1 - a)^n),
 * so dense regions read as dense, and where markers overlap the one drawn last gives the colour.
 * Selected points are drawn after the rest, opaque, while the rest are faded. Grid lines go only
 * where no marker is, so they stay behind the points.
 *
 * The buffer has a margin as wide as the largest marker on every side, so a marker at the edge
 * needs no clipping: the margin is never shown.
 */
import { maxDiameter } from './markers.ts'
import type { PixelMapping } from './spatial-grid.ts'

export const margin = maxDiameter + 2

export interface RasterPoints {
  count: number
  u: ArrayLike<number>
  v: ArrayLike<number>
  /** Colour position (0..255, or noValue) per point; null draws every point in `plainColour`. */
  colour: ArrayLike<number> | null
  /** Size position per point; null draws every point at `diameter`. */
  size: ArrayLike<number> | null
  qualified: ArrayLike<number>
}

export interface RasterStyle {
  background: number
  gridColour: number
  /** Device-pixel columns and rows of grid lines. */
  gridColumns: readonly number[]
  gridRows: readonly number[]
  /** Pixel words by colour position (257 entries: 0..255 and noValue). */
  palette: Uint32Array
  /** The palette faded towards the background, for points outside a selection. */
  fadedPalette: Uint32Array
  plainColour: number
  fadedPlainColour: number
  /** Opacity of one marker, 0..1. */
  opacity: number
  /** Marker diameter in device pixels without a size column. */
  diameter: number
  /** Diameters by size position, with a size column. */
  diameters: Uint8Array | null
  /** 1 for selected points (by position); null when nothing is selected. */
  selected: Uint8Array | null
}

/** A ring needs room for a hole: qualified markers are at least this wide. */
const smallestRing = 5
/** Markers covering a pixel past which it is opaque; selected points count as this many. */
const opaqueAt = 63

/**
 * The pixels of a marker of diameter d (device pixels) as offsets in a buffer `stride` wide: the
 * pixel centres within d/2 of the marker's centre, or for a ring those not within d/2 - w of it.
 */
export function spriteOffsets(diameter: number, ring: boolean, stride: number): Int32Array {
  const centre = (diameter - 1) / 2
  const outer = (diameter / 2) ** 2
  const width = Math.max(1, Math.round(diameter / 5))
  const inner = ring ? Math.max(0, diameter / 2 - width) ** 2 : -1
  const offsets: number[] = []
  for (let row = 0; row < diameter; row += 1) {
    for (let column = 0; column < diameter; column += 1) {
      const distance = (row - centre) ** 2 + (column - centre) ** 2
      if (distance <= outer && distance >= inner) offsets.push(row * stride + column)
    }
  }
  return Int32Array.from(offsets)
}

export class PointRaster {
  readonly width: number
  readonly height: number
  readonly stride: number
  /** The shown pixels and the margin, as words (what an ImageData of stride × rows holds). */
  readonly pixels: Uint32Array
  /**
   * Every sprite's offsets in one array: sprite s (2 × diameter, plus 1 for a ring) covers
   * #spriteOffsets[#spriteStart[s]] to [#spriteStart[s + 1] - 1], shifted from the marker's centre
   * pixel by #spriteShift[s]. Flat typed arrays keep the drawing loop free of object loads.
   */
  readonly #spriteOffsets: Int32Array
  readonly #spriteStart: Int32Array
  readonly #spriteShift: Int32Array
  readonly #gridColumns: Uint8Array
  #alphas = new Uint16Array(opaqueAt + 1)
  #opacity = -1

  /** `pixels` may be an ImageData's buffer, (width + 2 × margin) × (height + 2 × margin) words. */
  constructor(width: number, height: number, pixels?: Uint32Array) {
    this.width = Math.max(1, Math.floor(width))
    this.height = Math.max(1, Math.floor(height))
    this.stride = this.width + 2 * margin
    const words = this.stride * (this.height + 2 * margin)
    if (pixels && pixels.length !== words) {
      throw new Error(
        `The raster needs ${words} pixels for ${width}×${height}, not ${pixels.length}.`,
      )
    }
    if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) {
      throw new Error('The plot raster keeps counts in the alpha byte of little-endian words.')
    }
    this.pixels = pixels ?? new Uint32Array(words)
    this.#gridColumns = new Uint8Array(this.width)
    const sprites: Int32Array[] = []
    this.#spriteShift = new Int32Array(2 * (maxDiameter + 1))
    for (let diameter = 0; diameter <= maxDiameter; diameter += 1) {
      const ringDiameter = Math.max(smallestRing, diameter)
      sprites.push(spriteOffsets(diameter, false, this.stride))
      sprites.push(spriteOffsets(ringDiameter, true, this.stride))
      this.#spriteShift[2 * diameter] = -Math.floor(diameter / 2) * (this.stride + 1)
      this.#spriteShift[2 * diameter + 1] = -Math.floor(ringDiameter / 2) * (this.stride + 1)
    }
    this.#spriteStart = new Int32Array(sprites.length + 1)
    sprites.forEach((sprite, index) => {
      this.#spriteStart[index + 1] = this.#spriteStart[index]! + sprite.length
    })
    this.#spriteOffsets = new Int32Array(this.#spriteStart[sprites.length]!)
    sprites.forEach((sprite, index) => this.#spriteOffsets.set(sprite, this.#spriteStart[index]))
  }

  /** The word index of a shown pixel (x from the left, y from the top). */
  indexOf(x: number, y: number): number {
    return (y + margin) * this.stride + x + margin
  }

  /**
   * Draws the points (`mapping` in device pixels) and returns how many fall inside the plot,
   * which sizes the next frame's markers.
   */
  draw(points: RasterPoints, mapping: PixelMapping, style: RasterStyle): number {
    this.pixels.fill(0)
    this.#prepareAlphas(style.opacity)
    let inView: number
    if (style.selected) {
      inView = this.#splat(points, mapping, style, style.fadedPalette, style.fadedPlainColour, 0)
      inView += this.#splat(points, mapping, style, style.palette, style.plainColour, 1)
    } else {
      inView = this.#splat(points, mapping, style, style.palette, style.plainColour, -1)
    }
    this.#shade(style)
    return inView
  }

  /**
   * Draws the points of one layer: all (-1), those not selected (0) or those selected (1, opaque);
   * returns the points inside the plot. Markers of 2 or 3 pixels, what many points get, take an
   * unrolled path: a loop over a sprite's few offsets took twice as long per point.
   */
  #splat(
    points: RasterPoints,
    mapping: PixelMapping,
    style: RasterStyle,
    palette: Uint32Array,
    plainColour: number,
    layer: -1 | 0 | 1,
  ): number {
    const diameter = Math.min(maxDiameter, Math.max(1, Math.round(style.diameter)))
    const increment = layer === 1 ? opaqueAt : 1
    const uniform = style.diameters === null || points.size === null
    if (uniform && (diameter === 2 || diameter === 3)) {
      // Rings first: where points crowd, the filled markers of exact values draw over them.
      return (
        this.#splatEach(points, mapping, style, palette, plainColour, layer, increment, true) +
        splatSquares(this, points, mapping, style.selected, palette, plainColour, layer, diameter)
      )
    }
    return this.#splatEach(points, mapping, style, palette, plainColour, layer, increment, false)
  }

  /** Draws each point with its own sprite (its size, ring or disc); or only the qualified ones. */
  #splatEach(
    points: RasterPoints,
    mapping: PixelMapping,
    style: RasterStyle,
    palette: Uint32Array,
    plainColour: number,
    layer: -1 | 0 | 1,
    increment: number,
    onlyQualified: boolean,
  ): number {
    const { count, u, v, colour, size, qualified } = points
    const { x0, y0, xScale, yScale } = mapping
    const { width, height, stride } = this
    const pixels = this.pixels
    const selected = style.selected
    const diameters = size === null ? null : style.diameters
    const baseDiameter = Math.min(maxDiameter, Math.max(1, Math.round(style.diameter)))
    const spriteOffsets = this.#spriteOffsets
    const spriteStart = this.#spriteStart
    const spriteShift = this.#spriteShift
    const plain = plainColour & 0xffffff
    let inView = 0
    for (let position = 0; position < count; position += 1) {
      if (layer !== -1 && selected![position] !== layer) continue
      const ring = qualified[position]!
      if (onlyQualified && ring === 0) continue
      const x = (u[position]! - x0) * xScale
      const y = height - (v[position]! - y0) * yScale
      const diameter = diameters === null ? baseDiameter : diameters[size![position]!]!
      // Within the margin on every side: the sprite cannot reach past the buffer.
      const reach = diameter / 2 + 1
      if (x < -reach || x > width + reach || y < -reach || y > height + reach) continue
      if (x >= 0 && x <= width && y >= 0 && y <= height) inView += 1
      const sprite = 2 * diameter + ring
      const base = (Math.floor(y) + margin) * stride + Math.floor(x) + margin + spriteShift[sprite]!
      const word = colour === null ? plain : palette[colour[position]!]! & 0xffffff
      const end = spriteStart[sprite + 1]!
      for (let k = spriteStart[sprite]!; k < end; k += 1) {
        const index = base + spriteOffsets[k]!
        const markers = (pixels[index]! >>> 24) + increment
        pixels[index] = (word | ((markers < opaqueAt ? markers : opaqueAt) << 24)) >>> 0
      }
    }
    return inView
  }

  #prepareAlphas(opacity: number): void {
    if (opacity === this.#opacity) return
    this.#opacity = opacity
    const clear = 1 - Math.min(1, Math.max(0, opacity))
    for (let markers = 0; markers < opaqueAt; markers += 1) {
      this.#alphas[markers] = Math.round((1 - clear ** markers) * 256)
    }
    this.#alphas[opaqueAt] = 256
  }

  /**
   * Turns each shown pixel's colour and marker count into its final colour over the background;
   * pixels no marker covers get the background, or a grid line's colour.
   */
  #shade(style: RasterStyle): void {
    const { width, height, stride } = this
    const pixels = this.pixels
    const alphas = this.#alphas
    const background = style.background >>> 0
    const gridColour = style.gridColour >>> 0
    const gridColumns = this.#gridColumns
    gridColumns.fill(0)
    for (const column of style.gridColumns) {
      const x = Math.round(column)
      if (x >= 0 && x < width) gridColumns[x] = 1
    }
    const gridRows = new Set(style.gridRows.map((row) => Math.round(row)))
    const backgroundRedBlue = background & 0xff00ff
    const backgroundGreen = background & 0xff00
    for (let row = 0; row < height; row += 1) {
      const start = (row + margin) * stride + margin
      const onGridRow = gridRows.has(row)
      for (let x = 0; x < width; x += 1) {
        const index = start + x
        const word = pixels[index]!
        const markers = word >>> 24
        if (markers === 0) {
          pixels[index] = onGridRow || gridColumns[x] === 1 ? gridColour : background
          continue
        }
        const alpha = alphas[markers]!
        if (alpha === 256) {
          pixels[index] = (word | 0xff000000) >>> 0
          continue
        }
        const rest = 256 - alpha
        // Rounded to the nearest: 0x80 added under each channel before the shift.
        const redBlue =
          (((word & 0xff00ff) * alpha + backgroundRedBlue * rest + 0x800080) >>> 8) & 0xff00ff
        const green = (((word & 0xff00) * alpha + backgroundGreen * rest + 0x8000) >>> 8) & 0xff00
        pixels[index] = (0xff000000 | redBlue | green) >>> 0
      }
    }
  }
}

/**
 * The unrolled path: every point not qualified as a filled square of 2 or 3 pixels (the disc of
 * that diameter), counted as #splatEach counts. Returns the points inside the plot.
 */
function splatSquares(
  raster: PointRaster,
  points: RasterPoints,
  mapping: PixelMapping,
  selected: Uint8Array | null,
  palette: Uint32Array,
  plainColour: number,
  layer: -1 | 0 | 1,
  side: 2 | 3,
): number {
  const { count, u, v, colour, qualified } = points
  const { x0, y0, xScale, yScale } = mapping
  const { width, height, stride } = raster
  const pixels = raster.pixels
  const plain = plainColour & 0xffffff
  const increment = layer === 1 ? opaqueAt : 1
  // From the marker's centre pixel to its top-left one; the margin keeps indices positive.
  const shift = (margin - 1) * stride + margin - 1
  let inView = 0
  for (let position = 0; position < count; position += 1) {
    if (qualified[position] !== 0 || (layer !== -1 && selected![position] !== layer)) continue
    const x = (u[position]! - x0) * xScale
    const y = height - (v[position]! - y0) * yScale
    if (x < -3 || x > width + 3 || y < -3 || y > height + 3) continue
    if (x >= 0 && x <= width && y >= 0 && y <= height) inView += 1
    // x + 3 and y + 3 are positive, so truncating is flooring.
    const base = (((y + 3) | 0) - 3) * stride + ((x + 3) | 0) - 3 + shift
    const word = colour === null ? plain : palette[colour[position]!]! & 0xffffff
    let index = base
    let markers = (pixels[index]! >>> 24) + increment
    pixels[index] = word | ((markers < opaqueAt ? markers : opaqueAt) << 24)
    index = base + 1
    markers = (pixels[index]! >>> 24) + increment
    pixels[index] = word | ((markers < opaqueAt ? markers : opaqueAt) << 24)
    index = base + stride
    markers = (pixels[index]! >>> 24) + increment
    pixels[index] = word | ((markers < opaqueAt ? markers : opaqueAt) << 24)
    index = base + stride + 1
    markers = (pixels[index]! >>> 24) + increment
    pixels[index] = word | ((markers < opaqueAt ? markers : opaqueAt) << 24)
    if (side === 3) {
      index = base + 2
      markers = (pixels[index]! >>> 24) + increment
      pixels[index] = word | ((markers < opaqueAt ? markers : opaqueAt) << 24)
      index = base + stride + 2
      markers = (pixels[index]! >>> 24) + increment
      pixels[index] = word | ((markers < opaqueAt ? markers : opaqueAt) << 24)
      index = base + 2 * stride
      markers = (pixels[index]! >>> 24) + increment
      pixels[index] = word | ((markers < opaqueAt ? markers : opaqueAt) << 24)
      index = base + 2 * stride + 1
      markers = (pixels[index]! >>> 24) + increment
      pixels[index] = word | ((markers < opaqueAt ? markers : opaqueAt) << 24)
      index = base + 2 * stride + 2
      markers = (pixels[index]! >>> 24) + increment
      pixels[index] = word | ((markers < opaqueAt ? markers : opaqueAt) << 24)
    }
  }
  return inView
}
