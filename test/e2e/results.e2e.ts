/**
 * The results table in Chromium over the demo vault: built from the kinase protocol's readouts,
 * sorted both ways, filtered by a range, narrowed by a results criterion (checked against the
 * vault's own search online), and rows added to a new collection while the vault does not answer,
 * sent exactly once when it answers again.
 */
import type { Locator, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { VaultSim } from '../../src-sim/index.ts'
import { networkSwitch, type NetworkSwitch } from '../outbox/support/network-switch.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { requirement } from '../support/environment.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

const kinaseName = 'Kinase IC50 (ADP-Glo)'
const criterion = `${kinaseName}: IC50 < 1 uM`
const collectionName = 'Results table picks'

interface Protocol {
  id: number
  name: string
  readout_definitions: { id: number; name: string }[]
}

/**
 * What the tests read of the page's globals, in functions that run in the page (serialized: they
 * reach the page's globals through `globalThis`, never a variable of this file).
 */
interface PageGlobals {
  getComputedStyle(element: unknown): { backgroundColor: string; color: string }
  document: { activeElement: unknown }
}

/** Waits until `check` holds (hooks cannot use expect.poll). */
async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** A shown value as a number: `>30` is 30, `≤0.5` is 0.5; text and empty cells are null. */
function numberOf(text: string): number | null {
  const digits = text.replace(/^[<>≤≥~]/, '').replaceAll(',', '')
  return /^-?\d/.test(digits) ? Number(digits) : null
}

describe.runIf(available)('the results table in Chromium', () => {
  let sim: VaultSim
  let network: NetworkSwitch
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>
  let token: string
  let vaultId: number
  let connectionId: string
  let kinase: Protocol
  /** Molecules and batches with a kinase readout row, as the vault has them. */
  let kinaseMolecules: number
  let kinaseBatches: number

  const grid = () => page.getByRole('grid', { name: 'Results table' })
  const count = () => page.getByRole('status').filter({ hasText: /molecules?( ·|$)/ })
  /** A readout's column header, named by its readout and unit, then its protocol. */
  const header = (readout: string) =>
    grid().getByRole('columnheader', { name: `${readout}, ${kinaseName}`, exact: true })
  /** The shown values of a column in the rows rendered, top first. */
  const valuesOf = async (definitionId: number) =>
    (
      await grid().locator(`[data-column="${kinase.id}:${definitionId}"] .number`).allTextContents()
    ).map((text) => text.trim())
  const definition = (name: string) =>
    kinase.readout_definitions.find((readout) => readout.name === name)!
  const shownTotal = async () =>
    Number((await count().textContent())!.split(' ')[0]!.replaceAll(',', ''))

  async function ask(path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${sim.baseUrl}/vaults/${vaultId}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'X-SVC-Token': token, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    expect(response.status).toBe(200)
    return response.json()
  }

  const objectsOf = (body: unknown) =>
    (Array.isArray(body) ? body : ((body as { objects?: unknown[] }).objects ?? [])) as unknown[]

  /** The vault's own answer online: the molecules its protocol criteria find. */
  async function vaultAnswer(criteria: Record<string, unknown>[]): Promise<number[]> {
    const ids: number[] = []
    for (let offset = 0; ; offset += 500) {
      const objects = objectsOf(
        await ask('/molecules/query', {
          protocol_criteria: criteria,
          page_size: 500,
          offset,
          only_ids: true,
        }),
      )
      for (const object of objects) {
        ids.push(typeof object === 'number' ? object : Number((object as { id: unknown }).id))
      }
      if (objects.length < 500) return ids
    }
  }

  async function dismissNotices() {
    const dismiss = page.getByRole('button', { name: /^Dismiss: / })
    while ((await dismiss.count()) > 0) await dismiss.first().click()
  }

  /** The row of the grid at a place among those rendered (0: the first shown). */
  const row = (index: number): Locator => grid().locator('[role="row"][data-position]').nth(index)

  beforeAll(async () => {
    sim = await startDemoSnapshotSim({
      port: 0,
      exportTiming: { startDelayMs: 0, durationMs: 0 },
    })
    network = await networkSwitch(Number(new URL(sim.baseUrl).port))
    token = sim.cast.users.admin.tokens[0]!
    vaultId = sim.cast.vaults.main.id
    kinase = (objectsOf(await ask('/protocols')) as Protocol[]).find(
      (protocol) => protocol.name === kinaseName,
    )!
    kinaseMolecules = sim.core.db
      .prepare(
        `SELECT COUNT(DISTINCT b.molecule_id) FROM readout_rows r JOIN batches b ON b.id = r.batch_id
          WHERE r.protocol_id = ?`,
      )
      .pluck()
      .get(kinase.id) as number
    kinaseBatches = sim.core.db
      .prepare('SELECT COUNT(DISTINCT batch_id) FROM readout_rows WHERE protocol_id = ?')
      .pluck()
      .get(kinase.id) as number
    app = await AppUnderTest.start({
      pull: { exportThreshold: Number.POSITIVE_INFINITY },
      probeBackoff: { baseDelayMs: 100, maxDelayMs: 1000 },
      outbox: { retry: { baseDelayMs: 100, maxDelayMs: 1000 }, pollMs: 50 },
    })
    const added = await app.services.connections.add({
      name: 'Lab',
      baseUrl: `http://127.0.0.1:${network.port}/api/v1`,
      token,
      sessionOnly: true,
    })
    connectionId = added.connection.id
    await until(
      'the first sync has completed',
      () =>
        app.services.sync.states().find((state) => state.connectionId === connectionId)
          ?.lastOutcome === 'completed',
      110_000,
    )
    const session = await app.open('#/assays')
    page = session.page
    problems = session.problems
    await page.getByRole('grid', { name: 'Protocols' }).waitFor()
  }, 180_000)

  afterEach(async () => {
    // No console error, failed request or CSP violation, at every step.
    expect(await problems()).toEqual([])
  })

  afterAll(async () => {
    await app?.stop()
    await network?.close()
    await sim?.stop()
  })

  it('builds a table of the kinase IC50 and % inhibition, a row per molecule', async () => {
    // From the Assays section's lists, as a person finds it.
    const tabs = page.getByRole('navigation', { name: 'Assays lists' })
    await tabs.getByRole('link', { name: 'Results' }).click()
    expect(await tabs.getByRole('link', { name: 'Results' }).getAttribute('aria-current')).toBe(
      'page',
    )
    await page.getByRole('heading', { name: 'Build a results table' }).waitFor()
    await page.getByRole('button', { name: 'Choose readouts…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Choose readouts' })
    const protocol = dialog.getByRole('group', { name: kinaseName })
    await protocol.getByLabel('IC50 (uM)').check()
    await protocol.getByLabel('% Inhibition (%)').check()
    await page.screenshot({ path: app.screenshotPath('results-readouts.png') })
    await dialog.getByRole('button', { name: 'Show these readouts' }).click()
    await dialog.waitFor({ state: 'hidden' })

    const ic50 = definition('IC50')
    const inhibition = definition('% Inhibition')
    // Columns come in the protocol's order of readouts.
    const keys = [inhibition, ic50]
      .sort(
        (first, second) =>
          kinase.readout_definitions.indexOf(first) - kinase.readout_definitions.indexOf(second),
      )
      .map((readout) => `${kinase.id}:${readout.id}`)
    expect(new URL(page.url()).hash).toBe(`#/results?columns=${keys.join(',')}`)
    await header('IC50 (uM)').waitFor()
    await header('% Inhibition (%)').waitFor()
    // The index is complete once the sync is: every molecule the vault has kinase rows for.
    await page.getByText(/^Indexing results/).waitFor({ state: 'hidden', timeout: 60_000 })
    await expect.poll(() => count().textContent()).toBe(`${kinaseMolecules} molecules`)
    expect(await grid().getAttribute('aria-rowcount')).toBe(String(kinaseMolecules + 1))

    // Structures are drawn at least 120 pixels tall, the name heads its row and links to it.
    const first = row(0)
    const drawing = first.getByRole('img', { name: /^Structure of / })
    await drawing.waitFor()
    expect((await drawing.boundingBox())!.height).toBeGreaterThanOrEqual(120)
    const name = first.getByRole('rowheader').getByRole('link')
    expect(await name.getAttribute('href')).toMatch(/^#\/molecules\/\d+$/)
    // A row per batch: the batches of those molecules, each linking to its page.
    const level = page.getByRole('radiogroup', { name: 'Rows' })
    await level.getByText('Per batch').click()
    expect(await level.getByRole('radio', { name: 'Per batch' }).isChecked()).toBe(true)
    await expect
      .poll(() =>
        page
          .getByRole('status')
          .filter({ hasText: /batch(es)?$/ })
          .textContent(),
      )
      .toBe(`${kinaseBatches} batches`)
    await grid().getByRole('columnheader', { name: 'Batch' }).waitFor()
    expect(await row(0).getByRole('rowheader').getByRole('link').getAttribute('href')).toMatch(
      /^#\/batches\/\d+$/,
    )
    await page.goBack()
    await expect.poll(() => count().textContent()).toBe(`${kinaseMolecules} molecules`)

    // Hovering a structure draws it larger beside the row.
    await drawing.hover()
    const zoomed = page.locator('figure.zoom img')
    await zoomed.waitFor()
    expect((await zoomed.boundingBox())!.height).toBeGreaterThanOrEqual(240)
    await dismissNotices()
    await page.screenshot({ path: app.screenshotPath('results-table.png') })
    await page.mouse.move(0, 0)
    await zoomed.waitFor({ state: 'hidden' })
  })

  it('sorts by IC50 both ways, and the keyboard reaches either end', async () => {
    const ic50 = definition('IC50')
    // The sort button is named by what it shows: its protocol, then its readout.
    const button = header('IC50 (uM)').getByRole('button', {
      name: `${kinaseName} IC50 (uM)`,
      exact: true,
    })
    const ascending = (values: (number | null)[]) =>
      values.every((value, index) => index === 0 || value! >= values[index - 1]!)
    const descending = (values: (number | null)[]) =>
      values.every((value, index) => index === 0 || value! <= values[index - 1]!)
    const shown = async () => (await valuesOf(ic50.id)).map(numberOf)
    /** The last row's IC50, reached with End in the grid. */
    const last = async () => {
      await grid().focus()
      await page.keyboard.press('End')
      await expect.poll(() => grid().getAttribute('aria-activedescendant')).toMatch(/row-\d+$/)
      const active = grid().locator(`#${await grid().getAttribute('aria-activedescendant')}`)
      await active.locator('.number').first().waitFor()
      const text = await active
        .locator(`[data-column="${kinase.id}:${ic50.id}"] .number`)
        .textContent()
      await page.keyboard.press('Home')
      return numberOf(text!.trim())
    }

    await button.click()
    expect(await header('IC50 (uM)').getAttribute('aria-sort')).toBe('ascending')
    expect(new URL(page.url()).hash).toContain(`sort=${kinase.id}:${ic50.id}`)
    await expect.poll(async () => (await shown()).length > 3 && ascending(await shown())).toBe(true)
    const lowest = (await shown())[0]!
    // Coloured on the column's own scale over the vault: for a concentration, low is good, so
    // the most potent value is the deepest colour (white text) and the weakest the palest.
    const firstCell = row(0).locator(`[data-column="${kinase.id}:${ic50.id}"]`)
    const colours = () =>
      firstCell.evaluate((cell) => {
        const style = (globalThis as unknown as PageGlobals).getComputedStyle(cell)
        return [style.backgroundColor, style.color]
      })
    expect(await colours()).toEqual(['rgb(8, 29, 88)', 'rgb(255, 255, 255)'])
    const highest = await last()

    await button.click()
    expect(await header('IC50 (uM)').getAttribute('aria-sort')).toBe('descending')
    await expect.poll(async () => (await shown())[0]).toBe(highest)
    expect(descending(await shown())).toBe(true)
    expect(highest).toBeGreaterThan(lowest)
    expect(await colours()).toEqual(['rgb(255, 255, 217)', 'rgb(0, 0, 0)'])
    expect(await last()).toBe(lowest)

    // Back and forward go through the orders, as the address keeps them.
    await page.goBack()
    await expect.poll(() => header('IC50 (uM)').getAttribute('aria-sort')).toBe('ascending')
    await page.goForward()
    await expect.poll(() => header('IC50 (uM)').getAttribute('aria-sort')).toBe('descending')
  })

  it('remembers which end of a readout is good, across a reload', async () => {
    const inhibition = definition('% Inhibition')
    const background = () =>
      row(0)
        .locator(`[data-column="${kinase.id}:${inhibition.id}"]`)
        .evaluate(
          (cell) => (globalThis as unknown as PageGlobals).getComputedStyle(cell).backgroundColor,
        )
    const options = () =>
      header('% Inhibition (%)').getByRole('button', { name: 'Options of % Inhibition' })
    const menu = page.getByRole('dialog', { name: '% Inhibition (%)' })
    const highGood = await background()
    await options().click()
    expect(await menu.getByRole('radio', { name: 'High' }).isChecked()).toBe(true)
    await menu.getByRole('radio', { name: 'Low' }).check()
    await expect.poll(background).not.toBe(highGood)
    const lowGood = await background()
    await page.keyboard.press('Escape')
    await menu.waitFor({ state: 'hidden' })
    // The focus is back on the button that opened the menu.
    expect(
      await options().evaluate(
        (button) => button === (globalThis as unknown as PageGlobals).document.activeElement,
      ),
    ).toBe(true)

    await page.reload()
    await header('% Inhibition (%)').waitFor()
    await expect.poll(background).toBe(lowGood)
    await options().click()
    await menu.getByRole('radio', { name: 'High' }).check()
    await expect.poll(background).toBe(highGood)
    await page.keyboard.press('Escape')
  })

  it('filters IC50 to a range, refusing one whose bounds are the wrong way round', async () => {
    const ic50 = definition('IC50')
    const before = await shownTotal()
    await header('IC50 (uM)').getByRole('button', { name: 'Options of IC50' }).click()
    const menu = page.getByRole('dialog', { name: 'IC50 (uM)' })
    await menu.getByLabel('Lowest IC50').fill('5')
    await menu.getByLabel('Highest IC50').fill('0.1')
    await menu.getByRole('button', { name: 'Apply the range' }).click()
    await menu
      .getByRole('alert')
      .filter({ hasText: 'The lower bound 5 uM is above the upper bound 0.1 uM.' })
      .waitFor()
    expect(new URL(page.url()).hash).not.toContain('range=')
    await page.screenshot({ path: app.screenshotPath('results-column-menu.png') })

    await menu.getByLabel('Lowest IC50').fill('0.1')
    await menu.getByLabel('Highest IC50').fill('5')
    await menu.getByRole('button', { name: 'Apply the range' }).click()
    await menu.waitFor({ state: 'hidden' })
    await expect.poll(shownTotal).toBeLessThan(before)
    expect(await shownTotal()).toBeGreaterThan(0)
    await page.getByRole('list', { name: 'Ranges' }).getByText('IC50: 0.1 to 5 uM').waitFor()
    const values = (await valuesOf(ic50.id)).map(numberOf)
    expect(values.length).toBeGreaterThan(0)
    for (const value of values) {
      expect(value).toBeGreaterThanOrEqual(0.1)
      expect(value).toBeLessThanOrEqual(5)
    }
    await page.getByRole('button', { name: 'Clear the range of IC50' }).click()
    await expect.poll(shownTotal).toBe(before)
  })

  it('narrows by a results criterion to what the vault itself finds online', async () => {
    const ic50 = definition('IC50')
    await page.getByRole('button', { name: /^Criteria/ }).click()
    const box = page.getByLabel('Results criteria, one a line')
    await box.fill(`${kinaseName}: IC5 < 1 uM`)
    await page.getByRole('button', { name: 'Apply the criteria' }).click()
    // The main side's words, naming the readouts the protocol has.
    const refusal = page.getByRole('alert').filter({ hasText: 'IC5' })
    await refusal.waitFor()
    expect(await refusal.textContent()).toContain('IC50')

    await box.fill(criterion)
    await page.getByRole('button', { name: 'Apply the criteria' }).click()
    await refusal.waitFor({ state: 'hidden' })
    const online = await vaultAnswer([
      { protocol_id: kinase.id, readout_definition_id: ic50.id, operator: '<', readout_value: '1' },
    ])
    expect(online.length).toBeGreaterThan(0)
    await expect.poll(shownTotal).toBe(online.length)
    expect(online.length).toBeLessThan(kinaseMolecules)

    // Combined with a text search over the molecules' names.
    const name = (await row(0).getByRole('rowheader').textContent())!.trim()
    await page.getByRole('searchbox', { name: 'Search molecules' }).fill(name)
    await expect.poll(shownTotal).toBe(1)
    await page.getByRole('searchbox', { name: 'Search molecules' }).fill('')
    await expect.poll(shownTotal).toBe(online.length)
    await dismissNotices()
    await page.screenshot({ path: app.screenshotPath('results-criteria.png') })
  })

  it('adds selected rows to a new collection offline, and sends it once the vault answers', async () => {
    await network.off()

    // Click, Shift-click a range, Ctrl-click one more, then Space toggles it off again.
    await row(0).getByRole('gridcell').nth(2).click()
    await row(2)
      .getByRole('gridcell')
      .nth(2)
      .click({ modifiers: ['Shift'] })
    await row(3)
      .getByRole('gridcell')
      .nth(2)
      .click({ modifiers: ['ControlOrMeta'] })
    await expect.poll(() => count().textContent()).toMatch(/· 4 selected$/)
    await page.keyboard.press('Space')
    await expect.poll(() => count().textContent()).toMatch(/· 3 selected$/)
    expect(await row(3).getAttribute('aria-selected')).toBe('false')
    const selectedNames = async () =>
      grid().locator('[role="row"][aria-selected="true"] [role="rowheader"]').allTextContents()
    const names = (await selectedNames()).map((text) => text.trim())
    expect(names).toHaveLength(3)
    // The active row is drawn large beside the table, with every value.
    const panel = page.getByRole('complementary')
    await panel.getByRole('img', { name: /^Structure of / }).waitFor()
    await panel.getByText(/IC50 \(uM\)/).waitFor()

    await page.getByRole('button', { name: 'Add to a collection…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add 3 molecules to a collection' })
    await dialog.getByLabel('Name of the new collection').fill(collectionName)
    await dialog.getByRole('button', { name: 'Add' }).click()
    await dialog.waitFor({ state: 'hidden' })
    const added = page.getByRole('list', { name: 'Added to collections' }).getByRole('listitem')
    await added
      .filter({ hasText: `3 molecules into “${collectionName}”` })
      .getByText('Pending')
      .waitFor()
    await page.getByRole('link', { name: 'Outbox: 1 waiting to be sent' }).waitFor()
    // Its attempt found the vault not answering: it waits, safe on disk.
    await page
      .getByRole('group', { name: 'Sync status' })
      .getByText('Offline')
      .waitFor({ timeout: 30_000 })
    expect(
      (
        sim.core.db
          .prepare('SELECT COUNT(*) AS count FROM collections WHERE name = ?')
          .get(collectionName) as { count: number }
      ).count,
    ).toBe(0)
    await dismissNotices()
    await page.screenshot({ path: app.screenshotPath('results-collection-pending.png') })

    await network.on()
    await added.filter({ hasText: collectionName }).getByText('Sent').waitFor({ timeout: 60_000 })
    const collections = sim.core.db
      .prepare('SELECT id FROM collections WHERE vault_id = ? AND name = ?')
      .all(vaultId, collectionName) as { id: number }[]
    expect(collections).toHaveLength(1)
    const members = sim.core.db
      .prepare(
        `SELECT m.name FROM collection_molecules c JOIN molecules m ON m.id = c.molecule_id
          WHERE c.collection_id = ? ORDER BY m.name`,
      )
      .pluck()
      .all(collections[0]!.id) as string[]
    expect(members).toEqual([...names].sort())
  })

  it('summarizes a molecule’s results on its page, linking back to the table', async () => {
    await row(0).getByRole('gridcell').nth(2).click()
    await page.keyboard.press('Enter')
    await expect.poll(() => new URL(page.url()).hash).toMatch(/^#\/molecules\/\d+$/)
    const results = page.getByRole('region', { name: 'Results' })
    const table = results.getByRole('table', { name: `Results of ${kinaseName}` })
    await table.getByRole('rowheader', { name: 'IC50 (uM)' }).waitFor()
    await results.scrollIntoViewIfNeeded()
    await page.screenshot({ path: app.screenshotPath('molecule-results.png') })
    await results.getByRole('link', { name: 'Compare in the results table' }).first().click()
    await grid().waitFor()
    await header('IC50 (uM)').waitFor()
  })

  it('marks an aggregate an outlier marked offline changes as a pending correction', async () => {
    const keys = [definition('% Inhibition'), definition('IC50')]
      .map((readout) => `${kinase.id}:${readout.id}`)
      .join(',')
    await page.goto(page.url().replace(/#.*$/, `#/results?columns=${keys}`))
    await header('% Inhibition (%)').waitFor()
    const sparkline = page.getByRole('button', { name: /^Open the curves of / })
    await grid()
      .getByRole('button', { name: /^Open the curves of / })
      .first()
      .waitFor()
    const curveRow = grid()
      .locator('[role="row"][data-position]')
      .filter({ has: sparkline })
      .first()
    const position = await curveRow.getAttribute('data-position')
    const shownRow = grid().locator(`[role="row"][data-position="${position}"]`)
    const words = () => shownRow.locator('.value .visually-hidden').allTextContents()
    const before = await words()
    expect(await shownRow.locator('.value[data-pending]').count()).toBe(0)

    await network.off()
    await shownRow.getByRole('button', { name: /^Open the curves of / }).click()
    const dialog = page.getByRole('dialog', { name: /^Curves of / })
    const panel = dialog.getByRole('group', { name: /^Curve of / })
    await panel.waitFor()
    await panel.locator('g.point.used').last().click()
    await dialog.getByRole('button', { name: 'Mark as outlier' }).click()
    await dialog.getByText('1 correction pending').waitFor()
    await dialog.getByRole('button', { name: 'Close' }).last().click()
    await dialog.waitFor({ state: 'hidden' })

    // The aggregate is shown recomputed without the point, marked, and said to be pending.
    const pendingCell = shownRow.locator('.value[data-pending="true"]')
    await pendingCell.first().waitFor()
    const after = await words()
    const changed = after.filter((text, index) => text !== before[index])
    expect(changed.length).toBeGreaterThan(0)
    for (const text of changed) expect(text).toMatch(/, pending correction: /)
    // Without those words, the value itself differs (n or the mean).
    expect(changed.map((text) => text.replace(/, pending correction: .*$/, ''))).not.toEqual(
      before.filter((_, index) => after[index] !== before[index]),
    )
    expect(await pendingCell.first().getAttribute('title')).toMatch(/pending correction/)
    await pendingCell.first().locator('.pending-mark svg').waitFor()
    await dismissNotices()
    await page.screenshot({ path: app.screenshotPath('results-pending-cell.png') })

    await network.on()
    await expect
      .poll(() => shownRow.locator('.value[data-pending]').count(), { timeout: 60_000 })
      .toBe(0)
  })
})
