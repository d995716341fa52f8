import { describe, expect, it } from 'vitest'
import { centralPoint, nextPoint } from './point-navigation.ts'
import { pixelMapping, fullView } from './view-window.ts'

describe('keyboard navigation between points', () => {
  // A 3 × 3 grid of points, row by row from the bottom left, plus one far off to the right.
  const u = [0.2, 0.5, 0.8, 0.2, 0.5, 0.8, 0.2, 0.5, 0.8, 0.95]
  const v = [0.2, 0.2, 0.2, 0.5, 0.5, 0.5, 0.8, 0.8, 0.8, 0.9]
  const mapping = pixelMapping(fullView, 100, 100)
  const next = (from: number, direction: 'left' | 'right' | 'up' | 'down') =>
    nextPoint(u, v, u.length, from, direction, mapping, 100, 100)

  it('starts at the point nearest the middle and steps to neighbours', () => {
    expect(centralPoint(u, v, u.length, mapping, 100, 100)).toBe(4)
    expect(next(4, 'right')).toBe(5)
    expect(next(4, 'left')).toBe(3)
    expect(next(4, 'up')).toBe(7)
    expect(next(4, 'down')).toBe(1)
  })

  it('looks past the cone when nothing is straight ahead, and stops at the edge', () => {
    expect(next(8, 'right')).toBe(9)
    expect(next(9, 'right')).toBe(-1)
    expect(next(0, 'down')).toBe(-1)
    expect(next(-1, 'down')).toBe(-1)
  })

  it('ignores points out of view', () => {
    const zoomed = pixelMapping({ x0: 0, x1: 0.6, y0: 0, y1: 1 }, 100, 100)
    expect(nextPoint(u, v, u.length, 1, 'right', zoomed, 100, 100)).toBe(-1)
  })

  it('reaches stacked points one by one', () => {
    const stacked = [0.5, 0.5, 0.5]
    const order = [0]
    let at = 0
    for (let step = 0; step < 2; step += 1) {
      at = nextPoint(stacked, stacked, 3, at, 'right', mapping, 100, 100)
      order.push(at)
    }
    expect(order).toEqual([0, 1, 2])
  })
})
