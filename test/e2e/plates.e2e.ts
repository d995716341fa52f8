/**
 * Plate quality in Chromium over the demo vault: a plate's heat map with its statistics, flags
 * and row and column means, read by hover, keyboard and as a table; the scale toggled; a run's
 * plates side by side, each linking to its plate page. The Z′ shown is the one the services
 * answer (checked against SciPy in test/store/plate-queries.test.ts). Screenshots go to
 * test-artifacts/; no console error, failed request or CSP violation at any step.
 */
import type { Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { requirement } from '../support/environment.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

describe.skipIf(!available)('plate quality in the window', () => {
  let sim: VaultSim
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>
  let connectionId: string
  let vaultId: number
  let plate: { id: number; name: string; runId: number }

  beforeAll(async () => {
    sim = await startVaultSim({
      port: 0,
      seed: 'demo',
      exportTiming: { startDelayMs: 0, durationMs: 0 },
    })
    vaultId = sim.cast.vaults.main.id
    plate = sim.core.db
      .prepare(
        `SELECT p.id, p.name, min(r.run_id) AS runId FROM plates p
           JOIN readout_rows r ON r.plate_id = p.id
          WHERE p.name = 'KIN-P001' GROUP BY p.id`,
      )
      .get() as { id: number; name: string; runId: number }
    app = await AppUnderTest.start({ pull: { exportThreshold: Number.POSITIVE_INFINITY } })
    const added = await app.services.connections.add({
      name: 'Lab',
      baseUrl: sim.baseUrl,
      token: sim.cast.users.admin.tokens[0]!,
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
    app.services.runtimes.get(connectionId).cache.readoutIndex().complete()
    const session = await app.open(`#/plates/${plate.id}`)
    page = session.page
    problems = session.problems
  }, 180_000)

  afterEach(async () => {
    expect(await problems()).toEqual([])
  })

  afterAll(async () => {
    await app?.stop()
    await sim?.stop()
  })

  it("draws the plate's heat map with its Z′, flag, legend and mean strips", async () => {
    const map = page.locator('[aria-roledescription="plate heat map"]')
    await map.waitFor({ timeout: 30_000 })
    const canvas = map.locator('canvas')
    expect(await canvas.getAttribute('data-rows')).toBe('16')
    expect(await canvas.getAttribute('data-columns')).toBe('24')
    const answer = app.services.plates.plate(connectionId, vaultId, plate.id)
    const zPrime = answer.chosen!.statistics.zPrime.value!
    await expect
      .poll(() => page.locator('[data-measure="z-prime"]').textContent())
      .toBe(Number(zPrime.toPrecision(3)).toString())
    expect(await page.locator('[data-flag]').first().getAttribute('data-flag')).toBe(
      answer.chosen!.statistics.flag.level,
    )
    await page.getByLabel(/^Colour scale of /).waitFor()
    await page
      .getByRole('region', { name: 'Heat map and quality' })
      .screenshot({ path: app.screenshotPath('plate-heat-map.png') })
  })

  it('says what a well holds on hover and as the keyboard moves over the wells', async () => {
    const canvas = page.locator('[aria-roledescription="plate heat map"] canvas')
    // The first well sits after the 24-pixel axis: A01, a negative control in the demo.
    await canvas.hover({ position: { x: 24 + 5, y: 24 + 5 } })
    await expect
      .poll(async () => (await page.getByRole('tooltip').textContent())?.trim())
      .toMatch(/^A01: .*negative control/)
    await page.locator('[aria-roledescription="plate heat map"]').focus()
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowRight')
    await expect
      .poll(() => page.locator('[aria-live="polite"]').filter({ hasText: /A03: / }).count())
      .toBe(1)
  })

  it('shows the wells as a table, and turns the scale diverging', async () => {
    await page.getByLabel('Show as a table').check()
    const table = page.getByRole('table', { name: /^Wells of KIN-P001/ })
    await table.waitFor()
    expect(await table.locator('tbody tr').count()).toBeGreaterThan(300)
    await page.getByLabel('Diverging').check()
    await page.getByText(/centred on .* \(negative controls’ mean\)/).waitFor()
    await page
      .getByRole('region', { name: 'Heat map and quality' })
      .screenshot({ path: app.screenshotPath('plate-heat-map-diverging.png') })
    await page.getByLabel('Sequential').check()
  })

  it("shows the run's plates side by side with their Z′, linking to each plate", async () => {
    await page.goto(`${app.harness.url}#/runs/${plate.runId}`)
    const plates = page.getByRole('list', { name: 'Plates of the run' })
    await plates.waitFor({ timeout: 30_000 })
    const item = plates.getByRole('listitem').first()
    await expect.poll(() => item.textContent()).toMatch(/Z′ \d\.\d\d|Z′ –/)
    const link = item.getByRole('link', { name: plate.name })
    expect(await link.getAttribute('href')).toBe(`#/plates/${plate.id}`)
    await page
      .getByRole('region', { name: /^Plates/ })
      .screenshot({ path: app.screenshotPath('run-plates.png') })
    await link.click()
    await page.locator('[aria-roledescription="plate heat map"]').waitFor()
  })
})
