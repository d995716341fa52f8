/**
 * The scatter plot and histogram of the component gallery (`#/gallery`) in Chromium, with 250,000
 * made-up molecules: what they draw, what a hover shows, what a box, a lasso and the keyboard
 * select, zoom and reset, and what a log axis leaves out, each checked against the sample data
 * worked out here (sample-points.ts makes the same molecules on both sides). Then the speed
 * measurement of bench/plots.bench.ts, whose lines go to bench-results/plots.jsonl: timings are
 * measured, never asserted.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { measureScatterPlot, openPlotGallery, scatterPoints } from '../../bench/plots.bench.ts'
import { parseColour, type Rgb } from '../../src-renderer/src/lib/plots/colours.ts'
import { columnExtent, scaleOf, type Scale } from '../../src-renderer/src/lib/plots/scales.ts'
import { formatValue } from '../../src-renderer/src/lib/plots/ticks.ts'
import {
  fullView,
  panBy,
  pixelMapping,
  unitAt,
  zoomAt,
  type ViewWindow,
} from '../../src-renderer/src/lib/plots/view-window.ts'
import { sampleName, samplePoints } from '../../src-renderer/src/screens/gallery/sample-points.ts'
import { requirement } from '../support/environment.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled, watchForProblems } from './support/chromium.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')
const resultsFile = path.resolve(import.meta.dirname, '../../bench-results/plots.jsonl')
/**
 * How long to wait for the plot to show what an input asked for (a view drawn in full, for which
 * the worker draws 250,000 points, or a tooltip): a loaded machine can take seconds over it.
 * Waited for, never timed.
 */
const shownSoon = { timeout: 20_000 }

/**
 * The page's script reading the plot canvas' colour at device pixel (x, y). The canvas holds an
 * ImageBitmap (a bitmaprenderer context, no getImageData): copied onto a 2D canvas to read it.
 */
function pointsPixel(x: number, y: number): string {
  return `(() => {
    const scratch = new OffscreenCanvas(1, 1).getContext('2d')
    scratch.drawImage(document.querySelector('canvas.points'), ${-Math.floor(x)}, ${-Math.floor(y)})
    return Array.from(scratch.getImageData(0, 0, 1, 1).data.slice(0, 3))
  })()`
}

describe.runIf(available)('plots of 250,000 molecules in Chromium', () => {
  const sample = samplePoints(scatterPoints)
  const weight = sample.molecularWeight.values
  const logP = sample.logP.values
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>
  let surface: Locator
  /** The plot area on the page, in CSS pixels. */
  let area: { x: number; y: number; width: number; height: number }
  let xScale: Scale
  let yScale: Scale

  const selection = () => page.getByTestId('plot-selection')
  const selectedCount = async () =>
    Number(
      /^([\d,]+) selected/
        .exec((await selection().textContent()) ?? '')?.[1]
        ?.replaceAll(',', '') ?? NaN,
    )
  const canvasPixel = async (x: number, y: number): Promise<Rgb> =>
    (await page.evaluate(pointsPixel(x, y))) as unknown as Rgb
  const token = async (name: string) =>
    parseColour(
      (await page.evaluate(
        `getComputedStyle(document.documentElement).getPropertyValue('${name}')`,
      )) as string,
    )!
  /** The values the x axis marks, as its canvas of ticks says. */
  const xTickValues = async () =>
    ((await page.locator('canvas[data-ticks-of="bottom"]').getAttribute('data-ticks')) ?? '')
      .split(' ')
      .filter((value) => value !== '')
      .map(Number)

  /** Where a molecule's point is, in pixels of the plot area (whole view unless told). */
  const pixelOf = (row: number, view: ViewWindow = fullView) => {
    const mapping = pixelMapping(view, area.width, area.height)
    return {
      x: (xScale.toUnit(weight[row]!) - mapping.x0) * mapping.xScale,
      y: area.height - (yScale.toUnit(logP[row]!) - mapping.y0) * mapping.yScale,
    }
  }
  /** The data a pixel of the plot area stands for (whole view). */
  const dataAt = (x: number, y: number) => {
    const { u, v } = unitAt(fullView, x, y, area.width, area.height)
    return { x: xScale.fromUnit(u), y: yScale.fromUnit(v) }
  }
  const shown = (row: number) => weight[row] !== null && logP[row] !== null

  /**
   * Rows drawn well apart from every other (the nearest other point is this far, in pixels) as
   * filled markers: not qualified, since a qualified value's ring is hollow.
   */
  function isolatedRows(apart: number, wanted: number): number[] {
    // Buckets `apart` wide: a point's near neighbours are in its bucket or the eight around it.
    const buckets = new Map<string, number[]>()
    const positions = weight.map((_, row) => (shown(row) ? pixelOf(row) : null))
    positions.forEach((position, row) => {
      if (!position) return
      const key = `${Math.floor(position.x / apart)},${Math.floor(position.y / apart)}`
      const bucket = buckets.get(key)
      if (bucket) bucket.push(row)
      else buckets.set(key, [row])
    })
    const found: number[] = []
    for (let row = 0; row < positions.length && found.length < wanted; row += 1) {
      const here = positions[row]
      if (sample.ic50.modifiers![row] !== null) continue
      if (
        !here ||
        here.x < 30 ||
        here.x > area.width - 30 ||
        here.y < 30 ||
        here.y > area.height - 30
      )
        continue
      const column = Math.floor(here.x / apart)
      const line = Math.floor(here.y / apart)
      // Only points alone in their own bucket are worth checking (most points are in crowds).
      if (buckets.get(`${column},${line}`)!.length > 1) continue
      let alone = true
      for (let dx = -1; dx <= 1 && alone; dx += 1) {
        for (let dy = -1; dy <= 1 && alone; dy += 1) {
          for (const other of buckets.get(`${column + dx},${line + dy}`) ?? []) {
            const there = positions[other]!
            if (other !== row && Math.hypot(there.x - here.x, there.y - here.y) <= apart)
              alone = false
          }
        }
      }
      if (alone) found.push(row)
    }
    return found
  }

  beforeAll(async () => {
    const extent = (values: ArrayLike<number | null>) =>
      scaleOf(columnExtent(values, 'linear'), 'linear')!
    xScale = extent(weight)
    yScale = extent(logP)
    app = await AppUnderTest.start()
    const opened = await openPlotGallery(app)
    page = opened.page
    problems = opened.problems
    surface = opened.plot
    area = (await surface.boundingBox())!
    // Whole pixels: the plot's own arithmetic and this file's then agree exactly.
    expect(Number.isInteger(area.x) && Number.isInteger(area.y)).toBe(true)
  })

  afterEach(async () => {
    // No console error and nothing the CSP blocked, at every step.
    expect(await problems()).toEqual([])
  })

  afterAll(async () => {
    await app?.stop()
  })

  it('draws every molecule with both values, and says how many it leaves out', async () => {
    const both = weight.filter((_, row) => shown(row)).length
    await page.getByText(`Showing ${both.toLocaleString('en-US')} of 250,000 molecules.`).waitFor()
    const withoutWeight = weight.filter((value) => value === null).length
    await page
      .getByText(
        `${withoutWeight.toLocaleString('en-US')} molecules without a value for Molecular weight.`,
      )
      .waitFor()

    // Read back: lone points are drawn where they belong, empty places are background or grid.
    const background = await token('--color-surface')
    const grid = await token('--color-border')
    const lone = isolatedRows(12, 4)
    expect(lone.length).toBeGreaterThan(1)
    for (const row of lone) {
      const { x, y } = pixelOf(row)
      expect(await canvasPixel(x, y), sampleName(sample.ids[row]!)).not.toEqual(background)
      // 8 pixels to the side there is nothing.
      expect([background, grid]).toContainEqual(await canvasPixel(x + 8, y))
    }
    // The top left corner (light and oily) holds no molecule at all.
    expect([background, grid]).toContainEqual(await canvasPixel(3, 3))
    await page.screenshot({ path: app.screenshotPath('plots-scatter.png') })
  })

  it('shows the molecule under the pointer, with its values and structure', async () => {
    const [row] = isolatedRows(14, 1)
    const { x, y } = pixelOf(row!)
    await page.mouse.move(area.x + x + 1, area.y + y - 1)
    const tooltip = page.getByRole('tooltip')
    const name = sampleName(sample.ids[row!]!)
    await expect.poll(() => tooltip.textContent(), shownSoon).toContain(name)
    const text = (await tooltip.textContent())!.replace(/\s+/g, ' ')
    expect(text).toContain(`Molecular weight (g/mol) ${formatValue(weight[row!]!)}`)
    expect(text).toContain(`cLogP ${formatValue(logP[row!]!)}`)
    await tooltip.getByRole('img', { name: `Structure of ${name}` }).waitFor({ timeout: 30_000 })
    await page.screenshot({ path: app.screenshotPath('plots-hover.png') })
    await page.mouse.move(area.x + area.width + 40, area.y)
    await tooltip.waitFor({ state: 'detached' })
  })

  /** Shift-drags (or Alt-drags) through plot pixels. */
  async function dragThrough(modifier: 'Shift' | 'Alt', corners: { x: number; y: number }[]) {
    await page.keyboard.down(modifier)
    await page.mouse.move(area.x + corners[0]!.x, area.y + corners[0]!.y)
    await page.mouse.down()
    for (const corner of corners.slice(1)) {
      await page.mouse.move(area.x + corner.x, area.y + corner.y, { steps: 8 })
    }
    await page.mouse.up()
    await page.keyboard.up(modifier)
  }

  it('selects exactly the molecules inside a box', async () => {
    const from = { x: 200, y: 120 }
    const to = { x: 420, y: 300 }
    const a = dataAt(from.x, from.y)
    const b = dataAt(to.x, to.y)
    const inside = (row: number) =>
      shown(row) &&
      weight[row]! >= Math.min(a.x, b.x) &&
      weight[row]! <= Math.max(a.x, b.x) &&
      logP[row]! >= Math.min(a.y, b.y) &&
      logP[row]! <= Math.max(a.y, b.y)
    const expected = weight.filter((_, row) => inside(row)).length
    expect(expected).toBeGreaterThan(1000)
    await dragThrough('Shift', [from, to])
    await expect.poll(selectedCount).toBe(expected)
    await page.screenshot({ path: app.screenshotPath('plots-box-selection.png') })

    // A small box, to compare the molecules themselves.
    const [row] = isolatedRows(14, 1)
    const at = pixelOf(row!)
    const small = [
      { x: Math.round(at.x) - 20, y: Math.round(at.y) - 20 },
      { x: Math.round(at.x) + 20, y: Math.round(at.y) + 20 },
    ]
    const c = dataAt(small[0]!.x, small[0]!.y)
    const d = dataAt(small[1]!.x, small[1]!.y)
    const names = sample.ids
      .filter(
        (_, index) =>
          shown(index) &&
          weight[index]! >= c.x &&
          weight[index]! <= d.x &&
          logP[index]! >= d.y &&
          logP[index]! <= c.y,
      )
      .map(sampleName)
    expect(names.length).toBeGreaterThan(0)
    expect(names.length).toBeLessThanOrEqual(8)
    await dragThrough('Shift', small)
    await expect.poll(selectedCount).toBe(names.length)
    const listed = (await selection().textContent())!.split(': ')[1]!.split(', ')
    expect(new Set(listed)).toEqual(new Set(names))
  })

  it('selects exactly the molecules inside a lasso', async () => {
    const corners = [
      { x: 150, y: 80 },
      { x: 480, y: 140 },
      { x: 260, y: 330 },
    ]
    const polygon = corners.map((corner) => dataAt(corner.x, corner.y))
    // Winding number (not the plot's even-odd casting), which agrees inside a simple polygon.
    const inside = (x: number, y: number) => {
      let winding = 0
      polygon.forEach((start, index) => {
        const end = polygon[(index + 1) % polygon.length]!
        const cross = (end.x - start.x) * (y - start.y) - (x - start.x) * (end.y - start.y)
        if (start.y <= y && end.y > y && cross > 0) winding += 1
        else if (start.y > y && end.y <= y && cross < 0) winding -= 1
      })
      return winding !== 0
    }
    const expected = weight.filter(
      (_, row) => shown(row) && inside(weight[row]!, logP[row]!),
    ).length
    expect(expected).toBeGreaterThan(1000)
    await dragThrough('Alt', corners)
    await expect.poll(selectedCount).toBe(expected)
    await page.screenshot({ path: app.screenshotPath('plots-lasso-selection.png') })
  })

  it('moves a visible focus between points from the keyboard and selects with Enter', async () => {
    await surface.focus()
    await page.keyboard.press('ArrowRight')
    const tooltip = page.getByRole('tooltip')
    const first = /VD-\d{6}/.exec((await tooltip.textContent()) ?? '')?.[0]
    expect(first).toBeDefined()
    await page.keyboard.press('ArrowRight')
    const second = /VD-\d{6}/.exec((await tooltip.textContent()) ?? '')?.[0]
    expect(second).not.toBe(first)
    await page.locator('.focus-mark').waitFor()
    await page.keyboard.press('Enter')
    await expect.poll(() => selection().textContent()).toBe(`1 selected: ${second}`)
    await page.keyboard.press('Escape')
    await expect.poll(selectedCount).toBe(0)
  })

  it('zooms with the wheel and comes back with Reset view', async () => {
    const reset = page.getByRole('button', { name: 'Reset view' })
    expect(await reset.isDisabled()).toBe(true)
    const whole = await xTickValues()
    const inView = () => page.locator('canvas.points').getAttribute('data-points-in-view')
    const allInView = Number(await inView())
    await page.mouse.move(area.x + area.width / 2, area.y + area.height / 2)
    await page.mouse.wheel(0, -600)
    await expect.poll(async () => Number(await inView()), shownSoon).toBeLessThan(allInView / 2)
    const zoomed = await xTickValues()
    expect(zoomed[zoomed.length - 1]! - zoomed[0]!).toBeLessThan(
      whole[whole.length - 1]! - whole[0]!,
    )
    expect(await reset.isDisabled()).toBe(false)
    await page.screenshot({ path: app.screenshotPath('plots-zoomed.png') })
    await reset.click()
    await expect.poll(xTickValues, shownSoon).toEqual(whole)
    await expect.poll(async () => Number(await inView()), shownSoon).toBe(allInView)
  })

  /**
   * Waits until the plot shows `view` with every point drawn for it (not the last full frame moved
   * there), and says who drew it.
   */
  async function drawnExactly(target: Page, view: ViewWindow): Promise<string> {
    const canvas = target.locator('canvas.points')
    await expect
      .poll(async () => {
        const shown = ((await canvas.getAttribute('data-view')) ?? '').split(' ').map(Number)
        const wanted = [view.x0, view.x1, view.y0, view.y1]
        const same = shown.length === 4 && shown.every((at, i) => Math.abs(at - wanted[i]!) < 1e-9)
        return same && (await canvas.getAttribute('data-exact')) === 'true'
      }, shownSoon)
      .toBe(true)
    return (await canvas.getAttribute('data-painter')) ?? ''
  }

  /** Zooms in with the toolbar and returns the view it came to, once drawn exactly. */
  async function zoomIn(target: Page): Promise<ViewWindow> {
    await target.getByRole('button', { name: 'Zoom in' }).click()
    const canvas = target.locator('canvas.points')
    let view: ViewWindow = fullView
    await expect
      .poll(async () => {
        const [x0, x1, y0, y1] = ((await canvas.getAttribute('data-view')) ?? '')
          .split(' ')
          .map(Number)
        view = { x0: x0!, x1: x1!, y0: y0!, y1: y1! }
        const exact = (await canvas.getAttribute('data-exact')) === 'true'
        return exact && x1! - x0! < 0.9
      }, shownSoon)
      .toBe(true)
    return view
  }

  /** Rows drawn alone and, in `view`, well inside the plot. */
  function loneRowsIn(view: ViewWindow, wanted: number): number[] {
    return isolatedRows(14, 400)
      .filter((row) => {
        const { x, y } = pixelOf(row, view)
        return x > 30 && x < area.width - 30 && y > 30 && y < area.height - 30
      })
      .slice(0, wanted)
  }

  it('pans with a drag, ticks following, and draws every point again for the new view', async () => {
    const background = await token('--color-surface')
    const grid = await token('--color-border')
    const whole = await xTickValues()
    // Zoomed in first: the whole plot cannot pan.
    const zoomed = await zoomIn(page)
    expect(await drawnExactly(page, zoomed)).toBe('worker')
    const from = { x: 300, y: 200 }
    const by = { x: -90, y: 50 }
    await page.mouse.move(area.x + from.x, area.y + from.y)
    await page.mouse.down()
    await page.mouse.move(area.x + from.x + by.x, area.y + from.y + by.y, { steps: 12 })
    await page.mouse.up()
    const panned = panBy(zoomed, by.x, by.y, area.width, area.height)
    // Drawn by the worker for the new view: lone points where the new view puts them.
    expect(await drawnExactly(page, panned)).toBe('worker')
    const lone = loneRowsIn(panned, 4)
    expect(lone.length).toBeGreaterThan(1)
    for (const row of lone) {
      const { x, y } = pixelOf(row, panned)
      expect(await canvasPixel(x, y), sampleName(sample.ids[row]!)).not.toEqual(background)
      expect([background, grid]).toContainEqual(await canvasPixel(x + 8, y))
    }
    const ticks = await xTickValues()
    // Content moved left: the axis now starts further right, at a narrower span than the whole.
    expect(ticks[0]!).toBeGreaterThan(whole[0]!)
    expect(ticks[ticks.length - 1]! - ticks[0]!).toBeLessThan(whole[whole.length - 1]! - whole[0]!)
    await page.screenshot({ path: app.screenshotPath('plots-panned.png') })
    await page.getByRole('button', { name: 'Reset view' }).click()
    await drawnExactly(page, fullView)
    expect(await xTickValues()).toEqual(whole)
  })

  it('pans with Shift and the arrow keys, zooms with + and -, and 0 shows the whole plot', async () => {
    const canvas = page.locator('canvas.points')
    const shownView = async (): Promise<ViewWindow> => {
      const [x0, x1, y0, y1] = ((await canvas.getAttribute('data-view')) ?? '')
        .split(' ')
        .map(Number)
      return { x0: x0!, x1: x1!, y0: y0!, y1: y1! }
    }
    const whole = await xTickValues()
    await surface.focus()
    await page.keyboard.press('+')
    // A third narrower on both axes, around the focused point or the middle.
    await expect
      .poll(async () => (await shownView()).x1 - (await shownView()).x0, shownSoon)
      .toBeCloseTo(2 / 3, 9)
    const zoomed = await shownView()
    expect(zoomed.y1 - zoomed.y0).toBeCloseTo(2 / 3, 9)
    expect(await drawnExactly(page, zoomed)).toBe('worker')

    // Shift and → shows what lay to the right: a tenth of the plot, y as it was.
    await page.keyboard.press('Shift+ArrowRight')
    const span = zoomed.x1 - zoomed.x0
    const right = Math.min(1, zoomed.x1 + span / 10)
    await expect.poll(async () => (await shownView()).x1, shownSoon).toBeCloseTo(right, 9)
    const panned = await shownView()
    expect(panned.x1 - panned.x0).toBeCloseTo(span, 9)
    expect([panned.y0, panned.y1]).toEqual([zoomed.y0, zoomed.y1])
    // And ↑ with Shift what lay above, unless the view is at the top already.
    await page.keyboard.press('Shift+ArrowUp')
    const top = Math.min(1, panned.y1 + (panned.y1 - panned.y0) / 10)
    await expect.poll(async () => (await shownView()).y1, shownSoon).toBeCloseTo(top, 9)
    const moved = await shownView()
    expect(await drawnExactly(page, moved)).toBe('worker')
    const background = await token('--color-surface')
    const grid = await token('--color-border')
    const lone = loneRowsIn(moved, 3)
    expect(lone.length).toBeGreaterThan(0)
    for (const row of lone) {
      const { x, y } = pixelOf(row, moved)
      expect(await canvasPixel(x, y), sampleName(sample.ids[row]!)).not.toEqual(background)
      expect([background, grid]).toContainEqual(await canvasPixel(x + 8, y))
    }

    // - undoes + (about the same place), 0 shows the whole plot with its own ticks.
    await page.keyboard.press('-')
    await expect
      .poll(async () => (await shownView()).x1 - (await shownView()).x0, shownSoon)
      .toBeCloseTo(1, 9)
    await page.keyboard.press('+')
    await page.keyboard.press('0')
    expect(await drawnExactly(page, fullView)).toBe('worker')
    await expect.poll(xTickValues, shownSoon).toEqual(whole)
    expect(await page.getByRole('button', { name: 'Reset view' }).isDisabled()).toBe(true)
  })

  it('draws ticks and points at a device pixel ratio of 2, pixel for pixel', async () => {
    const sharp = await openPlotGallery(app, 2)
    try {
      const { page: hidpi } = sharp
      const plotArea = (await sharp.plot.boundingBox())!
      expect(plotArea.width).toBe(area.width)
      await drawnExactly(hidpi, fullView)
      const size = (await hidpi.evaluate(
        `(() => { const c = document.querySelector('canvas.points'); return [c.width, c.height] })()`,
      )) as number[]
      expect(size).toEqual([area.width * 2, area.height * 2])
      const background = parseColour(
        (await hidpi.evaluate(
          `getComputedStyle(document.documentElement).getPropertyValue('--color-surface')`,
        )) as string,
      )!
      const devicePixel = async (x: number, y: number) =>
        (await hidpi.evaluate(pointsPixel(x * 2, y * 2))) as unknown as Rgb
      for (const row of isolatedRows(12, 3)) {
        const { x, y } = pixelOf(row)
        expect(await devicePixel(x, y), sampleName(sample.ids[row]!)).not.toEqual(background)
      }
      // A tick mark under the axis line, where the x axis' first tick is.
      const tickInk = (await hidpi.evaluate(`(() => {
        const strip = document.querySelector('canvas[data-ticks-of="bottom"]')
        const data = strip.getContext('2d').getImageData(0, 0, strip.width, 8).data
        let ink = 0
        for (let index = 3; index < data.length; index += 4) ink += data[index] > 0 ? 1 : 0
        return ink
      })()`)) as number
      expect(tickInk).toBeGreaterThan(0)
      await hidpi.screenshot({ path: app.screenshotPath('plots-ratio-2.png') })

      // During a wheel zoom the full frames come at a ratio of 1 (a quarter of the pixels) and
      // are scaled up; once the gesture stops, the frame is drawn sharp at 2 again.
      const gesture = (await hidpi.evaluate(`(async () => {
        const surface = document.querySelector('[aria-roledescription="scatter plot"]')
        const figure = surface.parentElement
        const canvas = figure.querySelector('canvas.points')
        const box = surface.getBoundingClientRect()
        const frame = () => new Promise((resolve) => requestAnimationFrame(resolve))
        const widths = new Set()
        for (let step = 0; step < 400 && !widths.has(${area.width}); step += 1) {
          figure.dispatchEvent(new WheelEvent('wheel', {
            bubbles: true, cancelable: true, deltaY: step % 2 === 0 ? -40 : 38,
            clientX: box.left + box.width / 2, clientY: box.top + box.height / 2,
          }))
          await frame()
          widths.add(canvas.width)
        }
        return { widths: [...widths] }
      })()`)) as { widths: number[] }
      expect(gesture.widths).toContain(area.width)
      await expect
        .poll(async () => {
          const drawn = (await hidpi.evaluate(
            `(() => { const c = document.querySelector('canvas.points'); return [c.width, c.height, c.dataset.exact] })()`,
          )) as [number, number, string]
          return drawn
        }, shownSoon)
        .toEqual([area.width * 2, area.height * 2, 'true'])
      expect(await sharp.problems()).toEqual([])
    } finally {
      await sharp.context.close()
    }
  })

  it("draws in the page's own thread when the drawing worker cannot load", async () => {
    const context = await app.browser.newContext({ viewport: { width: 1280, height: 800 } })
    try {
      const own = await context.newPage()
      const problems = await watchForProblems(own)
      await own.route(/raster-worker.*\.js$/, (route) => route.abort())
      await own.goto(`${app.harness.url}#/gallery`)
      const plot = own.getByRole('application', { name: /against/ })
      await plot.waitFor({ timeout: 60_000 })
      await plot.scrollIntoViewIfNeeded()
      expect(await drawnExactly(own, fullView)).toBe('local')
      // Around the middle, the plot's own arithmetic (no point has the keyboard's focus here).
      const zoomed = zoomAt(fullView, 1.5, area.width / 2, area.height / 2, area.width, area.height)
      expect(await zoomIn(own)).toEqual(zoomed)
      expect(await drawnExactly(own, zoomed)).toBe('local')
      const background = await token('--color-surface')
      for (const row of loneRowsIn(zoomed, 3)) {
        const { x, y } = pixelOf(row, zoomed)
        const shown = await own.evaluate(pointsPixel(x, y))
        expect(shown).not.toEqual(background)
      }
      // The refused worker is the only problem.
      const seen = await problems()
      expect(seen.length).toBeGreaterThan(0)
      expect(seen.every((problem) => /request failed: .*raster-worker/.test(problem))).toBe(true)
    } finally {
      await context.close()
    }
  })

  it('counts and names what a log axis cannot show', async () => {
    await page.getByLabel('Y axis').selectOption({ label: 'Inhibition at 10 µM' })
    const inhibition = sample.inhibition.values
    await page.getByRole('button', { name: 'Log y' }).click()
    const belowZero = weight.filter(
      (value, row) => value !== null && inhibition[row] !== null && inhibition[row]! <= 0,
    ).length
    expect(belowZero).toBeGreaterThan(0)
    await page
      .getByText(
        `${belowZero.toLocaleString('en-US')} molecules with Inhibition at 10 µM at or below zero, which a log axis cannot show.`,
      )
      .waitFor()
    const placed = weight.filter(
      (value, row) => value !== null && inhibition[row] !== null && inhibition[row]! > 0,
    ).length
    await page
      .getByText(`Showing ${placed.toLocaleString('en-US')} of 250,000 molecules.`)
      .waitFor()
    await page.getByText('Inhibition at 10 µM (%), log scale').waitFor()
    await page.screenshot({ path: app.screenshotPath('plots-log-axis.png') })
    await page.getByLabel('Y axis').selectOption({ label: 'cLogP' })
  })

  it('bins a column, reports its missing values, and brushes a range', async () => {
    const histogram = page.getByRole('application', { name: 'Histogram of Kinase IC50' })
    await histogram.scrollIntoViewIfNeeded()
    const missing = sample.ic50.values.filter((value) => value === null).length
    await page.getByText(`${missing.toLocaleString('en-US')} molecules without a value.`).waitFor()
    const box = (await histogram.boundingBox())!
    await page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2)
    await page.mouse.down()
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2, { steps: 5 })
    await page.mouse.up()
    const status = page.getByText(/^Range .* nM: [\d,]+ molecules\./)
    await status.waitFor()
    const brushed = Number(
      /: ([\d,]+) molecules/.exec((await status.textContent())!)![1]!.replaceAll(',', ''),
    )
    // The gallery selects the brushed molecules in the scatter plot: the same number.
    await expect.poll(selectedCount).toBe(brushed)
    await page.screenshot({ path: app.screenshotPath('plots-histogram.png') })
    await histogram.focus()
    await page.keyboard.press('Escape')
    await status.waitFor({ state: 'detached' })
  })

  it('draws on the dark scheme with its surface and colours', async () => {
    const dark = await app.open('#/gallery', { colorScheme: 'dark' })
    try {
      const plot = dark.page.getByRole('application', { name: /against/ })
      await plot.waitFor({ timeout: 60_000 })
      await plot.scrollIntoViewIfNeeded()
      await expect
        .poll(() => dark.page.locator('canvas.points').getAttribute('data-frames'), {
          timeout: 60_000,
        })
        .not.toBeNull()
      const surfaceColour = parseColour(
        (await dark.page.evaluate(
          `getComputedStyle(document.documentElement).getPropertyValue('--color-surface')`,
        )) as string,
      )
      const corner = await dark.page.evaluate(pointsPixel(3, 3))
      expect(corner).toEqual(surfaceColour)
      await dark.page.screenshot({ path: app.screenshotPath('plots-dark.png') })
      expect(await dark.problems()).toEqual([])
    } finally {
      await dark.context.close()
    }
  })

  for (const deviceScaleFactor of [1, 2]) {
    it(
      `measures first draw, pan and zoom frames and hover at pixel ratio ${deviceScaleFactor} (written, not asserted)`,
      { timeout: 300_000 },
      async () => {
        const fresh = await openPlotGallery(app, deviceScaleFactor)
        try {
          const lines = await measureScatterPlot(fresh.page)
          fs.mkdirSync(path.dirname(resultsFile), { recursive: true })
          const text = lines.map((line) => JSON.stringify(line)).join('\n') + '\n'
          if (deviceScaleFactor === 1) fs.writeFileSync(resultsFile, text)
          else fs.appendFileSync(resultsFile, text)
          process.stdout.write(text)
          const suffix = deviceScaleFactor === 1 ? '' : `_dpr${deviceScaleFactor}`
          expect(lines.map((line) => line.name)).toEqual(
            [
              'plots.scatter.first_draw',
              'plots.scatter.pan_zoom_frame_p95',
              'plots.scatter.settle',
              'plots.scatter.hover_p95',
            ].map((name) => name + suffix),
          )
          // The first draw put (nearly) every point in view: the measurement drew the real thing.
          expect(lines[0]!.pointsInView).toBeGreaterThan(scatterPoints * 0.9)
          expect(lines[1]!.frames).toBe(180)
          expect(await fresh.problems()).toEqual([])
        } finally {
          await fresh.context.close()
        }
      },
    )
  }
})
