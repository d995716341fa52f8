import type { Locator, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { requirement } from '../support/environment.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

describe.runIf(available)('chemistry offline in Chromium: drawings, structure search', () => {
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>

  const molecules = () => page.getByRole('grid', { name: 'Molecules' })
  const count = () => page.getByRole('status').filter({ hasText: /molecules?$/ })
  const box = () => page.getByRole('region', { name: 'Structure search' })
  const query = () => box().getByRole('textbox', { name: 'Structure query' })
  const heading = () => page.getByRole('main').getByRole('heading', { level: 2 }).first()

  /** The texts of one column of the rows rendered in a grid, top first. */
  const column = (grid: Locator, index: number) =>
    grid.locator(`[aria-rowindex] > [role="gridcell"]:nth-child(${index})`).allTextContents()

  /** "120 of 2,000 molecules" → 120 (while counting, "120+ of ..."). */
  const hits = async () => {
    const text = (await count().textContent()) ?? ''
    const found = /^([\d,]+)\+? of /.exec(text)
    return found ? Number(found[1]!.replaceAll(',', '')) : null
  }

  beforeAll(async () => {
    app = await AppUnderTest.start(
      { pull: { exportThreshold: Number.POSITIVE_INFINITY } },
      { seededDemoVault: true },
    )
    const session = await app.open()
    page = session.page
    problems = session.problems
  })

  afterEach(async () => {
    // No console error and nothing the CSP blocked (the drawings are data: images), at every step.
    expect(await problems()).toEqual([])
  })

  afterAll(async () => {
    await app?.stop()
  })

  it('syncs the demo vault and draws the molecules in the list', async () => {
    await page.getByRole('button', { name: 'Open the demo vault' }).click()
    await expect.poll(() => count().textContent(), { timeout: 45_000 }).toBe('2,000 molecules')

    // Thumbnails of the rows in view, drawn by the chemistry workers, as data: images.
    const thumbnails = molecules().getByRole('img', { name: /^Structure of / })
    await expect.poll(() => thumbnails.count(), { timeout: 20_000 }).toBeGreaterThan(5)
    const source = await thumbnails.first().getAttribute('src')
    expect(source).toMatch(/^data:image\/svg\+xml/)
    // A screen reader hears the molecule's formula with its name.
    expect(await thumbnails.first().getAttribute('alt')).toMatch(/^Structure of .+, C\d*H?\d*/)
    // Only the rows in view are drawn.
    expect(await thumbnails.count()).toBeLessThan(40)
    await page.screenshot({ path: app.screenshotPath('chemistry-thumbnails.png') })
  })

  it('searches by substructure as the person types, with the query drawn', async () => {
    const toggle = page.getByRole('button', { name: /^Structure search/ })
    await toggle.click()
    expect(await toggle.getAttribute('aria-expanded')).toBe('true')
    // While the structure index is built, the box shows how far it is; then it is done.
    await box()
      .getByRole('progressbar', { name: 'Indexing structures for search' })
      .waitFor({ state: 'detached', timeout: 30_000 })
    // Pyridines: a sixth of the demo vault (every one of its molecules has a benzene ring).
    await query().fill('c1ccncc1')
    await box().getByRole('img', { name: 'The query as drawn' }).waitFor()
    // The rows shown answer the old question until the first page of hits arrives.
    await expect.poll(hits, { timeout: 20_000 }).toBeLessThan(2000)
    await expect.poll(() => count().textContent(), { timeout: 20_000 }).not.toMatch(/\+/)
    const pyridines = (await hits())!
    expect(pyridines).toBeGreaterThan(0)
    await box().getByText('Substructure c1ccncc1').waitFor()

    // Combinable with property ranges: fewer still.
    await box()
      .getByRole('button', { name: /^Property ranges/ })
      .click()
    await box().getByRole('textbox', { name: 'Molecular weight, maximum' }).fill('350')
    await expect.poll(hits, { timeout: 20_000 }).toBeLessThan(pyridines)
    await page.screenshot({ path: app.screenshotPath('chemistry-substructure.png') })
    await box().getByRole('button', { name: 'Clear ranges' }).click()
    await expect.poll(hits, { timeout: 20_000 }).toBe(pyridines)
  })

  it('switches to similarity, best first, with a score column', async () => {
    await box().getByText('Similarity', { exact: true }).click()
    await box().getByRole('combobox', { name: 'Similarity cut-off' }).selectOption('top')
    await box().getByRole('spinbutton', { name: 'Number of most similar molecules' }).fill('10')
    await box().getByRole('spinbutton', { name: 'Number of most similar molecules' }).press('Tab')
    await expect.poll(hits, { timeout: 20_000 }).toBe(10)
    const grid = molecules()
    await grid.getByRole('columnheader', { name: 'Similarity' }).waitFor()
    const scores = async () => (await column(grid, 2)).map(Number)
    await expect.poll(async () => (await scores()).length).toBe(10)
    const shown = await scores()
    expect(shown.every((score) => score > 0 && score <= 1)).toBe(true)
    expect(shown).toEqual([...shown].sort((a, b) => b - a))
    await page.screenshot({ path: app.screenshotPath('chemistry-similarity.png') })
  })

  it('opens a substructure hit with the matched atoms highlighted and its properties', async () => {
    await box().getByText('Substructure', { exact: true }).click()
    await expect.poll(() => column(molecules(), 2)).not.toEqual([])
    await molecules()
      .getByRole('columnheader', { name: 'Similarity' })
      .waitFor({ state: 'detached' })
    const name = (await column(molecules(), 1))[0]!.trim()
    await molecules().getByRole('row').nth(1).dblclick()
    await expect.poll(() => heading().textContent()).toBe(name)
    expect(new URL(page.url()).hash).toMatch(/\?substructure=c1ccncc1/)

    const drawing = page.getByRole('img', { name: `Structure of ${name}` })
    await drawing.waitFor()
    expect(await drawing.getAttribute('src')).toMatch(/^data:image\/svg\+xml/)
    await page.getByText('Highlighted: the atoms that match c1ccncc1.').waitFor()

    const calculated = page.getByRole('region', { name: 'Calculated properties' })
    await calculated.getByText('Heavy atoms').waitFor()
    await calculated.getByText('TPSA').waitFor()
    // This vault has no deep-learning feature: the panel says so instead of failing.
    await page.getByRole('button', { name: 'From the vault' }).click()
    await page.getByText('This vault does not offer deep-learning suggestions').waitFor()
    await page.screenshot({ path: app.screenshotPath('chemistry-molecule.png'), fullPage: true })
  })

  it('names the problem of an invalid SMILES', async () => {
    await page.goBack()
    await query().waitFor()
    expect(await query().inputValue()).toBe('c1ccncc1')
    await query().fill('c1ccc(')
    const message = box()
      .getByText(/Parse Error|unclosed|syntax|not a valid/i)
      .first()
    await message.waitFor({ timeout: 10_000 })
    expect(await query().getAttribute('aria-invalid')).toBe('true')
    // The list keeps the last valid search, and says so.
    await box().getByText('The list still shows: Substructure c1ccncc1.').waitFor()
    await page.screenshot({ path: app.screenshotPath('chemistry-invalid.png') })
    await query().press('Escape')
    await expect.poll(() => count().textContent(), { timeout: 20_000 }).toBe('2,000 molecules')
  })

  it("shows the vault's own suggestions, drawn, where the vault offers them", async () => {
    await page.getByRole('button', { name: /^Discovery AI/ }).click()
    await expect.poll(() => count().textContent(), { timeout: 20_000 }).toBe('150 molecules')
    await molecules().getByRole('row').nth(1).dblclick()
    await page.getByRole('button', { name: 'From the vault' }).click()
    const tabs = page.getByRole('tablist', { name: 'Suggestions from the vault' })
    const similar = tabs.getByRole('tab', { name: 'Similar molecules' })
    await similar.click()
    expect(await similar.getAttribute('aria-selected')).toBe('true')
    const results = page.getByRole('list', { name: 'Similar molecules' })
    await results.getByRole('listitem').first().waitFor({ timeout: 20_000 })
    const drawn = results.getByRole('img', { name: /^Structure of / })
    expect(await drawn.first().getAttribute('src')).toMatch(/^data:image\/svg\+xml/)
    // The keyboard moves between the tools.
    await similar.press('ArrowLeft')
    expect(await tabs.getByRole('tab', { name: 'Fragments' }).getAttribute('aria-selected')).toBe(
      'true',
    )
    await page.screenshot({ path: app.screenshotPath('chemistry-from-the-vault.png') })
  })
})
