import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { requirement } from '../support/environment.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled, chromiumPath, watchForProblems } from './support/chromium.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

/** Chromium lays out no element taller than this (2^25 - 1 pixels, in 1/64-pixel units). */
const chromiumHeightCap = 33_554_431

describe.runIf(available)('a million-row list in Chromium', () => {
  let app: AppUnderTest
  let opened: { page: Page; context: BrowserContext; problems: () => Promise<string[]> }[] = []
  const closeAfter: (() => Promise<void>)[] = []

  beforeAll(async () => {
    app = await AppUnderTest.start()
  })

  afterEach(async () => {
    const sessions = opened
    opened = []
    for (const session of sessions) {
      const problems = await session.problems()
      await session.context.close()
      expect(problems).toEqual([])
    }
    for (const close of closeAfter.splice(0)) await close()
  })

  afterAll(async () => {
    await app?.stop()
  })

  async function openLongList(): Promise<{ page: Page; grid: Locator }> {
    return showLongList(await app.open('#/gallery'))
  }

  async function showLongList(session: (typeof opened)[number]) {
    opened.push(session)
    const grid = session.page.getByRole('grid', { name: 'Long list' })
    await grid.waitFor()
    await grid.scrollIntoViewIfNeeded()
    return { page: session.page, grid }
  }

  /** The rows shown whole between the header and the viewport's bottom, by `aria-rowindex`. */
  const shownRows = (grid: Locator) =>
    grid.evaluate((viewport) => {
      const header = viewport.querySelector('[aria-rowindex="1"]')!
      const top = header.getBoundingClientRect().bottom
      const bottom = viewport.getBoundingClientRect().top + viewport.clientHeight
      const rows = viewport.querySelectorAll('[role="row"]')
      const shown: number[] = []
      for (let index = 0; index < rows.length; index++) {
        const row = rows[index]!
        const box = row.getBoundingClientRect()
        if (row !== header && box.top >= top - 0.5 && box.bottom <= bottom + 0.5) {
          shown.push(Number(row.getAttribute('aria-rowindex')))
        }
      }
      return shown
    })

  const activeRow = (grid: Locator) =>
    grid.evaluate((element) => {
      const row = element.ownerDocument.getElementById(
        element.getAttribute('aria-activedescendant') ?? '',
      )
      return {
        index: Number(row?.getAttribute('aria-rowindex')),
        id: row?.querySelector('[role="gridcell"]')?.textContent?.trim(),
      }
    })

  const scrolling = (grid: Locator) =>
    grid.evaluate((viewport) => ({
      top: viewport.scrollTop,
      max: viewport.scrollHeight - viewport.clientHeight,
      height: viewport.scrollHeight,
    }))

  const lastShown = async (grid: Locator) => (await shownRows(grid)).at(-1)
  const firstShown = async (grid: Locator) => (await shownRows(grid))[0]

  it('reaches row 1,000,000 from the keyboard and shows it, and the one above it', async () => {
    const { page, grid } = await openLongList()
    expect(await grid.getAttribute('aria-rowcount')).toBe('1000001')
    // 60 million pixels of rows, laid out in a body Chromium can hold.
    expect((await scrolling(grid)).height).toBeLessThan(chromiumHeightCap / 3)
    expect(await grid.getByRole('row').count()).toBeLessThan(40)

    await grid.getByRole('row').nth(1).click()
    await expect.poll(() => activeRow(grid)).toEqual({ index: 2, id: 'VD-0000001' })

    await page.keyboard.press('Control+End')
    await expect.poll(() => activeRow(grid)).toEqual({ index: 1_000_001, id: 'VD-1000000' })
    await expect.poll(() => lastShown(grid)).toBe(1_000_001)
    const atEnd = await scrolling(grid)
    expect(atEnd.top).toBeGreaterThanOrEqual(atEnd.max - 1)
    await page.screenshot({ path: app.screenshotPath('long-list-end.png') })

    await page.keyboard.press('ArrowUp')
    await expect.poll(() => activeRow(grid)).toEqual({ index: 1_000_000, id: 'VD-0999999' })
    await expect.poll(() => shownRows(grid)).toContain(1_000_000)
    expect(await lastShown(grid)).toBe(1_000_001)

    // A page up moves the active row by a screen and keeps it in view.
    const pageTop = (await shownRows(grid)).length
    await page.keyboard.press('PageUp')
    await expect.poll(async () => (await activeRow(grid)).index).toBeLessThan(1_000_000)
    const afterPageUp = await activeRow(grid)
    expect(afterPageUp.index).toBeLessThan(1_000_000)
    expect(afterPageUp.index).toBeGreaterThanOrEqual(1_000_000 - pageTop)
    await expect.poll(() => shownRows(grid)).toContain(afterPageUp.index)

    await page.keyboard.press('Home')
    await expect.poll(() => activeRow(grid)).toEqual({ index: 2, id: 'VD-0000001' })
    await expect.poll(() => firstShown(grid)).toBe(2)
    await page.keyboard.press('End')
    await expect.poll(() => activeRow(grid)).toEqual({ index: 1_000_001, id: 'VD-1000000' })
    await expect.poll(() => lastShown(grid)).toBe(1_000_001)
    expect(await grid.getByRole('row', { name: /VD-1000000/ }).isVisible()).toBe(true)
  })

  it('shows the last row when the scrollbar is dragged to the bottom', async () => {
    // Headless Chromium hides scrollbars unless told not to; this test needs one to drag.
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
      ignoreDefaultArgs: ['--hide-scrollbars'],
    })
    closeAfter.push(() => browser.close())
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    const scrollbarPage = await context.newPage()
    const problems = await watchForProblems(scrollbarPage)
    await scrollbarPage.goto(`${app.harness.url}#/gallery`)
    const { page, grid } = await showLongList({ page: scrollbarPage, context, problems })
    const scrollbarWidth = await grid.evaluate(
      (viewport) => viewport.getBoundingClientRect().width - viewport.clientWidth,
    )
    expect(scrollbarWidth).toBeGreaterThan(0)

    // Halfway down, the thumb's middle is the track's middle whatever its length; the scroll
    // position stands for the row halfway down the list.
    await grid.evaluate((viewport) => {
      viewport.scrollTop = (viewport.scrollHeight - viewport.clientHeight) / 2
    })
    await expect.poll(async () => Math.abs((await firstShown(grid))! - 500_000)).toBeLessThan(10)

    const box = (await grid.boundingBox())!
    const clientHeight = await grid.evaluate((viewport) => viewport.clientHeight)
    const thumbX = box.x + box.width - scrollbarWidth / 2
    await page.mouse.move(thumbX, box.y + clientHeight / 2)
    await page.mouse.down()
    await page.mouse.move(thumbX, box.y + clientHeight * 0.75, { steps: 5 })
    await page.mouse.move(thumbX, box.y + clientHeight + 200, { steps: 5 })
    await page.mouse.up()

    const dragged = await scrolling(grid)
    expect(dragged.top).toBeGreaterThanOrEqual(dragged.max - 1)
    await expect.poll(() => lastShown(grid)).toBe(1_000_001)
    await grid.getByRole('row', { name: /VD-1000000/ }).waitFor()
  })

  it('moves a few rows for a turn of the wheel, anywhere in the list', async () => {
    const { page, grid } = await openLongList()
    await grid.evaluate((viewport) => {
      viewport.scrollTop = (viewport.scrollHeight - viewport.clientHeight) * 0.3
    })
    await expect.poll(async () => (await firstShown(grid)) ?? 0).toBeGreaterThan(250_000)
    const before = (await firstShown(grid))!

    const box = (await grid.boundingBox())!
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
    await page.mouse.wheel(0, 120)
    await expect.poll(async () => (await firstShown(grid))! - before).toBeGreaterThan(0)
    const down = (await firstShown(grid))! - before
    expect(down).toBeLessThanOrEqual(3)

    await page.mouse.wheel(0, -120)
    await expect.poll(() => firstShown(grid)).toBe(before)
  })

  it('reaches the end of five million rows too', async () => {
    const { page, grid } = await openLongList()
    await page.getByLabel('Rows', { exact: true }).selectOption({ label: '5,000,000' })
    await expect.poll(() => grid.getAttribute('aria-rowcount')).toBe('5000001')
    await grid.getByRole('row').nth(1).click()
    await page.keyboard.press('Control+End')
    await expect.poll(() => activeRow(grid)).toEqual({ index: 5_000_001, id: 'VD-5000000' })
    await expect.poll(() => lastShown(grid)).toBe(5_000_001)
    await page.keyboard.press('ArrowUp')
    await expect.poll(() => activeRow(grid)).toEqual({ index: 5_000_000, id: 'VD-4999999' })
    expect(await shownRows(grid)).toContain(5_000_000)
  })
})
