import { describe, expect, it } from 'vitest'
import { Raster } from './raster.ts'

const white = [255, 255, 255] as const
const black = [0, 0, 0] as const

describe('Raster', () => {
  it('starts filled with the background and clips drawing at the edges', () => {
    const raster = new Raster(4, 3, white)
    expect(raster.getPixel(3, 2)).toEqual([255, 255, 255])
    raster.fillRect(-5, -5, 6, 6, black)
    expect(raster.getPixel(0, 0)).toEqual([0, 0, 0])
    expect(raster.getPixel(1, 1)).toEqual([255, 255, 255])
    expect(raster.pixels[3]).toBe(255)
  })

  it('draws lines through both end points', () => {
    const raster = new Raster(10, 10, white)
    raster.line(1, 1, 8, 5, black)
    expect(raster.getPixel(1, 1)).toEqual([0, 0, 0])
    expect(raster.getPixel(8, 5)).toEqual([0, 0, 0])
    expect(raster.getPixel(8, 1)).toEqual([255, 255, 255])
  })

  it('draws filled discs and hollow rings', () => {
    const raster = new Raster(30, 15, white)
    raster.circle(7, 7, 5, black)
    raster.circle(22, 7, 5, black, true, 1.5)
    expect(raster.getPixel(7, 7)).toEqual([0, 0, 0])
    expect(raster.getPixel(22, 7)).toEqual([255, 255, 255])
    expect(raster.getPixel(27, 7)).toEqual([0, 0, 0])
  })

  it('renders text with the bitmap font at a scale, horizontally and vertically', () => {
    expect(Raster.textWidth('10', 2)).toBe(22)
    const raster = new Raster(40, 40, white)
    raster.text(0, 0, '|', black, 2)
    // The bar of "|" is the third glyph column, seven rows tall.
    expect(raster.getPixel(4, 0)).toEqual([0, 0, 0])
    expect(raster.getPixel(5, 13)).toEqual([0, 0, 0])
    expect(raster.getPixel(0, 0)).toEqual([255, 255, 255])
    raster.text(20, 39, '-', black, 1, true)
    // "-" lies along the text direction, so read bottom to top it becomes a vertical bar.
    expect(raster.getPixel(23, 38)).toEqual([0, 0, 0])
    expect(raster.getPixel(23, 34)).toEqual([0, 0, 0])
  })

  it('refuses empty dimensions', () => {
    expect(() => new Raster(0, 5, white)).toThrow('positive integer dimensions')
  })
})
