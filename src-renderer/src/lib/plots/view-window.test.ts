import { describe, expect, it } from 'vitest'
import {
  fullView,
  isFullView,
  isIdentityPlacement,
  panBy,
  pixelMapping,
  placementBetween,
  unitAt,
  viewForKey,
  windowOnto,
  zoomAt,
  type ViewWindow,
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

describe('placing a frame drawn for one view on another', () => {
  /** A unit point's pixel on a plot of width × height showing view (y from the top). */
  const pixelIn = (view: ViewWindow, w: number, h: number, u: number, v: number) => {
    const mapping = pixelMapping(view, w, h)
    return { x: (u - mapping.x0) * mapping.xScale, y: h - (v - mapping.y0) * mapping.yScale }
  }

  it('puts every point of the drawn frame where the new view shows it', () => {
    const drawn = windowOnto(0.1, 0.7, 0.2, 0.5)
    const views = [
      panBy(drawn, 37, -12, width, height),
      zoomAt(drawn, 3.5, 120, 410, width, height),
      zoomAt(drawn, 0.4, 700, 20, width, height, 'x'),
      fullView,
    ]
    // The new plot also has another size (a resize during the gesture).
    for (const view of views) {
      const placement = placementBetween(drawn, width, height, view, 640, 360)
      for (const [u, v] of [
        [0.1, 0.2],
        [0.7, 0.5],
        [0.33, 0.41],
        [0.9, 0.05],
      ] as const) {
        const before = pixelIn(drawn, width, height, u, v)
        const after = pixelIn(view, 640, 360, u, v)
        expect(placement.x + before.x * placement.scaleX).toBeCloseTo(after.x, 9)
        expect(placement.y + before.y * placement.scaleY).toBeCloseTo(after.y, 9)
      }
    }
  })

  it('is the identity for the view and size it was drawn for, and only then', () => {
    const view = windowOnto(0.25, 0.5, 0.5, 0.75)
    expect(isIdentityPlacement(placementBetween(view, width, height, view, width, height))).toBe(
      true,
    )
    const moved = panBy(view, 1, 0, width, height)
    expect(isIdentityPlacement(placementBetween(view, width, height, moved, width, height))).toBe(
      false,
    )
    expect(
      isIdentityPlacement(placementBetween(view, width, height, view, width + 1, height)),
    ).toBe(false)
  })
})

describe('the view keys', () => {
  const middle = { left: width / 2, top: height / 2 }
  const press = (
    key: string,
    held: { shift?: boolean; ctrl?: boolean; meta?: boolean; alt?: boolean } = {},
  ) => ({
    key,
    shiftKey: held.shift ?? false,
    ctrlKey: held.ctrl ?? false,
    metaKey: held.meta ?? false,
    altKey: held.alt ?? false,
  })
  const zoomed = windowOnto(0.4, 0.6, 0.3, 0.5)
  const keyed = (key: ReturnType<typeof press>, view = zoomed, anchor = middle) =>
    viewForKey(view, key, anchor, width, height)

  it('pans a tenth of the plot towards the arrow with Shift', () => {
    // What lay to the left comes into view: the window moves left by a tenth of its width.
    const left = keyed(press('ArrowLeft', { shift: true }))!
    expect(left.x0).toBeCloseTo(0.38, 12)
    expect(left.x1).toBeCloseTo(0.58, 12)
    expect([left.y0, left.y1]).toEqual([zoomed.y0, zoomed.y1])
    const up = keyed(press('ArrowUp', { shift: true }))!
    expect(up.y0).toBeCloseTo(0.32, 12)
    expect(up.y1).toBeCloseTo(0.52, 12)
    expect(keyed(press('ArrowRight', { shift: true }))!.x0).toBeCloseTo(0.42, 12)
    expect(keyed(press('ArrowDown', { shift: true }))!.y0).toBeCloseTo(0.28, 12)
    // The whole plot has nowhere to go.
    expect(keyed(press('ArrowLeft', { shift: true }), fullView)).toEqual(fullView)
  })

  it('leaves a plain arrow to move the focus between points', () => {
    for (const key of ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown']) {
      expect(keyed(press(key))).toBeNull()
    }
  })

  it('zooms in and out around the anchor with + and -, and 0 shows the whole plot', () => {
    const anchor = { left: 200, top: 100 }
    const before = unitAt(zoomed, anchor.left, anchor.top, width, height)
    for (const key of ['+', '=']) {
      const zoomedIn = keyed(press(key), zoomed, anchor)!
      expect(zoomedIn.x1 - zoomedIn.x0).toBeCloseTo(0.2 / 1.5, 12)
      expect(zoomedIn.y1 - zoomedIn.y0).toBeCloseTo(0.2 / 1.5, 12)
      const after = unitAt(zoomedIn, anchor.left, anchor.top, width, height)
      expect(after.u).toBeCloseTo(before.u, 12)
      expect(after.v).toBeCloseTo(before.v, 12)
    }
    for (const key of ['-', '_']) {
      const zoomedOut = keyed(press(key), zoomed, anchor)!
      expect(zoomedOut.x1 - zoomedOut.x0).toBeCloseTo(0.3, 12)
    }
    const inAndOut = keyed(press('-'), keyed(press('+'))!)!
    for (const edge of ['x0', 'x1', 'y0', 'y1'] as const) {
      expect(inAndOut[edge]).toBeCloseTo(zoomed[edge], 12)
    }
    expect(keyed(press('0'))).toEqual(fullView)
    expect(keyed(press('Home'))).toEqual(fullView)
  })

  it('is no view key with Ctrl, Cmd or Alt held, nor any other key', () => {
    expect(keyed(press('+', { ctrl: true }))).toBeNull()
    expect(keyed(press('0', { meta: true }))).toBeNull()
    expect(keyed(press('ArrowLeft', { shift: true, alt: true }))).toBeNull()
    for (const key of ['a', 'Enter', 'Escape', ' ', '1', 'PageUp'])
      expect(keyed(press(key))).toBeNull()
  })
})
