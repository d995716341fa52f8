/**
 * The scatter plot with 250,000 points in Chromium, measured inside the page with
 * performance.now() and requestAnimationFrame (the component gallery's plot, `#/gallery`, through
 * the browser harness and playwright-core):
 *
 * - first draw: from handing the plot 250,000 points (the gallery's "Molecules" picker going from
 *   1,000 to 250,000) to the end of the frame that shows them. Goal: under 500 ms.
 * - frame time during a scripted zoom in (60 wheel steps), pan (60 drag steps) and zoom out (60
 *   wheel steps; a pan of the whole plot would move nothing, so it comes between): the
 *   main thread's work for each frame, from the input event to the end of the frame that drew it
 *   (the frame's first requestAnimationFrame callback to a message posted from the drawing, which
 *   runs once the frame's rendering is done), p95. Goal: under 16 ms. The plot shows its last
 *   full frame moved to each new view while a worker draws a newer view in full (at most ten a
 *   second during the gesture). On a HiDPI screen the full frames of a gesture are drawn at a
 *   ratio of 1 and scaled up, a quarter of the pixels at 2 to clear, draw, copy and composite,
 *   and sharpened at the screen's ratio once it stops, as DataWarrior-class tools do (the settle
 *   includes that sharp frame). With the line, how many of the gesture's frames showed every
 *   point drawn for their own view at the screen's ratio (`exactFrames`), and the same steps
 *   moving a bare element by a CSS transform (`floorP95`, `floorP50`: what the browser and the
 *   machine take for any frame that changes the screen, which a loaded machine makes large).
 * - settle: from the gesture's last input to the end of the frame that shows every point drawn
 *   for the final view. No goal: what the frame time's trick leaves to catch up.
 * - hover: the pointermove handler, nearest point found in the spatial grid, p95 over 200
 *   positions, one per frame. Goal: under 2 ms.
 *
 * All of it at a device pixel ratio of 1 and again of 2 (a HiDPI screen: four times the pixels),
 * the second set named `..._dpr2`.
 *
 * References, measured in the same page in the same run: a bare canvas drawing the same number of
 * points with one fillRect each (256 colours, as the plot has), for the first draw, as frames and
 * for the settle; a linear scan for the nearest of 250,000 points, for the hover.
 *
 * The end-to-end suite (test/e2e/plots.e2e.ts) runs the same measurement and writes its lines to
 * bench-results/plots.jsonl. Needs `npm run build` first, and Debian's chromium.
 */
import type { Page } from 'playwright-core'
import { AppUnderTest } from '../test/e2e/support/app-under-test.ts'
import { watchForProblems } from '../test/e2e/support/chromium.ts'
import { percentile, progress, report, type BenchLine } from './report.ts'

export const scatterPoints = 250_000
const goals = { firstDrawMs: 500, frameP95Ms: 16, hoverP95Ms: 2 }

/**
 * Helpers defined in the page: `afterFrame()` resolves after the next frame has been rendered;
 * `nextDraw(canvas)` resolves after the frame in which the plot's canvas was drawn next, with
 * that frame's start (its first requestAnimationFrame callback) and end. Kept as source text:
 * this file is compiled for Node, without the DOM's types.
 */
const pageHelpers = `
  window.plotBench ??= (() => {
    let frameStart = 0
    const loop = () => {
      frameStart = performance.now()
      requestAnimationFrame(loop)
    }
    requestAnimationFrame(loop)
    const endOfFrame = () =>
      new Promise((resolve) => {
        const channel = new MessageChannel()
        channel.port1.onmessage = () => resolve(performance.now())
        channel.port2.postMessage(0)
      })
    const afterFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(endOfFrame())))
    const nextDraw = (canvas, timeoutMs = 10000) =>
      new Promise((resolve, reject) => {
        const before = canvas.dataset.frames
        const timer = setTimeout(() => {
          observer.disconnect()
          reject(new Error('The plot drew nothing within ' + timeoutMs + ' ms'))
        }, timeoutMs)
        const observer = new MutationObserver(() => {
          if (canvas.dataset.frames === before) return
          observer.disconnect()
          clearTimeout(timer)
          const start = frameStart
          endOfFrame().then((end) => resolve({ start, end }))
        })
        observer.observe(canvas, { attributes: true, attributeFilter: ['data-frames'] })
      })
    const plot = () => {
      const surface = document.querySelector('[aria-roledescription="scatter plot"]')
      const canvas = surface.parentElement.querySelector('canvas.points')
      return { surface, canvas, figure: surface.parentElement }
    }
    return { afterFrame, endOfFrame, nextDraw, plot, frameStartTime: () => frameStart }
  })()
`

/** First draw of the plot and of the bare-canvas reference, in the page. */
const firstDrawScript = `async (points) => {
  const { afterFrame, nextDraw, plot } = window.plotBench
  const picker = document.querySelector('#plot-count')
  const choose = async (count) => {
    const { canvas } = plot()
    const drawn = nextDraw(canvas, 60000)
    const started = performance.now()
    picker.value = String(count)
    picker.dispatchEvent(new Event('change', { bubbles: true }))
    const { end } = await drawn
    return { ms: end - started, inView: Number(canvas.dataset.pointsInView) }
  }
  await choose(1000)
  await afterFrame()
  await afterFrame()
  const plotted = await choose(points)
  await afterFrame()

  // The reference: as many fillRects on a bare canvas of the plot's size, bucketed by colour.
  const { canvas } = plot()
  const bare = document.createElement('canvas')
  bare.width = canvas.width
  bare.height = canvas.height
  bare.className = 'bench-bare-canvas'
  document.body.append(bare)
  const context = bare.getContext('2d', { alpha: false })
  const xs = new Float32Array(points)
  const ys = new Float32Array(points)
  const colours = new Uint8Array(points)
  for (let index = 0; index < points; index += 1) {
    xs[index] = Math.random() * bare.width
    ys[index] = Math.random() * bare.height
    colours[index] = index & 255
  }
  const styles = Array.from({ length: 256 }, (_, index) => 'rgb(' + index + ' 100 ' + (255 - index) + ')')
  const drawBare = () => {
    context.fillStyle = '#ffffff'
    context.fillRect(0, 0, bare.width, bare.height)
    for (let colour = 0; colour < 256; colour += 1) {
      context.fillStyle = styles[colour]
      for (let index = colour; index < points; index += 256) context.fillRect(xs[index], ys[index], 2, 2)
    }
  }
  await afterFrame()
  const bareStarted = performance.now()
  drawBare()
  const bareEnd = await window.plotBench.endOfFrame()
  const bareFirst = (await afterFrame()) - bareStarted
  const bareFrames = []
  for (let frame = 0; frame < 30; frame += 1) {
    const start = await new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())))
    drawBare()
    bareFrames.push((await window.plotBench.endOfFrame()) - start)
  }
  bare.remove()
  return { plotted, bareFirstMs: bareFirst, bareDrawMs: bareEnd - bareStarted, bareFrames }
}`

/**
 * The scripted pan and zoom: the work of each frame from its input to its end, whether the frame
 * showed a full frame of its own view, the settle after the last input; then the same steps for
 * the floor, a bare element whose listener asks for a frame that moves it.
 */
const panZoomScript = `async () => {
  const { afterFrame, nextDraw, plot, endOfFrame } = window.plotBench
  const { surface, canvas, figure } = plot()
  const box = surface.getBoundingClientRect()
  const centreX = box.left + box.width / 2
  const centreY = box.top + box.height / 2
  // A build without the worker has no data-exact: every frame of it is drawn in full.
  const exact = (target) => target.dataset.exact !== 'false'
  const frames = []
  let exactFrames = 0
  let lastInput = 0
  const step = async (target, dispatch, times, counted = true) => {
    await afterFrame()
    const drawn = nextDraw(target)
    const inputStarted = performance.now()
    lastInput = inputStarted
    dispatch()
    await Promise.resolve()
    const inputMs = performance.now() - inputStarted
    const { start, end } = await drawn
    times.push(inputMs + (end - Math.max(start, inputStarted)))
    if (counted && exact(target)) exactFrames += 1
  }
  const pointer = (type, x, y, buttons) =>
    new PointerEvent(type, {
      bubbles: true,
      cancelable: true,
      pointerId: 1,
      pointerType: 'mouse',
      isPrimary: true,
      button: type === 'pointermove' ? -1 : 0,
      buttons,
      clientX: x,
      clientY: y,
    })
  const wheel = (index) => {
    const x = box.left + box.width * (0.3 + 0.4 * ((index * 7) % 10) / 10)
    const y = box.top + box.height * (0.3 + 0.4 * ((index * 3) % 10) / 10)
    const deltaY = index < 60 ? -60 : 60
    return new WheelEvent('wheel', { bubbles: true, cancelable: true, deltaY, deltaMode: 0, clientX: x, clientY: y })
  }
  // In, across and out again: the whole plot cannot pan, so the pan comes between.
  for (let index = 0; index < 60; index += 1) {
    await step(canvas, () => figure.dispatchEvent(wheel(index)), frames)
  }
  surface.dispatchEvent(pointer('pointerdown', centreX, centreY, 1))
  for (let index = 1; index <= 60; index += 1) {
    const x = centreX + index * 3
    const y = centreY + Math.sin(index / 6) * 40
    await step(canvas, () => surface.dispatchEvent(pointer('pointermove', x, y, 1)), frames)
  }
  surface.dispatchEvent(pointer('pointerup', centreX + 180, centreY, 0))
  for (let index = 60; index < 120; index += 1) {
    await step(canvas, () => figure.dispatchEvent(wheel(index)), frames)
  }
  let settleMs = 0
  for (;;) {
    if (exact(canvas)) {
      settleMs = (await endOfFrame()) - lastInput
      break
    }
    await nextDraw(canvas)
  }
  await afterFrame()

  // The floor: a bare element on its own compositor layer, moved by a CSS transform each step.
  const floor = document.createElement('div')
  floor.className = 'bench-floor'
  floor.style.cssText =
    'position: fixed; left: 0; top: 0; width: 64px; height: 64px; background: #888; will-change: transform'
  document.body.append(floor)
  let floorCount = 0
  floor.addEventListener('bench-step', () =>
    requestAnimationFrame(() => {
      floorCount += 1
      floor.style.transform = 'translate(' + (floorCount % 50) + 'px, 0)'
      floor.dataset.frames = String(floorCount)
    }),
  )
  const floorFrames = []
  for (let index = 0; index < frames.length; index += 1) {
    await step(floor, () => floor.dispatchEvent(new Event('bench-step')), floorFrames, false)
  }
  floor.remove()
  return { frames, exactFrames, settleMs, floorFrames }
}`

/** Hover: the pointermove handler's time, one position per frame; and a linear-scan reference. */
const hoverScript = `async (points) => {
  const { afterFrame, plot } = window.plotBench
  const { surface } = plot()
  const box = surface.getBoundingClientRect()
  const times = []
  let seed = 12345
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
  for (let index = 0; index < 200; index += 1) {
    await afterFrame()
    const event = new PointerEvent('pointermove', {
      bubbles: true,
      pointerId: 1,
      pointerType: 'mouse',
      isPrimary: true,
      clientX: box.left + next() * box.width,
      clientY: box.top + next() * box.height,
    })
    const started = performance.now()
    surface.dispatchEvent(event)
    times.push(performance.now() - started)
  }
  surface.dispatchEvent(new PointerEvent('pointerleave', { bubbles: false }))
  const xs = new Float64Array(points)
  const ys = new Float64Array(points)
  for (let index = 0; index < points; index += 1) {
    xs[index] = next() * box.width
    ys[index] = next() * box.height
  }
  const scans = []
  let found = 0
  for (let query = 0; query < 200; query += 1) {
    const qx = next() * box.width
    const qy = next() * box.height
    const started = performance.now()
    let best = -1
    let bestDistance = 36
    for (let index = 0; index < points; index += 1) {
      const dx = xs[index] - qx
      const dy = ys[index] - qy
      const distance = dx * dx + dy * dy
      if (distance <= bestDistance) {
        bestDistance = distance
        best = index
      }
    }
    scans.push(performance.now() - started)
    found += best >= 0 ? 1 : 0
  }
  return { times, scans, found }
}`

const sorted = (values: readonly number[]) => [...values].sort((a, b) => a - b)
const round = (value: number) => Math.round(value * 1000) / 1000

/**
 * Measures the scatter plot of the gallery open in `page` (`#/gallery`, scrolled so the plot is
 * in view) and returns the benchmark lines.
 */
export async function measureScatterPlot(page: Page): Promise<BenchLine[]> {
  await page.evaluate(pageHelpers)
  const first = (await page.evaluate(`(${firstDrawScript})(${scatterPoints})`)) as {
    plotted: { ms: number; inView: number }
    bareFirstMs: number
    bareDrawMs: number
    bareFrames: number[]
  }
  const gesture = (await page.evaluate(`(${panZoomScript})()`)) as {
    frames: number[]
    exactFrames: number
    settleMs: number
    floorFrames: number[]
  }
  const hover = (await page.evaluate(`(${hoverScript})(${scatterPoints})`)) as {
    times: number[]
    scans: number[]
    found: number
  }
  const frameTimes = sorted(gesture.frames)
  const floorFrames = sorted(gesture.floorFrames)
  const bareFrames = sorted(first.bareFrames)
  const hoverTimes = sorted(hover.times)
  const scanTimes = sorted(hover.scans)
  const ratio = await page.evaluate('window.devicePixelRatio')
  const line = (
    name: string,
    value: number,
    reference: string,
    referenceValue: number,
    goalMs: number | null,
    extra: Record<string, unknown>,
  ): BenchLine => ({
    name: ratio === 1 ? name : `${name}_dpr${String(ratio)}`,
    value: round(value),
    unit: 'ms',
    reference,
    referenceValue: round(referenceValue),
    ratio: round(value / referenceValue),
    ...(goalMs === null ? {} : { goal: `under ${goalMs} ms`, met: value < goalMs }),
    points: scatterPoints,
    devicePixelRatio: ratio,
    ...extra,
  })
  return [
    line(
      'plots.scatter.first_draw',
      first.plotted.ms,
      `bare canvas, ${scatterPoints} fillRect calls, to the end of its frame`,
      first.bareFirstMs,
      goals.firstDrawMs,
      { pointsInView: first.plotted.inView, bareDrawCallsMs: round(first.bareDrawMs) },
    ),
    line(
      'plots.scatter.pan_zoom_frame_p95',
      percentile(frameTimes, 0.95),
      `bare canvas redrawing ${scatterPoints} fillRects per frame, p95`,
      percentile(bareFrames, 0.95),
      goals.frameP95Ms,
      {
        frames: frameTimes.length,
        p50: round(percentile(frameTimes, 0.5)),
        max: round(frameTimes[frameTimes.length - 1] ?? Number.NaN),
        exactFrames: gesture.exactFrames,
        floorP95: round(percentile(floorFrames, 0.95)),
        floorP50: round(percentile(floorFrames, 0.5)),
      },
    ),
    line(
      'plots.scatter.settle',
      gesture.settleMs,
      `bare canvas redrawing ${scatterPoints} fillRects per frame, p50`,
      percentile(bareFrames, 0.5),
      null,
      {},
    ),
    line(
      'plots.scatter.hover_p95',
      percentile(hoverTimes, 0.95),
      `linear scan for the nearest of ${scatterPoints} points, p95`,
      percentile(scanTimes, 0.95),
      goals.hoverP95Ms,
      {
        samples: hoverTimes.length,
        p50: round(percentile(hoverTimes, 0.5)),
        max: round(hoverTimes[hoverTimes.length - 1] ?? Number.NaN),
      },
    ),
  ]
}

/**
 * Waits until an expression is true in the page. (Playwright's waitForFunction compiles a string
 * inside the page, which the app's CSP forbids; page.evaluate does not.)
 */
export async function waitInPage(page: Page, expression: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms: ${expression}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * A page of the app at a device pixel ratio, as AppUnderTest.open makes one at 1 (which has no
 * option for it).
 */
async function openAtRatio(app: AppUnderTest, hash: string, deviceScaleFactor: number) {
  if (deviceScaleFactor === 1) return app.open(hash)
  const context = await app.browser.newContext({
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor,
    colorScheme: 'light',
    reducedMotion: 'reduce',
  })
  const page = await context.newPage()
  const problems = await watchForProblems(page)
  await page.goto(`${app.harness.url}${hash}`)
  return { page, context, problems }
}

/** Opens the gallery with its scatter plot in view and drawn. */
export async function openPlotGallery(app: AppUnderTest, deviceScaleFactor = 1) {
  const session = await openAtRatio(app, '#/gallery', deviceScaleFactor)
  const plot = session.page.getByRole('application', { name: /against/ })
  await plot.waitFor({ timeout: 60_000 })
  await plot.scrollIntoViewIfNeeded()
  await waitInPage(
    session.page,
    `Number(document.querySelector('canvas.points')?.dataset.frames ?? 0) > 0`,
    60_000,
  )
  return { ...session, plot }
}

if (import.meta.main) {
  const app = await AppUnderTest.start()
  try {
    for (const deviceScaleFactor of [1, 2]) {
      const { page, context } = await openPlotGallery(app, deviceScaleFactor)
      progress(
        `scatter plot of ${scatterPoints} points in Chromium, pixel ratio ${deviceScaleFactor}`,
      )
      for (const result of await measureScatterPlot(page)) report(result)
      await context.close()
    }
  } finally {
    await app.stop()
  }
}
