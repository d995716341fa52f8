/**
 * The painters over real drawing: the worker's side (`serveFrames`) answering through a Node
 * MessageChannel, as the browser's worker answers through its port, and the plot's own thread;
 * frames are checked against the raster drawing the same request directly.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { pixel } from './colours.ts'
import {
  canvasPlacement,
  LocalPainter,
  WorkerPainter,
  type FrameImages,
  type PaintedFrame,
  type RasterPort,
} from './frame-painter.ts'
import {
  FrameRaster,
  serveFrames,
  shownPixels,
  type FramePoints,
  type FrameRequest,
  type FromRaster,
  type ToRaster,
} from './full-frame.ts'
import { layoutPoints, noValue } from './point-layout.ts'
import { fullView, panBy, zoomAt, type ViewWindow } from './view-window.ts'

const width = 120
const height = 80

/** 2,000 points spread over the plot, coloured along x, some qualified. */
function samplePoints(): FramePoints {
  const count = 2000
  const ids = Array.from({ length: count }, (_, index) => index)
  const xs = ids.map((index) => Math.sin(index * 12.9898) * 50 + 50)
  const ys = ids.map((index) => Math.cos(index * 78.233) * 20 + index / 100)
  const layout = layoutPoints(
    {
      ids,
      x: { label: 'x', values: xs, modifiers: ids.map((index) => (index % 97 === 0 ? '>' : null)) },
      y: { label: 'y', values: ys },
      colour: { label: 'c', values: xs },
    },
    { x: 'linear', y: 'linear', colour: 'linear' },
  )
  return layout
}

function request(view: ViewWindow, diameter = 3): FrameRequest {
  const palette = new Uint32Array(noValue + 1)
  for (let position = 0; position <= noValue; position += 1) {
    palette[position] = pixel([position & 255, 80, 255 - (position & 255)])
  }
  return {
    view,
    width,
    height,
    ratio: 1,
    style: {
      background: pixel([255, 255, 255]),
      gridColour: pixel([220, 220, 220]),
      gridColumns: [10, 60],
      gridRows: [40],
      palette,
      fadedPalette: palette.map((word) => (word & 0xff000000) | 0xc0c0c0),
      plainColour: pixel([0, 0, 255]),
      fadedPlainColour: pixel([200, 200, 255]),
      opacity: 0.6,
      diameter,
      diameters: null,
    },
  }
}

/** What the raster draws for the request here, without a worker. */
function drawnHere(points: FramePoints, selected: Uint8Array | null, asked: FrameRequest) {
  const { raster, inView } = new FrameRaster().draw(points, selected, asked)
  return { pixels: shownPixels(raster), inView }
}

const ports: MessagePort[] = []
afterEach(() => {
  vi.useRealTimers()
  for (const port of ports.splice(0)) port.close()
})

/**
 * A WorkerPainter whose "worker" is serveFrames on the other end of a MessageChannel; records
 * the messages the worker received, and the frames and failures the painter reported.
 */
function overChannel() {
  const { port1, port2 } = new MessageChannel()
  ports.push(port1, port2)
  const received: ToRaster['kind'][] = []
  const answer = serveFrames<Uint32Array>(
    port2 as unknown as { postMessage(message: FromRaster<Uint32Array>, transfer: []): void },
    (raster) => {
      const pixels = shownPixels(raster)
      return { image: pixels, transfer: [pixels.buffer] }
    },
  )
  port2.on('message', (message: ToRaster) => {
    received.push(message.kind)
    answer(message)
  })
  const frames: PaintedFrame<Uint32Array>[] = []
  const failures: string[] = []
  let arrived: () => void = () => {}
  const painter = new WorkerPainter<Uint32Array>(port1 as unknown as RasterPort<Uint32Array>, {
    onframe: (frame) => {
      frames.push(frame)
      arrived()
    },
    onfailure: (message) => {
      failures.push(message)
      arrived()
    },
  })
  /** Resolves once this many frames and failures in all have come back. */
  const answers = (count: number) =>
    new Promise<void>((resolve) => {
      arrived = () => {
        if (frames.length + failures.length >= count) resolve()
      }
      arrived()
    })
  return { painter, received, frames, failures, answers }
}

describe('the worker painter', () => {
  it('draws the frame asked for in the worker, pixel for pixel as drawn here', async () => {
    const points = samplePoints()
    const { painter, frames, answers } = overChannel()
    const asked = request(zoomAt(fullView, 2, 30, 20, width, height))
    painter.request(points, null, asked, false)
    await answers(1)
    const here = drawnHere(points, null, asked)
    expect(frames[0]!.inView).toBe(here.inView)
    expect(frames[0]!.inView).toBeGreaterThan(0)
    expect(frames[0]!.inView).toBeLessThan(points.count)
    expect(frames[0]!.image).toEqual(here.pixels)
    expect(frames[0]!.request).toBe(asked)
    expect(frames[0]!.points).toBe(points)
  })

  it('draws the newest view next, skipping those asked for meanwhile', async () => {
    const points = samplePoints()
    const { painter, received, frames, answers } = overChannel()
    const first = request(fullView)
    const skipped = request(panBy(zoomAt(fullView, 2, 60, 40, width, height), 5, 0, width, height))
    const newest = request(zoomAt(fullView, 4, 60, 40, width, height))
    painter.request(points, null, first, false)
    painter.request(points, null, skipped, false)
    painter.request(points, null, newest, false)
    expect(painter.busy).toBe(true)
    await answers(2)
    expect(frames.map((frame) => frame.request)).toEqual([first, newest])
    expect(frames[1]!.image).toEqual(drawnHere(points, null, newest).pixels)
    // The points crossed once, for both frames.
    expect(received).toEqual(['points', 'selection', 'draw', 'draw'])
    expect(painter.busy).toBe(false)
  })

  it('sends a new selection alone, and draws with it', async () => {
    const points = samplePoints()
    const { painter, received, frames, answers } = overChannel()
    painter.request(points, null, request(fullView), false)
    await answers(1)
    const selected = new Uint8Array(points.count)
    for (let position = 0; position < points.count; position += 3) selected[position] = 1
    const asked = request(fullView)
    painter.request(points, selected, asked, false)
    await answers(2)
    expect(received).toEqual(['points', 'selection', 'draw', 'selection', 'draw'])
    const here = drawnHere(points, selected, asked)
    expect(frames[1]!.image).toEqual(here.pixels)
    expect(frames[1]!.image).not.toEqual(frames[0]!.image)
  })

  it('reports a frame the worker cannot draw, and draws the next', async () => {
    const points = samplePoints()
    const { painter, frames, failures, answers } = overChannel()
    painter.request(points, new Uint8Array(5), request(fullView), false)
    await answers(1)
    expect(failures).toEqual([
      `The selection covers 5 points of a plot of ${points.count}: they must be the same.`,
    ])
    painter.request(points, null, request(fullView), false)
    await answers(2)
    expect(frames).toHaveLength(1)
  })

  it('paces a gesture: a frame starts at most every tenth of a second, at once when it settles', async () => {
    // Only the timers are faked: the channel's messages go on passing.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const points = samplePoints()
    const { painter, received, frames, answers } = overChannel()
    const draws = () => received.filter((kind) => kind === 'draw').length
    const zoomed = zoomAt(fullView, 2, 60, 40, width, height)
    const steps = [1, 2, 3, 4].map((step) => request(panBy(zoomed, step, 0, width, height)))
    painter.request(points, null, steps[0]!, true)
    await answers(1)
    // The next step of the gesture waits for the pause, however free the worker is.
    painter.request(points, null, steps[1]!, true)
    painter.request(points, null, steps[2]!, true)
    await new Promise((resolve) => setImmediate(resolve))
    expect(draws()).toBe(1)
    expect(painter.busy).toBe(true)
    vi.advanceTimersByTime(100)
    await answers(2)
    // Only the newest step was drawn.
    expect(frames.map((frame) => frame.request)).toEqual([steps[0], steps[2]])
    // The gesture settles: its last view is drawn without waiting.
    painter.request(points, null, steps[3]!, true)
    painter.settle()
    await answers(3)
    expect(frames[2]!.request).toBe(steps[3])
    // A request that is no gesture's (a key, a new selection) does not wait either.
    painter.request(points, null, steps[0]!, true)
    await answers(4)
    painter.request(points, null, steps[1]!, false)
    await answers(5)
    expect(frames.map((frame) => frame.request).slice(3)).toEqual([steps[0], steps[1]])
    expect(draws()).toBe(5)
  })

  it('says so when asked to draw before any points came', () => {
    const answered: FromRaster<Uint32Array>[] = []
    const answer = serveFrames<Uint32Array>(
      { postMessage: (message) => answered.push(message) },
      () => {
        throw new Error('nothing to make an image of')
      },
    )
    answer({ kind: 'draw', id: 7, request: request(fullView) })
    expect(answered).toEqual([
      { kind: 'failed', id: 7, message: 'A frame was asked for before any points were sent.' },
    ])
  })
})

describe("the plot's own thread as painter", () => {
  const images: FrameImages<Uint32Array> = {
    make: (raster) => shownPixels(raster),
    release: () => {},
  }

  function painterHere() {
    const frames: PaintedFrame<Uint32Array>[] = []
    const failures: string[] = []
    const painter = new LocalPainter<Uint32Array>(
      { onframe: (frame) => frames.push(frame), onfailure: (message) => failures.push(message) },
      images,
    )
    return { painter, frames, failures }
  }

  it('draws at once while nothing moves', () => {
    const points = samplePoints()
    const { painter, frames } = painterHere()
    const asked = request(fullView)
    painter.request(points, null, asked, false)
    expect(frames).toHaveLength(1)
    expect(frames[0]!.image).toEqual(drawnHere(points, null, asked).pixels)
  })

  it('holds frames back during a gesture and draws the newest when it settles', () => {
    vi.useFakeTimers()
    const points = samplePoints()
    const { painter, frames } = painterHere()
    const zoomed = zoomAt(fullView, 2, 60, 40, width, height)
    painter.request(points, null, request(zoomed), true)
    const newest = request(panBy(zoomed, 10, 0, width, height))
    painter.request(points, null, newest, true)
    expect(frames).toHaveLength(0)
    painter.settle()
    expect(frames.map((frame) => frame.request)).toEqual([newest])
    painter.settle()
    expect(frames).toHaveLength(1)
  })

  it('still draws now and then during a long gesture', () => {
    vi.useFakeTimers()
    const points = samplePoints()
    const { painter, frames } = painterHere()
    painter.request(points, null, request(fullView), true)
    vi.advanceTimersByTime(100)
    expect(frames).toHaveLength(0)
    const later = request(zoomAt(fullView, 2, 60, 40, width, height))
    painter.request(points, null, later, true)
    vi.advanceTimersByTime(1000)
    expect(frames.map((frame) => frame.request)).toEqual([later])
  })

  it('reports what it cannot draw', () => {
    const points = samplePoints()
    const { painter, frames, failures } = painterHere()
    painter.request(points, new Uint8Array(3), request(fullView), false)
    expect(frames).toHaveLength(0)
    expect(failures[0]).toMatch(/selection covers 3 points/)
  })
})

describe('placing the canvas for the view shown', () => {
  const numbers = (transform: string) =>
    (transform.match(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/g) ?? []).map(Number)

  it('needs no transform for the view and size drawn', () => {
    const view = zoomAt(fullView, 2, 30, 20, width, height)
    expect(canvasPlacement(request(view), view, width, height, 1)).toEqual({
      transform: '',
      exact: true,
    })
  })

  it('moves the frame by a pan in CSS pixels, at any pixel ratio', () => {
    const zoomed = zoomAt(fullView, 2, 60, 40, width, height)
    for (const ratio of [1, 2]) {
      // The frame is drawn at ratio × the CSS size; the pan is in CSS pixels.
      const drawn: FrameRequest = {
        ...request(zoomed),
        width: width * ratio,
        height: height * ratio,
        ratio,
      }
      const panned = panBy(zoomed, 12, -7, width, height)
      const { transform, exact } = canvasPlacement(
        drawn,
        panned,
        width * ratio,
        height * ratio,
        ratio,
      )
      expect(exact).toBe(false)
      const [x, y, scaleX, scaleY] = numbers(transform)
      expect(x).toBeCloseTo(12, 9)
      expect(y).toBeCloseTo(-7, 9)
      expect(scaleX).toBeCloseTo(1, 12)
      expect(scaleY).toBeCloseTo(1, 12)
    }
  })

  it('scales a gesture frame drawn at ratio 1 up to a screen of ratio 2, never as exact', () => {
    const view = zoomAt(fullView, 2, 30, 20, width, height)
    // The same view, drawn with a quarter of the screen's pixels.
    const { transform, exact } = canvasPlacement(request(view), view, width * 2, height * 2, 2)
    expect(exact).toBe(false)
    const [x, y, scaleX, scaleY] = numbers(transform)
    expect(x).toBeCloseTo(0, 9)
    expect(y).toBeCloseTo(0, 9)
    // Shown at its CSS size (width × height CSS pixels): no scale beyond the ratio's own.
    expect(scaleX).toBeCloseTo(1, 12)
    expect(scaleY).toBeCloseTo(1, 12)
    const sharp: FrameRequest = { ...request(view), width: width * 2, height: height * 2, ratio: 2 }
    expect(canvasPlacement(sharp, view, width * 2, height * 2, 2)).toEqual({
      transform: '',
      exact: true,
    })
  })

  it('scales the frame about the pointer for a zoom', () => {
    const zoomed = zoomAt(fullView, 2, 30, 20, width, height)
    const { transform } = canvasPlacement(request(fullView), zoomed, width, height, 1)
    const [x, y, scaleX, scaleY] = numbers(transform)
    expect(scaleX).toBeCloseTo(2, 12)
    expect(scaleY).toBeCloseTo(2, 12)
    // The pixel under the pointer stays where it is.
    expect(x! + 30 * scaleX!).toBeCloseTo(30, 9)
    expect(y! + 20 * scaleY!).toBeCloseTo(20, 9)
  })
})
