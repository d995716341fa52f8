import { describe, expect, it } from 'vitest'
import { pointInPolygon, pointsInBox, pointsInPolygon } from './selection.ts'

describe('box selection', () => {
  it('takes the points inside, edges included, whichever corner the drag started at', () => {
    const u = [0.1, 0.2, 0.3, 0.4, 0.5]
    const v = [0.5, 0.2, 0.3, 0.9, 0.3]
    expect(pointsInBox(u, v, 5, { u0: 0.2, u1: 0.5, v0: 0.2, v1: 0.3 })).toEqual([1, 2, 4])
    expect(pointsInBox(u, v, 5, { u0: 0.5, u1: 0.2, v0: 0.3, v1: 0.2 })).toEqual([1, 2, 4])
    expect(pointsInBox(u, v, 3, { u0: 0, u1: 1, v0: 0, v1: 1 })).toEqual([0, 1, 2])
  })
})

describe('lasso selection', () => {
  // A "C": a square with a bite out of its right side.
  const c = [0, 0, 4, 0, 4, 1, 1, 1, 1, 3, 4, 3, 4, 4, 0, 4]

  it('reads a concave outline by its inside', () => {
    expect(pointInPolygon(0.5, 2, c)).toBe(true)
    expect(pointInPolygon(2, 2, c)).toBe(false)
    expect(pointInPolygon(3, 0.5, c)).toBe(true)
    expect(pointInPolygon(5, 2, c)).toBe(false)
  })

  it('leaves out what a self-crossing lasso wraps twice (even-odd)', () => {
    // A bow tie: its two loops are inside, the gaps above and below its crossing are not.
    const eight = [0, 0, 2, 2, 2, 0, 0, 2]
    expect(pointInPolygon(0.3, 1, eight)).toBe(true)
    expect(pointInPolygon(1.7, 1, eight)).toBe(true)
    expect(pointInPolygon(1, 0.3, eight)).toBe(false)
  })

  it('agrees with half-plane tests on a convex polygon over many points', () => {
    const triangle = [0.1, 0.1, 0.9, 0.2, 0.4, 0.8]
    let seed = 7
    const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647
    const u = Array.from({ length: 5000 }, next)
    const v = Array.from({ length: 5000 }, next)
    const side = (ax: number, ay: number, bx: number, by: number, x: number, y: number) =>
      (bx - ax) * (y - ay) - (by - ay) * (x - ax)
    const expected = u.flatMap((x, index) => {
      const y = v[index]!
      const inside =
        side(0.1, 0.1, 0.9, 0.2, x, y) > 0 &&
        side(0.9, 0.2, 0.4, 0.8, x, y) > 0 &&
        side(0.4, 0.8, 0.1, 0.1, x, y) > 0
      return inside ? [index] : []
    })
    expect(expected.length).toBeGreaterThan(500)
    expect(pointsInPolygon(u, v, 5000, triangle)).toEqual(expected)
    expect(pointsInPolygon(u, v, 5000, [0.1, 0.1, 0.9, 0.2])).toEqual([])
  })
})
