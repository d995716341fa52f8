import type { BrowserContext, Locator, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { requirement } from '../support/environment.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

describe.runIf(available)('the app frame in Chromium', () => {
  let app: AppUnderTest
  let opened: { page: Page; context: BrowserContext; problems: () => Promise<string[]> }[] = []

  async function open(hash = '', colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const session = await app.open(hash, { colorScheme })
    opened.push(session)
    return session.page
  }

  /** What has keyboard focus, described the way a person would. */
  async function focused(page: Page): Promise<string> {
    const element = page.locator(':focus')
    if ((await element.count()) === 0) return 'nothing'
    return element.evaluate((focus) => {
      const label = focus.labels?.[0]?.textContent
      const name = focus.getAttribute('aria-label') ?? label ?? focus.textContent ?? ''
      return `${focus.tagName.toLowerCase()}: ${name.trim().replace(/\s+/g, ' ')}`
    })
  }

  const insideDialog = (page: Page) =>
    page.locator(':focus').evaluate((focus) => focus.closest('dialog[open]') !== null)

  const computedStyle = (locator: Locator, properties: readonly string[]) =>
    locator.evaluate(
      (element, names) => {
        const style = element.ownerDocument.defaultView.getComputedStyle(element)
        return names.map((name: string) => style.getPropertyValue(name) as string)
      },
      [...properties],
    )

  const outlineOf = async (locator: Locator) => {
    const [style, width] = await computedStyle(locator, ['outline-style', 'outline-width'])
    return { style, width }
  }

  beforeAll(async () => {
    app = await AppUnderTest.start()
  })

  afterEach(async () => {
    // Every page must have run without a console error or anything the CSP had to block.
    const sessions = opened
    opened = []
    for (const session of sessions) {
      const problems = await session.problems()
      await session.context.close()
      expect(problems).toEqual([])
    }
  })

  afterAll(async () => {
    await app?.stop()
  })

  it('opens on the frame, inviting the person to connect, offline and with an empty outbox', async () => {
    const page = await open()

    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Molecules')
    expect(await page.title()).toBe('Molecules · Vault Desk')
    const sections = page.getByRole('navigation', { name: 'Sections' }).getByRole('link')
    expect((await sections.allTextContents()).map((text) => text.trim())).toEqual([
      'Molecules',
      'Batches',
      'Assays',
      'Plates',
      'Inventory',
      'Notebook',
      'Outbox',
    ])
    expect(await sections.first().getAttribute('aria-current')).toBe('page')
    await page.getByText('No vaults connected').waitFor()

    await page.getByRole('heading', { name: 'Bring your vault to your desk' }).waitFor()
    await page.getByRole('button', { name: 'Connect to a vault' }).waitFor()
    await page.getByRole('button', { name: 'Open the demo vault' }).waitFor()

    const status = page.getByRole('group', { name: 'Sync status' })
    await status.getByText('Offline').waitFor()
    await status.getByText('Never synced').waitFor()
    await page.getByRole('link', { name: 'Outbox: 0 waiting to be sent' }).waitFor()
    await page.getByText('Vault Desk 0.1.0').waitFor()
    await page.getByText('Browser preview').waitFor()

    // The harness has no file paths to give; Electron's preload does.
    expect(await page.evaluate("window.vaultDesk.pathForFile(new File(['x'], 'x.sdf'))")).toBeNull()
    await page.screenshot({ path: app.screenshotPath('app-frame.png') })
  })

  it('follows status and connection changes pushed by main', async () => {
    const page = await open()
    const status = page.getByRole('group', { name: 'Sync status' })
    await status.getByText('Offline').waitFor()

    app.services.status.update({
      online: true,
      outboxPending: 3,
      lastSyncAt: new Date(Date.now() - 5 * 60_000).toISOString(),
    })
    await status.getByText('Online').waitFor()
    await status.getByText('Synced 5 minutes ago').waitFor()
    await page.getByRole('link', { name: 'Outbox: 3 waiting to be sent' }).waitFor()
    await page.getByRole('link', { name: 'Outbox, 3 waiting' }).waitFor()

    app.addConnection({
      id: 'c1',
      name: 'Discovery Chemistry',
      baseUrl: 'https://vault.example.org',
    })
    await page.getByRole('button', { name: 'Manage Discovery Chemistry' }).waitFor()
    await page.getByText('vault.example.org').waitFor()
    // Saved without a token (as a session-only token is after a restart), it asks for one.
    await page
      .getByRole('alert')
      .filter({ hasText: 'Discovery Chemistry needs its token again' })
      .waitFor()
    await page.getByRole('heading', { name: 'No molecules yet' }).waitFor()
    await page.screenshot({ path: app.screenshotPath('app-frame-connected.png') })

    app.removeConnection('c1')
    app.services.status.update({ online: false, outboxPending: 0, lastSyncAt: null })
    await page.getByRole('heading', { name: 'Bring your vault to your desk' }).waitFor()
    await status.getByText('Offline').waitFor()
  })

  it('is usable from the keyboard alone, with a visible focus ring', async () => {
    const page = await open()
    await page.getByRole('heading', { name: 'Bring your vault to your desk' }).waitFor()

    await page.keyboard.press('Tab')
    expect(await focused(page)).toBe('a: Skip to content')
    const skip = page.getByRole('link', { name: 'Skip to content' })
    expect((await skip.boundingBox())?.y).toBeGreaterThanOrEqual(0)
    expect(await outlineOf(skip)).toEqual({ style: 'solid', width: '2px' })
    await page.keyboard.press('Enter')
    expect(await focused(page)).toMatch(/^main:/)
    expect(page.url()).toBe(app.harness.pageUrl)
    await page.keyboard.press('Tab')
    expect(await focused(page)).toBe('button: Connect to a vault')

    await page.reload()
    await page.getByRole('heading', { name: 'Bring your vault to your desk' }).waitFor()
    await page.keyboard.press('Tab')
    await page.keyboard.press('Tab')
    expect(await focused(page)).toBe('button: Add a connection')
    await page.keyboard.press('Tab')
    expect(await focused(page)).toBe('a: Molecules')
    const molecules = page.getByRole('link', { name: 'Molecules' })
    expect(await outlineOf(molecules)).toEqual({ style: 'solid', width: '2px' })

    await page.keyboard.press('ArrowDown')
    expect(await focused(page)).toBe('a: Batches')
    await page.keyboard.press('Enter')
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Batches')
    expect(new URL(page.url()).hash).toBe('#/batches')
    expect(await page.getByRole('link', { name: 'Batches' }).getAttribute('aria-current')).toBe(
      'page',
    )

    const demo = page.getByRole('button', { name: 'Open the demo vault' })
    for (
      let step = 0;
      step < 12 && (await focused(page)) !== 'button: Open the demo vault';
      step++
    ) {
      await page.keyboard.press('Tab')
    }
    expect(await focused(page)).toBe('button: Open the demo vault')
    expect(await outlineOf(demo)).toEqual({ style: 'solid', width: '2px' })

    await page.keyboard.press('Shift+Tab')
    expect(await focused(page)).toBe('button: Connect to a vault')
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Connect to a vault' })
    await dialog.waitFor()
    expect(await focused(page)).toBe('input: Vault address')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    expect(await focused(page)).toBe('button: Connect to a vault')
  })

  it('shows 100,000 rows in the data table, smoothly, by keyboard and mouse', async () => {
    const page = await open('#/gallery')
    const grid = page.getByRole('grid', { name: 'Sample compounds' })
    await grid.waitFor()
    expect(await grid.getAttribute('aria-rowcount')).toBe('100001')
    const renderedRows = () => grid.getByRole('row').count()
    expect(await renderedRows()).toBeLessThan(60)

    await grid.getByRole('row').nth(1).click()
    const detail = page.getByRole('complementary').filter({ has: page.getByRole('heading') })
    await detail.getByRole('heading', { name: 'VD-000001' }).waitFor()
    const activeRow = () =>
      grid.evaluate((element) => {
        const id = element.getAttribute('aria-activedescendant') ?? ''
        const row = element.ownerDocument.getElementById(id)
        return {
          index: row?.getAttribute('aria-rowindex') as string | undefined,
          id: row?.querySelector('[role="gridcell"]')?.textContent?.trim() as string | undefined,
          selected: row?.getAttribute('aria-selected') as string | undefined,
        }
      })
    expect(await activeRow()).toEqual({ index: '2', id: 'VD-000001', selected: 'true' })

    await page.keyboard.press('End')
    expect(await activeRow()).toEqual({ index: '100001', id: 'VD-100000', selected: 'true' })
    await detail.getByRole('heading', { name: 'VD-100000' }).waitFor()
    await expect.poll(() => grid.getByRole('row', { name: /VD-100000/ }).isVisible()).toBe(true)
    expect(await renderedRows()).toBeLessThan(60)

    await page.keyboard.press('Home')
    await page.keyboard.press('PageDown')
    const afterPage = Number((await activeRow()).index)
    expect(afterPage).toBeGreaterThan(5)
    await page.keyboard.press('Home')
    await page.keyboard.press('Shift+ArrowDown')
    await page.keyboard.press('Shift+ArrowDown')
    await page.getByText(/rows · 3 selected/).waitFor()
    expect(await grid.locator('[aria-selected="true"]').count()).toBe(3)
    await page.keyboard.press('Escape')
    await page.getByText(/rows · 0 selected/).waitFor()

    const weightHeader = grid.getByRole('columnheader', { name: 'MW (g/mol)' })
    const renderedWeights = async () =>
      (await grid.locator('[aria-rowindex] > [role="gridcell"]:nth-child(4)').allTextContents())
        .map(Number)
        .slice(0, 12)
    const weightsFromTop = async () => {
      await grid.focus()
      await page.keyboard.press('Home')
      return renderedWeights()
    }
    await weightHeader.getByRole('button').click()
    expect(await weightHeader.getAttribute('aria-sort')).toBe('ascending')
    const ascending = await weightsFromTop()
    expect(ascending).toHaveLength(12)
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b))
    await weightHeader.getByRole('button').click()
    expect(await weightHeader.getAttribute('aria-sort')).toBe('descending')
    const descending = await weightsFromTop()
    expect(descending).toEqual([...descending].sort((a, b) => b - a))
    expect(descending[0]).toBeGreaterThan(ascending[0]! + 100)
    await weightHeader.getByRole('button').click()
    expect(await weightHeader.getAttribute('aria-sort')).toBe('none')
    await grid.focus()
    await page.keyboard.press('Home')
    expect((await activeRow()).id).toBe('VD-000001')

    await grid.focus()
    await page.keyboard.press('ArrowDown')
    await page.screenshot({ path: app.screenshotPath('component-gallery.png'), fullPage: true })
  })

  it('keeps focus inside a dialog, closes it on Escape and gives focus back', async () => {
    const page = await open('#/gallery')
    const opener = page.getByRole('button', { name: 'Open a dialog' })
    await opener.click()
    const dialog = page.getByRole('dialog', { name: 'Rename batch' })
    await dialog.waitFor()
    expect(await focused(page)).toBe('input: Batch name')

    const seen = new Set<string>()
    for (let step = 0; step < 9; step++) {
      await page.keyboard.press('Tab')
      expect(await insideDialog(page)).toBe(true)
      seen.add(await focused(page))
    }
    expect(seen).toEqual(
      new Set([
        'button: Close',
        'input: Batch name',
        'select: Reason',
        'button: Cancel',
        'button: Rename',
      ]),
    )
    // Nine steps from the name field went round the five controls and ended on the first.
    expect(await focused(page)).toBe('button: Close')
    await page.keyboard.press('Shift+Tab')
    expect(await focused(page)).toBe('button: Rename')
    await page.keyboard.press('Tab')
    expect(await focused(page)).toBe('button: Close')
    await page.keyboard.press('Shift+Tab')
    expect(await outlineOf(dialog.getByRole('button', { name: 'Rename' }))).toEqual({
      style: 'solid',
      width: '2px',
    })
    await page.screenshot({ path: app.screenshotPath('dialog.png') })

    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    expect(await focused(page)).toBe('button: Open a dialog')
  })

  it('follows the light and dark color schemes of the system', async () => {
    const light = await open('', 'light')
    await light.getByRole('heading', { name: 'Bring your vault to your desk' }).waitFor()
    const colors = async (page: Page) => {
      const [background, text] = await computedStyle(page.locator('body'), [
        'background-color',
        'color',
      ])
      return { background: background ?? '', text: text ?? '' }
    }
    const lightColors = await colors(light)

    const dark = await open('', 'dark')
    await dark.getByRole('heading', { name: 'Bring your vault to your desk' }).waitFor()
    const darkColors = await colors(dark)
    expect(darkColors.background).not.toBe(lightColors.background)
    expect(luminance(darkColors.background)).toBeLessThan(luminance(lightColors.background))
    expect(luminance(darkColors.text)).toBeGreaterThan(luminance(darkColors.background))
    await dark.screenshot({ path: app.screenshotPath('app-frame-dark.png') })

    await dark.emulateMedia({ colorScheme: 'light' })
    await expect.poll(() => colors(dark)).toEqual(lightColors)

    const gallery = await open('#/gallery', 'dark')
    await gallery.getByRole('grid', { name: 'Sample compounds' }).waitFor()
    await gallery.screenshot({ path: app.screenshotPath('component-gallery-dark.png') })
  })
})

/** Relative luminance of a CSS rgb() colour, enough to tell dark from light. */
function luminance(color: string): number {
  const [red = 0, green = 0, blue = 0] = (color.match(/\d+(\.\d+)?/g) ?? []).map(Number)
  return 0.2126 * red + 0.7152 * green + 0.0722 * blue
}
