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

/** Where an image drawn for one view goes on a canvas showing another: origin and scale. */
export interface ImagePlacement {
  /** The image's top-left corner on the canvas, in the canvas's pixels. */
  x: number
  y: number
  /** Canvas pixels per image pixel, across and down. */
  scaleX: number
  scaleY: number
}

/**
 * How to place an image of the plot drawn for `drawn` (`drawnWidth` × `drawnHeight` pixels) on a
 * canvas of `width` × `height` pixels showing `view`, so that every point lands where the new
 * view puts it: what a pan or a zoom shows until the points are drawn again for the new view.
 */
export function placementBetween(
  drawn: ViewWindow,
  drawnWidth: number,
  drawnHeight: number,
  view: ViewWindow,
  width: number,
  height: number,
): ImagePlacement {
  const drawnXScale = drawnWidth / (drawn.x1 - drawn.x0)
  const drawnYScale = drawnHeight / (drawn.y1 - drawn.y0)
  const xScale = width / (view.x1 - view.x0)
  const yScale = height / (view.y1 - view.y0)
  return {
    x: (drawn.x0 - view.x0) * xScale,
    // The image's top edge is the drawn window's top (y1); y grows downwards on a canvas.
    y: height - (drawn.y1 - view.y0) * yScale,
    scaleX: xScale / drawnXScale,
    scaleY: yScale / drawnYScale,
  }
}

/** Whether a placement puts the image pixel for pixel where it was drawn (within rounding). */
export function isIdentityPlacement(placement: ImagePlacement): boolean {
  return (
    Math.abs(placement.x) < 1e-6 &&
    Math.abs(placement.y) < 1e-6 &&
    Math.abs(placement.scaleX - 1) < 1e-9 &&
    Math.abs(placement.scaleY - 1) < 1e-9
  )
}

/** How far Shift and an arrow key pan: a tenth of the plot. */
export const keyPanShare = 0.1
/** How much + zooms in and - zooms out. */
export const keyZoomFactor = 1.5

/**
 * The view a key asks for, or null when the key is not a view key: Shift with an arrow pans a
 * tenth of the plot towards the arrow (what lay that way comes into view; a plain arrow moves the
 * keyboard's focus between points instead), + and - zoom around `anchor` (pixels of the plot:
 * the focused point, or the middle), 0 and Home show the whole plot. With Ctrl, Cmd or Alt held
 * none is a view key: Ctrl and + zooms the window, not the plot.
 */
export function viewForKey(
  view: ViewWindow,
  key: { key: string; shiftKey: boolean; ctrlKey: boolean; metaKey: boolean; altKey: boolean },
  anchor: { left: number; top: number },
  width: number,
  height: number,
): ViewWindow | null {
  const pans: Record<string, [number, number]> = {
    ArrowLeft: [keyPanShare, 0],
    ArrowRight: [-keyPanShare, 0],
    ArrowUp: [0, keyPanShare],
    ArrowDown: [0, -keyPanShare],
  }
  if (key.ctrlKey || key.metaKey || key.altKey) return null
  const pan = pans[key.key]
  if (pan) return key.shiftKey ? panBy(view, pan[0] * width, pan[1] * height, width, height) : null
  switch (key.key) {
    case '+':
    case '=':
      return zoomAt(view, keyZoomFactor, anchor.left, anchor.top, width, height)
    case '-':
    case '_':
      return zoomAt(view, 1 / keyZoomFactor, anchor.left, anchor.top, width, height)
    case '0':
    case 'Home':
      return fullView
    default:
      return null
  }
}
