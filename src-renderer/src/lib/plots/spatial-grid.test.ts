import { describe, expect, it } from 'vitest'
import { gridOrder, nearestPoint, type PixelMapping } from './spatial-grid.ts'
import { pixelMapping, zoomAt, fullView } from './view-window.ts'

function randomPoints(count: number, seed: number) {
  let state = seed
  const next = () => (state = (state * 48271) % 2147483647) / 2147483647
  const u = new Float64Array(count)
  const v = new Float64Array(count)
  for (let index = 0; index < count; index += 1) {
    // Clustered: most points near the middle, as real data is.
    u[index] = index % 3 === 0 ? next() : 0.5 + (next() - 0.5) * 0.1
    v[index] = index % 3 === 0 ? next() : 0.5 + (next() - 0.5) * 0.1
  }
  return { u, v, next }
}

/** Every point's position in grid order, and u, v in that order. */
function ordered(u: Float64Array, v: Float64Array) {
  const grid = gridOrder(u, v, u.length)
  const su = Float64Array.from(grid.order, (index) => u[index]!)
  const sv = Float64Array.from(grid.order, (index) => v[index]!)
  return { grid, su, sv }
}

function bruteNearest(
  u: Float64Array,
  v: Float64Array,
  mapping: PixelMapping,
  height: number,
  px: number,
  py: number,
  radius: number,
): number {
  let best = -1
  let bestDistance = radius * radius
  for (let position = 0; position < u.length; position += 1) {
    const dx = (u[position]! - mapping.x0) * mapping.xScale - px
    const dy = height - (v[position]! - mapping.y0) * mapping.yScale - py
    const distance = dx * dx + dy * dy
    if (distance <= bestDistance) {
      bestDistance = distance
      best = position
    }
  }
  return best
}

describe('the spatial grid', () => {
  it('sorts every point into a cell exactly once', () => {
    const { u, v } = randomPoints(10_000, 3)
    const { grid } = ordered(u, v)
    expect(grid.cellStart[grid.cellStart.length - 1]).toBe(10_000)
    expect(new Set(grid.order).size).toBe(10_000)
  })

  it('finds the point a brute-force search finds, zoomed out and in', () => {
    const { u, v, next } = randomPoints(20_000, 11)
    const { grid, su, sv } = ordered(u, v)
    const width = 700
    const height = 420
    const views = [
      fullView,
      zoomAt(fullView, 8, 350, 210, width, height),
      zoomAt(fullView, 3, 10, 400, width, height, 'x'),
    ]
    let found = 0
    for (const view of views) {
      const mapping = pixelMapping(view, width, height)
      for (let query = 0; query < 400; query += 1) {
        const px = next() * width
        const py = next() * height
        const expected = bruteNearest(su, sv, mapping, height, px, py, 6)
        const actual = nearestPoint(grid, su, sv, mapping, height, px, py, 6)
        if (expected >= 0) found += 1
        // Equal distances may pick another point: then the distance must be the same.
        if (actual !== expected) {
          const distance = (p: number) =>
            Math.hypot(
              (su[p]! - mapping.x0) * mapping.xScale - px,
              height - (sv[p]! - mapping.y0) * mapping.yScale - py,
            )
          expect(distance(actual)).toBeCloseTo(distance(expected), 9)
        }
      }
    }
    expect(found).toBeGreaterThan(300)
  })

  it('finds nothing beyond the radius, or off the plot', () => {
    const u = new Float64Array([0.5])
    const v = new Float64Array([0.5])
    const { grid, su, sv } = ordered(u, v)
    const mapping = pixelMapping(fullView, 100, 100)
    expect(nearestPoint(grid, su, sv, mapping, 100, 50, 50, 6)).toBe(0)
    expect(nearestPoint(grid, su, sv, mapping, 100, 54, 54, 6)).toBe(0)
    expect(nearestPoint(grid, su, sv, mapping, 100, 55, 55, 6)).toBe(-1)
    expect(nearestPoint(grid, su, sv, mapping, 100, -500, 50, 6)).toBe(-1)
  })

  it('copes with every point in one place', () => {
    const u = new Float64Array(50_000).fill(0.25)
    const v = new Float64Array(50_000).fill(0.75)
    const { grid, su, sv } = ordered(u, v)
    const mapping = pixelMapping(fullView, 400, 400)
    // The last drawn (on top) of equally near points wins.
    expect(nearestPoint(grid, su, sv, mapping, 400, 100, 100, 6)).toBe(49_999)
  })
})
