/**
 * A full frame of a scatter plot: every point drawn by the raster for one view, at one size. The
 * plot draws full frames away from the frames it shows (in a worker, see frame-painter.ts and
 * raster-worker.ts): what it shows each frame is the last full frame moved and scaled to the
 * current view, so a pan or a zoom costs a bitmap's copy per frame whatever the number of points.
 *
 * This file holds what both sides of the worker need: the points and requests as they cross
 * (plain data, typed arrays), the messages, and the drawing itself (`FrameRaster`), which the
 * worker runs and which the plot runs in its own thread where there is no worker.
 */
import { margin, PointRaster, type RasterPoints, type RasterStyle } from './raster.ts'
import { pixelMapping, type ViewWindow } from './view-window.ts'

/** The points of a layout, as they cross to the worker (a copy: the plot keeps its own). */
export interface FramePoints extends RasterPoints {
  u: Float64Array
  v: Float64Array
  colour: Uint16Array | null
  size: Uint16Array | null
  qualified: Uint8Array
}

/** Everything of a full frame but the points and the selection: plain data. */
export interface FrameRequest {
  view: ViewWindow
  /** The frame's size in device pixels. */
  width: number
  height: number
  /**
   * Device pixels per CSS pixel it is drawn at: the screen's, or 1 during a pan or zoom on a
   * HiDPI screen (a quarter of the pixels at 2), sharpened once the gesture stops.
   */
  ratio: number
  style: FrameStyle
}

export type FrameStyle = Omit<RasterStyle, 'selected'>

export type ToRaster =
  | { kind: 'points'; points: FramePoints }
  | { kind: 'selection'; selected: Uint8Array | null }
  | { kind: 'draw'; id: number; request: FrameRequest }

export type FromRaster<Image> =
  | { kind: 'drawn'; id: number; image: Image; inView: number }
  | { kind: 'failed'; id: number; message: string }

/** The fields of a layout a full frame needs, and nothing that cannot be cloned. */
export function framePoints(points: FramePoints): FramePoints {
  const { count, u, v, colour, size, qualified } = points
  return { count, u, v, colour, size, qualified }
}

/** Draws full frames, keeping its raster between frames of the same size. */
export class FrameRaster {
  #raster: PointRaster | null = null

  /** Draws the points for `request` and returns the raster (margins and all) and the points in view. */
  draw(
    points: RasterPoints,
    selected: Uint8Array | null,
    request: FrameRequest,
  ): { raster: PointRaster; inView: number } {
    const width = Math.max(1, Math.floor(request.width))
    const height = Math.max(1, Math.floor(request.height))
    if (selected && selected.length !== points.count) {
      throw new Error(
        `The selection covers ${selected.length} points of a plot of ${points.count}: they must be the same.`,
      )
    }
    if (!this.#raster || this.#raster.width !== width || this.#raster.height !== height) {
      this.#raster = new PointRaster(width, height)
    }
    const inView = this.#raster.draw(points, pixelMapping(request.view, width, height), {
      ...request.style,
      selected,
    })
    return { raster: this.#raster, inView }
  }
}

/**
 * Copies a raster's shown pixels (not its margins) into a canvas of its size: an OffscreenCanvas,
 * which a worker has too. The canvas is kept and drawn over by the next frame.
 */
export class RasterCanvas {
  #canvas: OffscreenCanvas | null = null
  #context: OffscreenCanvasRenderingContext2D | null = null
  #image: { pixels: Uint32Array; data: ImageData } | null = null

  paint(raster: PointRaster): OffscreenCanvas {
    let canvas = this.#canvas
    let context = this.#context
    if (!canvas || !context || canvas.width !== raster.width || canvas.height !== raster.height) {
      if (typeof OffscreenCanvas === 'undefined') {
        throw new Error('This browser has no OffscreenCanvas, which the scatter plot draws on.')
      }
      canvas = new OffscreenCanvas(raster.width, raster.height)
      context = canvas.getContext('2d', { alpha: false })
      if (!context) throw new Error('This browser gives an OffscreenCanvas no 2D context.')
      this.#canvas = canvas
      this.#context = context
    }
    if (this.#image?.pixels !== raster.pixels) {
      // The raster's own words seen as an ImageData: nothing copied before putImageData.
      const bytes = new Uint8ClampedArray(raster.pixels.buffer as ArrayBuffer)
      const data = new ImageData(bytes, raster.stride, raster.height + 2 * margin)
      this.#image = { pixels: raster.pixels, data }
    }
    context.putImageData(
      this.#image.data,
      -margin,
      -margin,
      margin,
      margin,
      raster.width,
      raster.height,
    )
    return canvas
  }
}

/** The shown pixels of a raster, without its margins, as one word per pixel. */
export function shownPixels(raster: PointRaster): Uint32Array {
  const shown = new Uint32Array(raster.width * raster.height)
  for (let row = 0; row < raster.height; row += 1) {
    const start = raster.indexOf(0, row)
    shown.set(raster.pixels.subarray(start, start + raster.width), row * raster.width)
  }
  return shown
}

/**
 * Answers a port's drawing requests (the worker's side): keeps the points and the selection it
 * was sent, draws each request and sends back the image `toImage` makes of the raster, or why it
 * could not. Requests are drawn in order; the plot sends the next only when this one is back.
 */
export function serveFrames<Image>(
  port: {
    postMessage(message: FromRaster<Image>, transfer: Transferable[]): void
  },
  toImage: (raster: PointRaster) => { image: Image; transfer: Transferable[] },
): (message: ToRaster) => void {
  const frames = new FrameRaster()
  let points: FramePoints | null = null
  let selected: Uint8Array | null = null
  return (message) => {
    switch (message.kind) {
      case 'points':
        points = message.points
        return
      case 'selection':
        selected = message.selected
        return
      case 'draw': {
        try {
          if (!points) throw new Error('A frame was asked for before any points were sent.')
          const { raster, inView } = frames.draw(points, selected, message.request)
          const { image, transfer } = toImage(raster)
          port.postMessage({ kind: 'drawn', id: message.id, image, inView }, transfer)
        } catch (error) {
          const text = error instanceof Error ? error.message : String(error)
          port.postMessage({ kind: 'failed', id: message.id, message: text }, [])
        }
      }
    }
  }
}
