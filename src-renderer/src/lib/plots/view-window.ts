/**
 * Pan and zoom as a window onto the unit square: the unit coordinates at the plot's left, right,
 * bottom and top edges. The whole plot is [0, 1] on both axes; zooming narrows the window around
 * the pointer, panning slides it. Everything that draws or hit-tests maps through `pixelMapping`.
 */
import type { PixelMapping } from './spatial-grid.ts'

export interface ViewWindow {
  x0: number
  x1: number
  y0: number
  y1: number
}

export const fullView: ViewWindow = Object.freeze({ x0: 0, x1: 1, y0: 0, y1: 1 })

/** The narrowest window (a 100,000-fold zoom) and the widest (the whole plot). */
const minSpan = 1e-5
const maxSpan = 1

export function isFullView(view: ViewWindow): boolean {
  return view.x0 === 0 && view.x1 === 1 && view.y0 === 0 && view.y1 === 1
}

export function pixelMapping(view: ViewWindow, width: number, height: number): PixelMapping {
  return {
    x0: view.x0,
    y0: view.y0,
    xScale: width / (view.x1 - view.x0),
    yScale: height / (view.y1 - view.y0),
  }
}

/** Keeps a span within the zoom limits and its window over the plot (no panning into the void). */
function fit(from: number, to: number): [number, number] {
  const span = Math.min(maxSpan, Math.max(minSpan, to - from))
  const centre = Math.min(1 - span / 2, Math.max(span / 2, (from + to) / 2))
  return [centre - span / 2, centre + span / 2]
}

/**
 * Zooms by `factor` (above 1 zooms in) around a pixel position, which stays where it is; `axes`
 * limits it to one axis (the wheel over an axis).
 */
export function zoomAt(
  view: ViewWindow,
  factor: number,
  px: number,
  py: number,
  width: number,
  height: number,
  axes: 'both' | 'x' | 'y' = 'both',
): ViewWindow {
  if (!(factor > 0) || !Number.isFinite(factor)) return view
  const anchorU = view.x0 + (px / width) * (view.x1 - view.x0)
  const anchorV = view.y0 + ((height - py) / height) * (view.y1 - view.y0)
  const along = (from: number, to: number, anchor: number): [number, number] => {
    const span = Math.min(maxSpan, Math.max(minSpan, (to - from) / factor))
    const share = (anchor - from) / (to - from)
    return fit(anchor - share * span, anchor - share * span + span)
  }
  const [x0, x1] = axes === 'y' ? [view.x0, view.x1] : along(view.x0, view.x1, anchorU)
  const [y0, y1] = axes === 'x' ? [view.y0, view.y1] : along(view.y0, view.y1, anchorV)
  return { x0, x1, y0, y1 }
}

/** Moves the content by (dx, dy) pixels, as a drag does: right and down are positive. */
export function panBy(
  view: ViewWindow,
  dx: number,
  dy: number,
  width: number,
  height: number,
): ViewWindow {
  const du = (dx / width) * (view.x1 - view.x0)
  const dv = (dy / height) * (view.y1 - view.y0)
  const [x0, x1] = fit(view.x0 - du, view.x1 - du)
  const [y0, y1] = fit(view.y0 + dv, view.y1 + dv)
  return { x0, x1, y0, y1 }
}

/** The window onto a rectangle given in unit coordinates (zooming to a selection). */
export function windowOnto(u0: number, u1: number, v0: number, v1: number): ViewWindow {
  const [x0, x1] = fit(Math.min(u0, u1), Math.max(u0, u1))
  const [y0, y1] = fit(Math.min(v0, v1), Math.max(v0, v1))
  return { x0, x1, y0, y1 }
}

/** Unit coordinates of a pixel position. */
export function unitAt(
  view: ViewWindow,
  px: number,
  py: number,
  width: number,
  height: number,
): { u: number; v: number } {
  return {
    u: view.x0 + (px / width) * (view.x1 - view.x0),
    v: view.y0 + ((height - py) / height) * (view.y1 - view.y0),
  }
}
