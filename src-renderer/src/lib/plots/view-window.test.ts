import { describe, expect, it } from 'vitest'
import {
  fullView,
  isFullView,
  panBy,
  pixelMapping,
  unitAt,
  windowOnto,
  zoomAt,
} from './view-window.ts'

const width = 800
const height = 500

describe('the view window', () => {
  it('zooms around the pointer, which keeps its place', () => {
    const zoomed = zoomAt(fullView, 2, 200, 100, width, height)
    expect(zoomed.x1 - zoomed.x0).toBeCloseTo(0.5, 12)
    expect(zoomed.y1 - zoomed.y0).toBeCloseTo(0.5, 12)
    const before = unitAt(fullView, 200, 100, width, height)
    const after = unitAt(zoomed, 200, 100, width, height)
    expect(after.u).toBeCloseTo(before.u, 12)
    expect(after.v).toBeCloseTo(before.v, 12)
    expect(isFullView(zoomed)).toBe(false)
  })

  it('zooms one axis alone, and not past its limits', () => {
    const xOnly = zoomAt(fullView, 4, 400, 250, width, height, 'x')
    expect(xOnly.x1 - xOnly.x0).toBeCloseTo(0.25, 12)
    expect([xOnly.y0, xOnly.y1]).toEqual([0, 1])
    expect(zoomAt(fullView, 0.5, 400, 250, width, height)).toEqual(fullView)
    let deep = fullView
    for (let step = 0; step < 40; step += 1) deep = zoomAt(deep, 2, 400, 250, width, height)
    expect(deep.x1 - deep.x0).toBeCloseTo(1e-5, 12)
    expect(zoomAt(fullView, Number.NaN, 0, 0, width, height)).toBe(fullView)
  })

  it('pans by pixels, content following the drag, and stays over the plot', () => {
    const zoomed = zoomAt(fullView, 2, 400, 250, width, height)
    const panned = panBy(zoomed, 80, -50, width, height)
    // Content moved right by 80 px = 0.05 units of a half-wide window: the window moved left.
    expect(panned.x0).toBeCloseTo(zoomed.x0 - 0.05, 12)
    expect(panned.y0).toBeCloseTo(zoomed.y0 - 0.05, 12)
    expect(panBy(fullView, 300, 300, width, height)).toEqual(fullView)
    const far = panBy(zoomed, 10_000, 0, width, height)
    expect(far.x0).toBe(0)
  })

  it('maps pixels and unit coordinates consistently, y upwards', () => {
    const view = windowOnto(0.2, 0.6, 0.1, 0.3)
    const mapping = pixelMapping(view, width, height)
    const { u, v } = unitAt(view, 400, 125, width, height)
    expect(u).toBeCloseTo(0.4, 12)
    expect(v).toBeCloseTo(0.25, 12)
    expect((u - mapping.x0) * mapping.xScale).toBeCloseTo(400, 9)
    expect(height - (v - mapping.y0) * mapping.yScale).toBeCloseTo(125, 9)
  })
})
