/**
 * Curves in the results table, in Chromium over the demo vault: a table of the kinase protocol's
 * IC50 gets a "Curve" column after it, each row in view a sparkline painted on a canvas with its
 * IC50 in words beside it (per batch: the batch page's curve's IC50, read from the services), and
 * a click opens the row's curve in the large panel. The accessibility gate checks the table and
 * the opened panel in both colour schemes.
 */
import type { Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { CurveSeries } from '../../src-main/ipc/contract.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { requirement } from '../support/environment.ts'
import { checkAccessibility } from './support/accessibility.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

const kinaseName = 'Kinase IC50 (ADP-Glo)'
const molarPrefixes: Record<string, number> = { pM: -12, nM: -9, µM: -6, mM: -3, M: 0 }

/** Waits until `check` holds (hooks cannot use expect.poll). */
async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** "IC50 48.5 nM" as molar; null without a concentration. */
function molar(text: string): number | null {
  const match = /([\d.,]+) (pM|nM|µM|mM|M)\b/.exec(text)
  return match ? Number(match[1]!.replaceAll(',', '')) * 10 ** molarPrefixes[match[2]!]! : null
}

/** The IC50 of the curve a series draws, in the readout's unit (µM here). */
function drawnIc50(series: CurveSeries): number | null {
  const value = series.drawn?.equationType === 'Hill' ? series.drawn.parameters.ic50 : undefined
  return value !== undefined && value > 0 ? value : null
}

describe.runIf(available)('curves in the results table, in Chromium', () => {
  let sim: VaultSim
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>
  let connectionId: string
  let vaultId: number
  let protocolId: number
  let ic50Id: number

  const grid = () => page.getByRole('grid', { name: 'Results table' })
  const sparklines = () => grid().getByRole('button', { name: /^Open the curves of / })

  beforeAll(async () => {
    sim = await startDemoSnapshotSim({
      port: 0,
      exportTiming: { startDelayMs: 0, durationMs: 0 },
    })
    vaultId = sim.cast.vaults.main.id
    protocolId = sim.core.db
      .prepare('SELECT id FROM protocols WHERE name = ?')
      .pluck()
      .get(kinaseName) as number
    ic50Id = sim.core.db
      .prepare(
        `SELECT result_definition_id FROM dose_response_calculations
          WHERE protocol_id = ? ORDER BY id LIMIT 1`,
      )
      .pluck()
      .get(protocolId) as number
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
    const session = await app.open(`#/results?columns=${protocolId}:${ic50Id}&level=batch`)
    page = session.page
    problems = session.problems
  }, 180_000)

  afterEach(async () => {
    // No console error, failed request or CSP violation, and the accessibility gate, at every step.
    expect(await problems()).toEqual([])
  })

  afterAll(async () => {
    await app?.stop()
    await sim?.stop()
  })

  it('draws a sparkline per batch in view, its IC50 the batch page’s', async () => {
    await grid()
      .getByRole('columnheader', { name: `Curve, IC50, ${kinaseName}`, exact: true })
      .waitFor({ timeout: 60_000 })
    await page.getByText(/^Indexing results/).waitFor({ state: 'hidden', timeout: 60_000 })
    await sparklines().first().waitFor({ timeout: 60_000 })
    const rendered = await grid().locator('[role="row"][data-position]').count()
    const drawn = await sparklines().count()
    expect(drawn).toBeGreaterThan(0)
    // Only the rows in view (and a few either side) are drawn, never the whole table.
    expect(drawn).toBeLessThanOrEqual(rendered)
    expect(Number(await grid().getAttribute('aria-rowcount'))).toBeGreaterThan(rendered)

    // Each canvas has been painted: some of its pixels are not blank.
    const painted = await grid()
      .locator('.cell.curve canvas')
      .evaluateAll((canvases) =>
        canvases.map((canvas) => {
          const element = canvas as unknown as {
            width: number
            height: number
            getContext(kind: '2d'): { getImageData(...box: number[]): { data: Uint8ClampedArray } }
          }
          const { data } = element
            .getContext('2d')
            .getImageData(0, 0, element.width, element.height)
          let inked = 0
          for (let index = 3; index < data.length; index += 4) if (data[index]! > 0) inked += 1
          return inked
        }),
      )
    expect(painted.length).toBe(drawn)
    for (const inked of painted) expect(inked).toBeGreaterThan(20)

    // The words beside the first few sparklines: the IC50 of the batch page's curve.
    let compared = 0
    for (let index = 0; index < Math.min(drawn, 5); index += 1) {
      const button = sparklines().nth(index)
      const row = button.locator('xpath=ancestor::*[@role="row"][1]')
      const href = await row.getByRole('rowheader').getByRole('link').getAttribute('href')
      const batchId = Number(/^#\/batches\/(\d+)$/.exec(href!)![1])
      const batch = await app.services.curves.ofBatch(connectionId, vaultId, batchId, protocolId)
      const ic50s = batch.series.flatMap((series) => drawnIc50(series) ?? [])
      const words = (await button.locator('.potency').textContent())!.trim()
      if (ic50s.length !== 1) continue
      const shown = molar(words)
      expect(shown, words).not.toBeNull()
      // µM in the vault's unit; three significant digits shown.
      expect(Math.abs(shown! / (ic50s[0]! * 1e-6) - 1)).toBeLessThan(0.005)
      compared += 1
    }
    expect(compared).toBeGreaterThan(0)
    await page.mouse.move(0, 0)
    await page.screenshot({ path: app.screenshotPath('results-curves.png') })
    await checkAccessibility(page, 'the results table with its Curve column')
  })

  it('opens a row’s curve in the large panel', async () => {
    const first = sparklines().first()
    const name = (await first.textContent())!
    await first.click()
    const dialog = page.getByRole('dialog', { name: /^Curves of / })
    await dialog.waitFor()
    await dialog.getByRole('group', { name: /^Curve of / }).waitFor()
    // The large panel's caption says which fit is drawn; its points are a table too.
    await dialog
      .getByText(/^(Vault fit|Local fit|Local refit|No curve)/)
      .first()
      .waitFor()
    expect(await dialog.getByText('Points and parameters as a table').count()).toBe(1)
    expect(name).toMatch(/^Open the curves of .+:\s*(IC50 [\d.,]+ [pnµm]?M|No IC50)/)
    await page.screenshot({ path: app.screenshotPath('results-curves-panel.png') })
  })
})
