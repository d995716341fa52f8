/**
 * Dose-response curves in Chromium over the demo vault: the kinase protocol's small multiples,
 * paged and sorted by IC50, one opened large with its fit constraints editor refusing what the
 * specification rejects; a batch's curves on its page, a point's details on hover, and a well
 * marked as an outlier while the vault does not answer: refitted at once with the mark pending,
 * sent exactly once when the vault answers again.
 */
import type { Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { VaultSim } from '../../src-sim/index.ts'
import { networkSwitch, type NetworkSwitch } from '../outbox/support/network-switch.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { requirement } from '../support/environment.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

const kinaseName = 'Kinase IC50 (ADP-Glo)'
const putRow = 'PUT /vaults/{vault_id}/readout_rows/{readout_row_id}'
const molarPrefixes: Record<string, number> = { pM: -12, nM: -9, µM: -6, mM: -3, M: 0 }

/** Waits until `check` holds (hooks cannot use expect.poll). */
async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** "48.5 nM (95% CI …)" as molar; null without a concentration. */
function molar(text: string): number | null {
  const match = /([\d.,]+) (pM|nM|µM|mM|M)\b/.exec(text)
  return match ? Number(match[1]!.replaceAll(',', '')) * 10 ** molarPrefixes[match[2]!]! : null
}

describe.runIf(available)('dose-response curves in Chromium', () => {
  let sim: VaultSim
  let network: NetworkSwitch
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>
  let connectionId: string
  let protocolId: number
  let seriesCount: number

  const curves = () => page.getByRole('region', { name: 'Curves' })

  async function dismissNotices() {
    const dismiss = page.getByRole('button', { name: /^Dismiss: / })
    // A notice may leave by itself meanwhile.
    while ((await dismiss.count()) > 0)
      await dismiss
        .first()
        .click({ timeout: 2000 })
        .catch(() => {})
  }

  beforeAll(async () => {
    sim = await startDemoSnapshotSim({
      port: 0,
      exportTiming: { startDelayMs: 0, durationMs: 0 },
    })
    network = await networkSwitch(Number(new URL(sim.baseUrl).port))
    protocolId = sim.core.db
      .prepare('SELECT id FROM protocols WHERE name = ?')
      .pluck()
      .get(kinaseName) as number
    seriesCount = sim.core.db
      .prepare(
        `SELECT COUNT(*) FROM dose_response_series s
           JOIN dose_response_calculations c ON c.id = s.calculation_id
          WHERE c.protocol_id = ?`,
      )
      .pluck()
      .get(protocolId) as number
    app = await AppUnderTest.start({
      pull: { exportThreshold: Number.POSITIVE_INFINITY },
      probeBackoff: { baseDelayMs: 100, maxDelayMs: 1000 },
      outbox: { retry: { baseDelayMs: 100, maxDelayMs: 1000 }, pollMs: 50 },
    })
    const added = await app.services.connections.add({
      name: 'Lab',
      baseUrl: `http://127.0.0.1:${network.port}/api/v1`,
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
    const session = await app.open(`#/protocols/${protocolId}`)
    page = session.page
    problems = session.problems
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

  it('shows a protocol’s curves as small multiples, paged and sorted by IC50', async () => {
    await curves().waitFor()
    await curves()
      .getByText(/^Indexing results/)
      .waitFor({ state: 'hidden', timeout: 60_000 })
    const multiples = curves().getByRole('list', { name: /^Curves, 1 to \d+ of / })
    await multiples.waitFor()
    expect(await multiples.getAttribute('aria-label')).toBe(
      `Curves, 1 to ${Math.min(48, seriesCount)} of ${seriesCount}`,
    )
    const buttons = multiples.getByRole('button', { name: /^Open the curve of / })
    expect(await buttons.count()).toBe(Math.min(48, seriesCount))
    // Each small multiple draws its points and, where there is one, its curve.
    expect(await multiples.locator('circle.point').count()).toBeGreaterThan(48 * 8)
    expect(await multiples.locator('path.curve').count()).toBeGreaterThan(24)
    await page.screenshot({ path: app.screenshotPath('curves-protocol.png'), fullPage: true })

    await curves().getByLabel('Order of the curves').selectOption('potency')
    // Ordered by IC50, every series of the protocol is fitted before the first page is cut.
    await expect
      .poll(
        async () => {
          const texts = await multiples.locator('.potency').allTextContents()
          const values = texts.map(molar)
          const known = values.filter((value): value is number => value !== null)
          return (
            known.length > 10 &&
            known.every((value, index) => index === 0 || value >= known[index - 1]!)
          )
        },
        { timeout: 30_000 },
      )
      .toBe(true)
    await page.screenshot({
      path: app.screenshotPath('curves-protocol-by-ic50.png'),
      fullPage: true,
    })

    if (seriesCount > 48) {
      await curves().getByRole('button', { name: 'Next' }).click()
      await curves()
        .getByRole('list', { name: `Curves, 49 to ${Math.min(96, seriesCount)} of ${seriesCount}` })
        .waitFor()
      await curves()
        .getByRole('button', { name: /Previous/ })
        .click()
      await multiples.waitFor()
    }
  })

  it('opens a series large, and refuses constraints the specification rejects', async () => {
    const first = curves()
      .getByRole('button', { name: /^Open the curve of / })
      .first()
    await first.click()
    const dialog = page.getByRole('dialog')
    await dialog.waitFor()
    await dialog.getByRole('group', { name: /^Curve of / }).waitFor()
    await dialog
      .getByText(/^(Vault fit|Local fit)/)
      .first()
      .waitFor()
    await dialog.getByText(/IC50/).first().waitFor()
    // The text alternative: every point and the parameters.
    await dialog.getByText('Points and parameters as a table').click()
    await dialog.getByRole('table', { name: /^Points of / }).waitFor()
    await dialog
      .getByRole('table', { name: /^Parameters of / })
      .getByRole('rowheader', { name: 'ic50' })
      .waitFor()

    const editor = dialog.getByRole('table', { name: 'Fit constraints (Hill)' })
    await editor.getByLabel('slope', { exact: true }).selectOption('=')
    await editor.getByLabel('slope value').fill('abc')
    await editor.getByLabel('max', { exact: true }).selectOption('from')
    await editor.getByLabel('max from').fill('110')
    await editor.getByLabel('max to').fill('90')
    await dialog.getByRole('button', { name: 'Queue the constraints' }).click()
    const refusal = dialog.getByRole('alert', { name: 'Why the constraints cannot be queued' })
    await refusal.getByText('slope: value "abc" is not numeric').waitFor()
    await refusal.getByText('max: range lower bound 110 is above upper bound 90').waitFor()
    expect(await app.services.outbox.list({ states: ['queued'] })).toHaveLength(0)
    await page.screenshot({ path: app.screenshotPath('curves-protocol-panel.png') })
    await dialog.getByRole('button', { name: 'Close' }).last().click()
    await dialog.waitFor({ state: 'hidden' })
  })

  it('shows a batch’s curves, and refits at once when a well is marked offline', async () => {
    const batchId = sim.core.db
      .prepare(
        `SELECT s.batch_id FROM dose_response_series s
           JOIN dose_response_calculations c ON c.id = s.calculation_id
          WHERE c.protocol_id = ? ORDER BY s.id LIMIT 1`,
      )
      .pluck()
      .get(protocolId) as number
    await page.goto(page.url().replace(/#.*$/, `#/batches/${batchId}`))
    await curves().waitFor()
    const group = curves().getByRole('heading', { name: kinaseName })
    await group.waitFor()
    const panel = curves()
      .getByRole('group', { name: /^Curve of / })
      .first()
    await panel.waitFor()

    // A point tells its concentration, response, well and plate.
    const point = panel.locator('g.point.used').last()
    await point.hover()
    const tooltip = page.getByRole('tooltip')
    await tooltip.getByText(/^Concentration /).waitFor()
    await tooltip.getByText(/^Response /).waitFor()
    await tooltip.getByText(/^well [A-P]\d+, plate /).waitFor()
    await page.screenshot({ path: app.screenshotPath('curves-batch.png'), fullPage: true })

    await network.off()
    sim.resetStats()
    await point.click()
    await curves().getByRole('button', { name: 'Mark as outlier' }).click()
    const caption = curves().locator('figcaption').first()
    await caption.getByText('1 correction pending').waitFor()
    await caption.getByText('Local refit: corrections pending').waitFor()
    await expect.poll(() => panel.locator('circle.pending-ring').count()).toBe(1)
    expect(sim.stats.byOperation[putRow] ?? 0).toBe(0)
    await dismissNotices()
    await page.screenshot({ path: app.screenshotPath('curves-batch-pending.png'), fullPage: true })

    await network.on()
    await expect
      .poll(() => app.services.outbox.list({ states: ['sent'] }).length, { timeout: 60_000 })
      .toBe(1)
    await caption.getByText('1 correction pending').waitFor({ state: 'hidden', timeout: 60_000 })
    // Sent once: every PUT of a readout row the vault received.
    const puts = Object.entries(sim.stats.byOperation).filter(
      ([operation]) => operation.startsWith('PUT ') && operation.includes('readout_rows'),
    )
    expect(puts, JSON.stringify(sim.stats.byOperation)).toEqual([[putRow, 1]])
    // Sent, the point stays an outlier, drawn hollow.
    await expect
      .poll(() => panel.locator('g.point.outlier').count(), { timeout: 30_000 })
      .toBeGreaterThan(0)
    await dismissNotices()
  })
})
