import { describe, expect, it } from 'vitest'
import {
  hex,
  mix,
  parseColour,
  pixel,
  pixelColour,
  sequentialColour,
  viridis,
  viridisRange,
  type Rgb,
} from './colours.ts'

/** CIE L* (lightness) of an sRGB colour, D65. */
function lightness([red, green, blue]: Rgb): number {
  const linear = (channel: number) => {
    const c = channel / 255
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  const y = 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
  return y > 216 / 24389 ? 116 * Math.cbrt(y) - 16 : (24389 / 27) * y
}

describe('the sequential colour scale', () => {
  it('rises in lightness all along, so its order survives any colour-vision deficiency', () => {
    expect(viridis).toHaveLength(256)
    const lightnesses = viridis.map(lightness)
    // Rounding to 8 bits wobbles a neighbour by a few hundredths; every 8 steps clearly rise.
    for (let index = 1; index < 256; index += 1) {
      expect(lightnesses[index]!).toBeGreaterThan(lightnesses[index - 1]! - 0.1)
    }
    for (let index = 8; index < 256; index += 8) {
      expect(lightnesses[index]! - lightnesses[index - 8]!).toBeGreaterThan(1)
    }
    expect(hex(viridis[0]!)).toBe('#440154')
    expect(hex(viridis[255]!)).toBe('#fde725')
  })

  it('uses the part of the scale that stands out from each background', () => {
    expect(sequentialColour(0, 'light')).toEqual(viridis[0])
    expect(sequentialColour(1, 'light')).toEqual(viridis[Math.round(viridisRange.light[1] * 255)])
    expect(sequentialColour(0, 'dark')).toEqual(viridis[Math.round(viridisRange.dark[0] * 255)])
    expect(sequentialColour(1, 'dark')).toEqual(viridis[255])
    expect(sequentialColour(Number.NaN, 'light')).toEqual(viridis[0])
    expect(sequentialColour(7, 'dark')).toEqual(viridis[255])
  })
})

describe('colours as the tokens and pixels write them', () => {
  it('reads the forms the design tokens use, and nothing else', () => {
    expect(parseColour('#2c5ad6')).toEqual([44, 90, 214])
    expect(parseColour(' #FFF ')).toEqual([255, 255, 255])
    expect(parseColour('rgb(20 24 31)')).toEqual([20, 24, 31])
    expect(parseColour('rgba(1, 2, 3, 0.5)')).toEqual([1, 2, 3])
    expect(parseColour('rebeccapurple')).toBeNull()
    expect(parseColour('')).toBeNull()
  })

  it('packs pixels as an ImageData holds them and mixes colours', () => {
    const word = pixel([1, 2, 3])
    const bytes = new Uint8Array(new Uint32Array([word]).buffer)
    expect([...bytes]).toEqual([1, 2, 3, 255])
    expect(pixelColour(word)).toEqual([1, 2, 3])
    expect(mix([0, 0, 0], [255, 100, 10], 0.5)).toEqual([128, 50, 5])
  })
})
