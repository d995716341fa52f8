/**
 * Keyboard-only flows in Chromium over the demo vault (issue 31): open the demo vault, search a
 * list, run a structure search, open a record and follow its links, and come back, with only the
 * keyboard and a visible focus at every step. The mouse is never used.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requirement } from '../support/environment.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'
import { focusOf, tabTo as tabToIn } from './support/keyboard.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

describe.runIf(available)('keyboard-only use in Chromium', () => {
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>

  const focus = () => focusOf(page)
  const tabTo = (wanted: RegExp, options: Parameters<typeof tabToIn>[2] = {}) =>
    tabToIn(page, wanted, options)

  const heading = () => page.getByRole('heading', { level: 1 })
  const count = () => page.getByRole('status').filter({ hasText: /molecules$/ })

  beforeAll(async () => {
    app = await AppUnderTest.start({ pull: { exportThreshold: Number.POSITIVE_INFINITY } })
    const session = await app.open()
    page = session.page
    problems = session.problems
  })

  afterAll(async () => {
    await app?.stop()
  })

  it('opens the demo vault', async () => {
    await page.getByRole('button', { name: 'Open the demo vault' }).waitFor()
    await tabTo(/^button: Open the demo vault$/)
    await page.keyboard.press('Enter')
    await expect.poll(() => count().textContent(), { timeout: 60_000 }).toBe('2,000 molecules')
  }, 120_000)

  it('searches the list as the person types', async () => {
    await tabTo(/^input: .*[Ss]earch/)
    await page.keyboard.type('ami')
    await expect
      .poll(async () => Number((await count().textContent())!.split(/\s/)[0]!.replace(/,/g, '')), {
        timeout: 20_000,
      })
      .toBeLessThan(2000)
    await page.keyboard.press('Control+A')
    await page.keyboard.press('Backspace')
    await expect.poll(() => count().textContent(), { timeout: 20_000 }).toBe('2,000 molecules')
  })

  it('runs a structure search', async () => {
    await tabTo(/^button: Structure search/)
    await page.keyboard.press('Enter')
    await tabTo(/^textarea: Structure query|^input: Structure query/)
    await page.keyboard.type('c1ccncc1')
    await page.getByRole('img', { name: 'The query as drawn' }).waitFor({ timeout: 30_000 })
    await expect
      .poll(async () => /^[\d,]+ of 2,000 molecules$/.test((await count().textContent()) ?? ''), {
        timeout: 30_000,
      })
      .toBe(true)
  }, 90_000)

  /**
   * A record page's heading once the record is read: until then it says the kind and the id
   * ("Molecule 1974"), and then the record's name.
   */
  async function loadedHeading(kind: string): Promise<string> {
    const placeholder = new RegExp(`^${kind} \\d+$`)
    await expect
      .poll(async () => (await heading().textContent())?.trim() ?? '', { timeout: 10_000 })
      .not.toMatch(placeholder)
    return (await heading().textContent())!.trim()
  }

  it('opens a record from the list and follows its links, then comes back', async () => {
    // Into the grid, down a row, open it.
    const grid = page.getByRole('grid', { name: 'Molecules' })
    for (let step = 0; step < 60; step++) {
      const inGrid = await page.evaluate(
        `document.activeElement?.closest('[role="grid"][aria-label="Molecules"]') !== null`,
      )
      if (inGrid) break
      await page.keyboard.press('Tab')
    }
    expect(
      await grid.evaluate((element) => element.contains(element.ownerDocument.activeElement)),
    ).toBe(true)
    expect((await focus()).visible).toBe(true)
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await expect
      .poll(() => new URL(page.url()).hash, { timeout: 10_000 })
      .toMatch(/^#\/molecules\/\d+/)
    const molecule = await loadedHeading('Molecule')

    // A link of the record: one of its batches.
    let followed = false
    for (let step = 0; step < 80 && !followed; step++) {
      const href = await page.evaluate(`document.activeElement?.getAttribute('href') ?? ''`)
      if (/^#\/batches\/\d+$/.test(href as string)) {
        expect((await focus()).visible).toBe(true)
        await page.keyboard.press('Enter')
        followed = true
      } else {
        await page.keyboard.press('Tab')
      }
    }
    expect(followed, 'Tab reached a link to one of the molecule’s batches').toBe(true)
    await expect.poll(() => new URL(page.url()).hash).toMatch(/^#\/batches\/\d+$/)

    const batch = await loadedHeading('Batch')

    // Back, from the keyboard, to the molecule, and forward again (the window has no browser
    // buttons). The focus is on the page, not in a text field, which keeps Alt+Left for itself.
    await page.keyboard.press('Alt+ArrowLeft')
    await expect.poll(() => heading().textContent(), { timeout: 10_000 }).toBe(molecule)
    await page.keyboard.press('Alt+ArrowRight')
    await expect.poll(() => heading().textContent(), { timeout: 10_000 }).toBe(batch)
    expect(await problems()).toEqual([])
  }, 120_000)
})
