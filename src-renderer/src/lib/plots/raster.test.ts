import { describe, expect, it } from 'vitest'
import { pixel, pixelColour } from './colours.ts'
import { layoutPoints, noValue } from './point-layout.ts'
import { PointRaster, spriteOffsets, type RasterPoints, type RasterStyle } from './raster.ts'
import { fullView, pixelMapping } from './view-window.ts'

const white = pixel([255, 255, 255])
const grey = pixel([200, 200, 200])
const red = pixel([255, 0, 0])
const blue = pixel([0, 0, 255])

function style(overrides: Partial<RasterStyle> = {}): RasterStyle {
  const palette = new Uint32Array(noValue + 1).fill(blue)
  palette[0] = red
  return {
    background: white,
    gridColour: grey,
    gridColumns: [],
    gridRows: [],
    palette,
    fadedPalette: new Uint32Array(noValue + 1).fill(pixel([230, 230, 255])),
    plainColour: blue,
    fadedPlainColour: pixel([230, 230, 255]),
    opacity: 1,
    diameter: 3,
    diameters: null,
    selected: null,
    ...overrides,
  }
}

/** Points at pixel centres of a width × height plot (x from the left, y from the top). */
function at(
  width: number,
  height: number,
  spots: [number, number][],
  qualified: number[] = [],
): RasterPoints {
  return {
    count: spots.length,
    u: spots.map(([x]) => (x + 0.5) / width),
    v: spots.map(([, y]) => (height - y - 0.5) / height),
    colour: null,
    size: null,
    qualified: spots.map((_, index) => (qualified.includes(index) ? 1 : 0)),
  }
}

const colourAt = (raster: PointRaster, x: number, y: number) =>
  pixelColour(raster.pixels[raster.indexOf(x, y)]!)

describe('the point raster', () => {
  it('draws a marker as a disc around its point, the rest background', () => {
    const raster = new PointRaster(20, 10)
    const inView = raster.draw(at(20, 10, [[5, 5]]), pixelMapping(fullView, 20, 10), style())
    expect(inView).toBe(1)
    for (const [x, y] of [
      [4, 4],
      [5, 5],
      [6, 6],
    ]) {
      expect(colourAt(raster, x!, y!)).toEqual([0, 0, 255])
    }
    expect(colourAt(raster, 7, 5)).toEqual([255, 255, 255])
    expect(colourAt(raster, 5, 3)).toEqual([255, 255, 255])
  })

  it('blends overlapping markers by how many cover a pixel', () => {
    const raster = new PointRaster(10, 10)
    const points = at(10, 10, [
      [2, 2],
      [7, 7],
      [7, 7],
    ])
    raster.draw(points, pixelMapping(fullView, 10, 10), style({ opacity: 0.5 }))
    // One marker: half blue over white; two: three quarters.
    expect(colourAt(raster, 2, 2)).toEqual([128, 128, 255])
    expect(colourAt(raster, 7, 7)).toEqual([64, 64, 255])
  })

  it('draws qualified values as rings with a hole', () => {
    const raster = new PointRaster(20, 20)
    raster.draw(at(20, 20, [[10, 10]], [0]), pixelMapping(fullView, 20, 20), style({ diameter: 7 }))
    expect(colourAt(raster, 10, 10)).toEqual([255, 255, 255])
    expect(colourAt(raster, 13, 10)).toEqual([0, 0, 255])
    expect(colourAt(raster, 10, 7)).toEqual([0, 0, 255])
    const ring = spriteOffsets(7, true, 100)
    const disc = spriteOffsets(7, false, 100)
    expect(ring.length).toBeLessThan(disc.length)
    expect([...ring].every((offset) => disc.includes(offset))).toBe(true)
  })

  it('puts selected points on top, opaque, and fades the rest', () => {
    const raster = new PointRaster(10, 10)
    const points = {
      ...at(10, 10, [
        [4, 4],
        [5, 4],
      ]),
      colour: [0, 0],
    }
    raster.draw(
      points,
      pixelMapping(fullView, 10, 10),
      style({ opacity: 0.5, selected: Uint8Array.from([1, 0]) }),
    )
    // The selected point (0) is drawn after the faded one although it comes first.
    expect(colourAt(raster, 4, 4)).toEqual([255, 0, 0])
    expect(colourAt(raster, 6, 4)).toEqual([243, 243, 255])
  })

  it('keeps grid lines behind the points', () => {
    const raster = new PointRaster(10, 10)
    raster.draw(
      at(10, 10, [[5, 5]]),
      pixelMapping(fullView, 10, 10),
      style({ gridColumns: [5, 8], gridRows: [1] }),
    )
    expect(colourAt(raster, 8, 3)).toEqual([200, 200, 200])
    expect(colourAt(raster, 3, 1)).toEqual([200, 200, 200])
    expect(colourAt(raster, 5, 5)).toEqual([0, 0, 255])
    expect(colourAt(raster, 5, 8)).toEqual([200, 200, 200])
  })

  it('clips markers at the edges and leaves out points beyond them', () => {
    const raster = new PointRaster(10, 10)
    const points = at(10, 10, [
      [0, 0],
      [9, 9],
      [-30, 5],
      [500, -500],
    ])
    const inView = raster.draw(points, pixelMapping(fullView, 10, 10), style({ diameter: 40 }))
    expect(inView).toBe(2)
    expect(colourAt(raster, 0, 0)).toEqual([0, 0, 255])
    expect(colourAt(raster, 9, 9)).toEqual([0, 0, 255])
  })

  it('draws small markers on the fast path exactly as sprite by sprite', () => {
    let seed = 5
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647
    const count = 20_000
    const u = Float64Array.from({ length: count }, next)
    const v = Float64Array.from({ length: count }, next)
    const colour = Uint16Array.from({ length: count }, (_, index) => index % 257)
    const palette = Uint32Array.from({ length: noValue + 1 }, (_, index) =>
      pixel([index % 256, 255 - (index % 256), 90]),
    )
    const mapping = pixelMapping({ x0: 0.1, x1: 0.9, y0: 0.05, y1: 0.7 }, 300, 200)
    for (const diameter of [2, 3]) {
      const fast = new PointRaster(300, 200)
      const slow = new PointRaster(300, 200)
      const plain: RasterPoints = {
        count,
        u,
        v,
        colour,
        size: null,
        qualified: new Uint8Array(count),
      }
      // A size column whose every diameter is the same takes the sprite-by-sprite path.
      const sized: RasterPoints = { ...plain, size: new Uint16Array(count) }
      const options = style({ palette, opacity: 0.6, diameter })
      expect(fast.draw(plain, mapping, options)).toBe(
        slow.draw(sized, mapping, {
          ...options,
          diameters: new Uint8Array(noValue + 1).fill(diameter),
        }),
      )
      const shown = (raster: PointRaster) =>
        Array.from({ length: 200 }, (_, y) => [
          ...raster.pixels.subarray(raster.indexOf(0, y), raster.indexOf(300, y)),
        ])
      expect(shown(fast)).toEqual(shown(slow))
    }
  })

  it('lays out and draws a real layout without a crash at any zoom', () => {
    const values = Array.from({ length: 2000 }, (_, index) =>
      index % 50 === 0 ? null : Math.sin(index) * 100,
    )
    const layout = layoutPoints(
      {
        ids: values.map((_, index) => index),
        x: { label: 'a', values },
        y: { label: 'b', values: values.map((value) => (value === null ? 1 : value * 2 + 3)) },
      },
      { x: 'linear', y: 'linear' },
    )
    const raster = new PointRaster(320, 240)
    for (const view of [fullView, { x0: 0.45, x1: 0.450001, y0: 0.3, y1: 0.300001 }]) {
      expect(() => raster.draw(layout, pixelMapping(view, 320, 240), style())).not.toThrow()
    }
    expect(() => new PointRaster(10, 10, new Uint32Array(5))).toThrow(
      /needs 8836 pixels for 10×10, not 5/,
    )
  })
})
