import { GLYPH_HEIGHT, GLYPH_WIDTH, glyphColumns } from './bitmap-font.ts'

/** An RGBA pixel canvas with the few primitives a chart needs: rectangles, lines, circles, text. */

export type Color = readonly [red: number, green: number, blue: number]

export class Raster {
  readonly width: number
  readonly height: number
  readonly pixels: Uint8Array

  constructor(width: number, height: number, background: Color) {
    if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
      throw new Error(`A raster needs positive integer dimensions, not ${width}x${height}`)
    }
    this.width = width
    this.height = height
    this.pixels = new Uint8Array(width * height * 4)
    this.fillRect(0, 0, width, height, background)
  }

  /** Pixels outside the canvas are silently clipped, so callers may draw past the edges. */
  setPixel(x: number, y: number, color: Color): void {
    const column = Math.round(x)
    const row = Math.round(y)
    if (column < 0 || row < 0 || column >= this.width || row >= this.height) return
    const offset = (row * this.width + column) * 4
    this.pixels[offset] = color[0]
    this.pixels[offset + 1] = color[1]
    this.pixels[offset + 2] = color[2]
    this.pixels[offset + 3] = 255
  }

  getPixel(x: number, y: number): Color {
    const offset = (y * this.width + x) * 4
    return [this.pixels[offset]!, this.pixels[offset + 1]!, this.pixels[offset + 2]!]
  }

  fillRect(x: number, y: number, width: number, height: number, color: Color): void {
    for (let row = Math.round(y); row < Math.round(y + height); row += 1) {
      for (let column = Math.round(x); column < Math.round(x + width); column += 1) {
        this.setPixel(column, row, color)
      }
    }
  }

  /** A line of the given thickness: a square pen stamped along a DDA walk. */
  line(x0: number, y0: number, x1: number, y1: number, color: Color, thickness = 1): void {
    const steps = Math.max(1, Math.ceil(Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0))))
    const half = (thickness - 1) / 2
    for (let step = 0; step <= steps; step += 1) {
      const x = x0 + ((x1 - x0) * step) / steps
      const y = y0 + ((y1 - y0) * step) / steps
      if (thickness <= 1) this.setPixel(x, y, color)
      else this.fillRect(x - half, y - half, thickness, thickness, color)
    }
  }

  /** A filled disc, or a ring of the given width when hollow. */
  circle(
    cx: number,
    cy: number,
    radius: number,
    color: Color,
    hollow = false,
    ringWidth = 1.5,
  ): void {
    const reach = Math.ceil(radius)
    for (let dy = -reach; dy <= reach; dy += 1) {
      for (let dx = -reach; dx <= reach; dx += 1) {
        const distance = Math.hypot(dx, dy)
        if (distance > radius + 0.25) continue
        if (hollow && distance < radius - ringWidth) continue
        this.setPixel(cx + dx, cy + dy, color)
      }
    }
  }

  /** Width in pixels of a text drawn at the given scale. */
  static textWidth(text: string, scale = 1): number {
    const characters = [...text].length
    return characters === 0 ? 0 : (characters * (GLYPH_WIDTH + 1) - 1) * scale
  }

  static textHeight(scale = 1): number {
    return GLYPH_HEIGHT * scale
  }

  /** Draws text with its top-left corner at (x, y); `vertical` turns it to read bottom to top. */
  text(x: number, y: number, text: string, color: Color, scale = 1, vertical = false): void {
    let advance = 0
    for (const character of text) {
      glyphColumns(character).forEach((bits, column) => {
        for (let row = 0; row < GLYPH_HEIGHT; row += 1) {
          if (!(bits & (1 << row))) continue
          const along = advance + column * scale
          const across = row * scale
          if (vertical) this.fillRect(x + across, y - along - scale, scale, scale, color)
          else this.fillRect(x + along, y + across, scale, scale, color)
        }
      })
      advance += (GLYPH_WIDTH + 1) * scale
    }
  }
}
