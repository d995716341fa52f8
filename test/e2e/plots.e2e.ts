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
import { fullView, unitAt } from '../../src-renderer/src/lib/plots/view-window.ts'
import { sampleName, samplePoints } from '../../src-renderer/src/screens/gallery/sample-points.ts'
import { requirement } from '../support/environment.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')
const resultsFile = path.resolve(import.meta.dirname, '../../bench-results/plots.jsonl')

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
    (await page.evaluate(
      `Array.from(document.querySelector('canvas.points').getContext('2d').getImageData(${Math.floor(x)}, ${Math.floor(y)}, 1, 1).data.slice(0, 3))`,
    )) as unknown as Rgb
  const token = async (name: string) =>
    parseColour(
      (await page.evaluate(
        `getComputedStyle(document.documentElement).getPropertyValue('${name}')`,
      )) as string,
    )!
  const xTickValues = async () =>
    (await page
      .locator('[data-axis="bottom"] .tick')
      .evaluateAll((ticks) =>
        ticks.map((tick) => Number(tick.getAttribute('data-value'))),
      )) as number[]

  /** Where a molecule's point is, in pixels of the plot area (whole view). */
  const pixelOf = (row: number) => ({
    x: xScale.toUnit(weight[row]!) * area.width,
    y: area.height - yScale.toUnit(logP[row]!) * area.height,
  })
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
    await expect.poll(() => tooltip.textContent()).toContain(name)
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
    await expect.poll(async () => Number(await inView())).toBeLessThan(allInView / 2)
    const zoomed = await xTickValues()
    expect(zoomed[zoomed.length - 1]! - zoomed[0]!).toBeLessThan(
      whole[whole.length - 1]! - whole[0]!,
    )
    expect(await reset.isDisabled()).toBe(false)
    await page.screenshot({ path: app.screenshotPath('plots-zoomed.png') })
    await reset.click()
    await expect.poll(xTickValues).toEqual(whole)
    await expect.poll(async () => Number(await inView())).toBe(allInView)
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
      const corner = await dark.page.evaluate(
        `Array.from(document.querySelector('canvas.points').getContext('2d').getImageData(3, 3, 1, 1).data.slice(0, 3))`,
      )
      expect(corner).toEqual(surfaceColour)
      await dark.page.screenshot({ path: app.screenshotPath('plots-dark.png') })
      expect(await dark.problems()).toEqual([])
    } finally {
      await dark.context.close()
    }
  })

  it('measures first draw, pan and zoom frames and hover (written, not asserted)', async () => {
    const fresh = await openPlotGallery(app)
    try {
      const lines = await measureScatterPlot(fresh.page)
      fs.mkdirSync(path.dirname(resultsFile), { recursive: true })
      fs.writeFileSync(resultsFile, lines.map((line) => JSON.stringify(line)).join('\n') + '\n')
      for (const line of lines) process.stdout.write(`${JSON.stringify(line)}\n`)
      expect(lines.map((line) => line.name)).toEqual([
        'plots.scatter.first_draw',
        'plots.scatter.pan_zoom_frame_p95',
        'plots.scatter.hover_p95',
      ])
      // The first draw put (nearly) every point in view: the measurement drew the real thing.
      expect(lines[0]!.pointsInView).toBeGreaterThan(scatterPoints * 0.9)
      expect(lines[1]!.frames).toBe(180)
      expect(await fresh.problems()).toEqual([])
    } finally {
      await fresh.context.close()
    }
  })
})
