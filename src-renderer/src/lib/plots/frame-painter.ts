/**
 * Who draws a scatter plot's full frames (full-frame.ts), and how the plot shows them.
 *
 * A worker draws them where the browser has one (`WorkerPainter`): the plot asks for the frame of
 * its current view whenever the view changes, the worker draws the newest one asked for, at once
 * when nothing moves and during a pan or a zoom about ten times a second, and each of the plot's
 * frames only moves the latest one into place with a CSS transform (`canvasPlacement`). Without
 * a worker, or if it cannot start or draw, the plot's own thread draws them (`LocalPainter`): at
 * once when nothing moves, and during a gesture at most a few times a second, the frames between
 * placing the last one.
 */
import {
  FrameRaster,
  framePoints,
  RasterCanvas,
  type FramePoints,
  type FrameRequest,
  type FromRaster,
  type ToRaster,
} from './full-frame.ts'
import type { PointRaster } from './raster.ts'
import { isIdentityPlacement, placementBetween, type ViewWindow } from './view-window.ts'

/** A full frame drawn: its image and what it was drawn of. */
export interface PaintedFrame<Image = ImageBitmap> {
  image: Image
  points: FramePoints
  selected: Uint8Array | null
  request: FrameRequest
  /** Points inside the frame's view. */
  inView: number
  /** Frees the image once another frame has replaced it. */
  release(): void
}

export interface PainterEvents<Image = ImageBitmap> {
  /** A full frame is ready (it may come during `request` itself, from the plot's own thread). */
  onframe: (frame: PaintedFrame<Image>) => void
  /** A frame could not be drawn: why, for the console. */
  onfailure: (message: string) => void
}

export interface FramePainter {
  readonly kind: 'worker' | 'local'
  /**
   * Asks for the full frame of these points, selection and request; it replaces any request not
   * yet started. `moving` says a pan or zoom is under way (see LocalPainter).
   */
  request(
    points: FramePoints,
    selected: Uint8Array | null,
    request: FrameRequest,
    moving: boolean,
  ): void
  /** The gesture has ended: a frame held back for it is drawn now. */
  settle(): void
  dispose(): void
}

/** How a painter in the plot's own thread keeps a frame's pixels as an image. */
export interface FrameImages<Image> {
  /** An image of the raster's shown pixels, which outlives the raster's next frame. */
  make(raster: PointRaster): Image
  release(image: Image): void
}

/** Frames as ImageBitmaps, what the worker sends too: the canvas takes them without a copy. */
export function bitmapImages(): FrameImages<ImageBitmap> {
  const canvas = new RasterCanvas()
  return {
    make: (raster) => canvas.paint(raster).transferToImageBitmap(),
    release: (image) => image.close(),
  }
}

/** The port to a drawing thread: a Worker, or one end of a MessageChannel. */
export interface RasterPort<Image> {
  postMessage(message: ToRaster, transfer: Transferable[]): void
  onmessage: ((event: MessageEvent<FromRaster<Image>>) => void) | null
}

interface Wanted {
  points: FramePoints
  selected: Uint8Array | null
  request: FrameRequest
}

/**
 * During a gesture the worker starts a full frame at most this often. Drawing without a pause
 * would keep a core busy the whole gesture, and on a machine of two cores, loaded as a shared one
 * is, the page's own thread then waits for the processor and misses frames; ten full frames a
 * second still fill in what a pan uncovers and sharpen what a zoom enlarges.
 */
const movingFrameMs = 100

/**
 * Full frames drawn by a worker, one at a time: a request made while one is being drawn waits,
 * and a later request replaces it, so the worker always draws the newest view next. During a
 * gesture (`moving`) a frame starts no sooner than `movingFrameMs` after the last one started,
 * unless the gesture settles or a request comes that is not part of one. The points and the
 * selection cross only when they change (as copies: the plot keeps its own).
 */
export class WorkerPainter<Image = ImageBitmap> implements FramePainter {
  readonly kind = 'worker'
  readonly #port: RasterPort<Image>
  readonly #events: PainterEvents<Image>
  readonly #release: (image: Image) => void
  #sentPoints: FramePoints | null = null
  #sentSelected: Uint8Array | null | undefined = undefined
  #drawing: (Wanted & { id: number }) | null = null
  #wanted: (Wanted & { moving: boolean }) | null = null
  /** Set while a gesture's last frame started less than `movingFrameMs` ago. */
  #pause: ReturnType<typeof setTimeout> | null = null
  #nextId = 1
  #disposed = false

  constructor(
    port: RasterPort<Image>,
    events: PainterEvents<Image>,
    release: (image: Image) => void = () => {},
  ) {
    this.#port = port
    this.#events = events
    this.#release = release
    port.onmessage = (event) => this.#answered(event.data)
  }

  /** Whether a frame is being drawn or waits to be. */
  get busy(): boolean {
    return this.#drawing !== null || this.#wanted !== null
  }

  request(
    points: FramePoints,
    selected: Uint8Array | null,
    request: FrameRequest,
    moving: boolean,
  ): void {
    if (this.#disposed) return
    this.#wanted = { points, selected, request, moving }
    if (!moving) this.#endPause()
    this.#sendWhenFree()
  }

  settle(): void {
    this.#endPause()
    if (this.#wanted) this.#wanted.moving = false
    this.#sendWhenFree()
  }

  dispose(): void {
    this.#disposed = true
    this.#wanted = null
    this.#endPause()
    this.#port.onmessage = null
  }

  #endPause(): void {
    if (this.#pause !== null) clearTimeout(this.#pause)
    this.#pause = null
  }

  /** Sends the frame wanted unless one is being drawn or a gesture's pause runs. */
  #sendWhenFree(): void {
    const wanted = this.#wanted
    if (!wanted || this.#drawing || this.#pause !== null) return
    this.#wanted = null
    if (wanted.moving) {
      this.#pause = setTimeout(() => {
        this.#pause = null
        this.#sendWhenFree()
      }, movingFrameMs)
    }
    if (wanted.points !== this.#sentPoints) {
      this.#port.postMessage({ kind: 'points', points: framePoints(wanted.points) }, [])
      this.#sentPoints = wanted.points
      this.#sentSelected = undefined
    }
    if (wanted.selected !== this.#sentSelected) {
      this.#port.postMessage({ kind: 'selection', selected: wanted.selected }, [])
      this.#sentSelected = wanted.selected
    }
    const id = this.#nextId++
    this.#drawing = { ...wanted, id }
    this.#port.postMessage({ kind: 'draw', id, request: wanted.request }, [])
  }

  #answered(message: FromRaster<Image>): void {
    const drawing = this.#drawing
    if (!drawing || message.id !== drawing.id) {
      if (message.kind === 'drawn') this.#release(message.image)
      return
    }
    this.#drawing = null
    if (message.kind === 'drawn') {
      const image = message.image
      this.#events.onframe({
        image,
        points: drawing.points,
        selected: drawing.selected,
        request: drawing.request,
        inView: message.inView,
        release: () => this.#release(image),
      })
    } else {
      this.#events.onfailure(message.message)
    }
    this.#sendWhenFree()
  }
}

/** During a gesture, the plot's own thread draws a full frame at most this often. */
const movingRedrawMs = 250

/**
 * Full frames drawn in the plot's own thread, for a browser without workers. A request made while
 * nothing moves is drawn at once, before `request` returns; during a gesture a request waits, so
 * that frames stay short, and is drawn when the gesture settles or `movingRedrawMs` after it was
 * first held back, whichever comes first.
 */
export class LocalPainter<Image = ImageBitmap> implements FramePainter {
  readonly kind = 'local'
  readonly #events: PainterEvents<Image>
  readonly #images: FrameImages<Image>
  readonly #frames = new FrameRaster()
  #wanted: Wanted | null = null
  #timer: ReturnType<typeof setTimeout> | null = null

  constructor(events: PainterEvents<Image>, images: FrameImages<Image>) {
    this.#events = events
    this.#images = images
  }

  request(
    points: FramePoints,
    selected: Uint8Array | null,
    request: FrameRequest,
    moving: boolean,
  ): void {
    this.#wanted = { points, selected, request }
    if (!moving) this.#draw()
    else this.#timer ??= setTimeout(() => this.#draw(), movingRedrawMs)
  }

  settle(): void {
    if (this.#wanted) this.#draw()
  }

  dispose(): void {
    this.#wanted = null
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
  }

  #draw(): void {
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    const wanted = this.#wanted
    if (!wanted) return
    this.#wanted = null
    let frame: PaintedFrame<Image>
    try {
      const { raster, inView } = this.#frames.draw(wanted.points, wanted.selected, wanted.request)
      const image = this.#images.make(raster)
      frame = { ...wanted, image, inView, release: () => this.#images.release(image) }
    } catch (error) {
      this.#events.onfailure(error instanceof Error ? error.message : String(error))
      return
    }
    this.#events.onframe(frame)
  }
}

/**
 * The painter for this browser: a worker, falling back to the plot's own thread (for good) if the
 * worker cannot be made, does not load, or fails to draw; the request it had is drawn again.
 */
export function createFramePainter(events: PainterEvents): FramePainter {
  if (typeof Worker === 'undefined') {
    return new LocalPainter(events, bitmapImages())
  }
  let worker: Worker
  try {
    worker = new Worker(new URL('./raster-worker.ts', import.meta.url), {
      type: 'module',
      name: 'scatter plot drawing',
    })
  } catch {
    return new LocalPainter(events, bitmapImages())
  }
  return new FallingBackPainter(worker, events)
}

class FallingBackPainter implements FramePainter {
  #painter: FramePainter
  #worker: Worker | null
  readonly #events: PainterEvents
  #last: (Wanted & { moving: boolean }) | null = null

  constructor(worker: Worker, events: PainterEvents) {
    this.#events = events
    this.#worker = worker
    this.#painter = new WorkerPainter<ImageBitmap>(
      worker,
      { onframe: events.onframe, onfailure: (message) => this.#fallBack(message) },
      (image) => image.close(),
    )
    worker.onerror = (event) => {
      event.preventDefault()
      this.#fallBack(event.message || 'the drawing worker did not start')
    }
  }

  get kind(): 'worker' | 'local' {
    return this.#painter.kind
  }

  request(
    points: FramePoints,
    selected: Uint8Array | null,
    request: FrameRequest,
    moving: boolean,
  ): void {
    this.#last = { points, selected, request, moving }
    this.#painter.request(points, selected, request, moving)
  }

  settle(): void {
    this.#painter.settle()
  }

  dispose(): void {
    this.#painter.dispose()
    this.#worker?.terminate()
    this.#worker = null
  }

  #fallBack(reason: string): void {
    if (!this.#worker) return
    console.warn(`The scatter plot draws in the page's own thread: ${reason}`)
    this.#painter.dispose()
    this.#worker.terminate()
    this.#worker = null
    this.#painter = new LocalPainter(this.#events, bitmapImages())
    const last = this.#last
    if (last) this.#painter.request(last.points, last.selected, last.request, last.moving)
  }
}

/**
 * How the plot's canvas, holding a full frame at its own size (`request.width` × `request.height`
 * device pixels, shown at that size over `request.ratio`), is moved and scaled by a CSS transform
 * to show `view` on a plot of `width` × `height` device pixels at the screen's `ratio`: the
 * compositor then moves the picture, and a frame of a pan or a zoom repaints nothing. `exact` when
 * the frame was drawn for this very view, size and ratio, which needs no transform.
 */
export function canvasPlacement(
  request: FrameRequest,
  view: ViewWindow,
  width: number,
  height: number,
  ratio: number,
): { transform: string; exact: boolean } {
  const placement = placementBetween(
    request.view,
    request.width / request.ratio,
    request.height / request.ratio,
    view,
    width / ratio,
    height / ratio,
  )
  const sameSize = request.width === width && request.height === height && request.ratio === ratio
  if (sameSize && isIdentityPlacement(placement)) return { transform: '', exact: true }
  const { x, y, scaleX, scaleY } = placement
  return { transform: `translate(${x}px, ${y}px) scale(${scaleX}, ${scaleY})`, exact: false }
}
