import { describe, expect, it } from 'vitest'
import {
  autoDiameter,
  autoOpacity,
  diameterAt,
  maxDiameter,
  sizeDiameters,
  sizeRange,
} from './markers.ts'
import { noValue } from './point-layout.ts'

describe('markers', () => {
  it('shrink and fade as more points are in view, within bounds', () => {
    const counts = [10, 1_000, 20_000, 100_000, 250_000, 5_000_000]
    const diameters = counts.map((count) => autoDiameter(count, 1))
    expect(diameters).toEqual([...diameters].sort((a, b) => b - a))
    expect(diameters[0]).toBe(8)
    expect(diameters[diameters.length - 1]).toBe(2)
    expect(autoDiameter(10, 2)).toBe(16)
    expect(autoDiameter(0, 1)).toBeLessThanOrEqual(maxDiameter)
    const opacities = counts.map(autoOpacity)
    expect(opacities).toEqual([...opacities].sort((a, b) => b - a))
    expect(Math.max(...opacities)).toBeLessThanOrEqual(0.9)
    expect(Math.min(...opacities)).toBeGreaterThanOrEqual(0.4)
  })

  it('size by area: halfway along the scale, halfway between the areas', () => {
    const [smallest, largest] = sizeRange(6)
    const middle = diameterAt(0.5, 6)
    expect(Math.abs(middle ** 2 - (smallest ** 2 + largest ** 2) / 2)).toBeLessThanOrEqual(middle)
    const diameters = sizeDiameters(6)
    expect(diameters[0]).toBe(smallest)
    expect(diameters[255]).toBe(largest)
    expect(diameters[noValue]).toBe(smallest)
    expect([...diameters.slice(0, 256)]).toEqual([...diameters.slice(0, 256)].sort((a, b) => a - b))
  })
})
