/**
 * Plate quality in Chromium over the demo vault: a plate's heat map with its statistics, flags
 * and row and column means, read by hover, keyboard and as a table; the scale toggled; a run's
 * plates side by side, each linking to its plate page. The Z′ shown is the one the services
 * answer (checked against SciPy in test/store/plate-queries.test.ts). The demo vault has one plate
 * per run, so a screening run of three 384-well plates of good, middling and poor controls is
 * added to the simulator's database before the sync (`addScreeningRun`, shared with
 * bench/plate-heatmap.bench.ts), its Z′ worked out here from the values written. Screenshots go
 * to test-artifacts/; no console error, failed request or CSP violation at any step.
 */
import type { Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { addScreeningRun, type ScreeningRun } from '../../bench/plate-heatmap.bench.ts'
import {
  DEFAULT_PLATE_THRESHOLDS,
  plateFlagWords,
  zPrimeFlag,
} from '../../src-common/analysis/plate-quality.ts'
import { kindDeclaration, recordTitle } from '../../src-common/records/record-kinds.ts'
import { scaleLabel } from '../../src-renderer/src/lib/plates/heat-scale.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { requirement } from '../support/environment.ts'
import { checkAccessibility } from './support/accessibility.ts'
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
  let screen: ScreeningRun

  beforeAll(async () => {
    sim = await startDemoSnapshotSim({
      port: 0,
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
    screen = addScreeningRun(sim, {
      protocol: 'Kinase HTS (384)',
      size: 384,
      plates: [
        { name: 'HTS-P001', controlSd: 2 },
        { name: 'HTS-P002', controlSd: 10 },
        { name: 'HTS-P003', controlSd: 20 },
      ],
    })
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
    await checkAccessibility(page, 'a plate page')
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
    // Chosen on the map, the well's readout rows (sent as columns with the map) link from the
    // layout's well detail.
    await page.keyboard.press('Enter')
    const { rows } = app.services.plates.plate(connectionId, vaultId, plate.id)
    const a03 = rows.rowId.filter((_, index) => rows.well[index] === 'A03')
    expect(a03.length).toBeGreaterThan(0)
    await page.getByRole('heading', { name: 'Well A03' }).waitFor()
    const links = page.getByRole('link', { name: /^Readout row \d+$/ })
    await expect.poll(() => links.allTextContents()).toEqual(a03.map((id) => `Readout row ${id}`))
  })

  it('paints the map before its statistics, outlines controls and names the mean strips', async () => {
    // Which comes first as the page is opened again: the map's first draw, or the statistics
    // (both seen at one look: laid out in the same task, the map waiting for the statistics).
    await page.evaluate(`location.hash = '#/plates'`)
    await page.locator('[aria-roledescription="plate heat map"]').waitFor({ state: 'detached' })
    await page.evaluate(`(() => {
      window.plateOrder = []
      const seen = () => {
        const canvas = document.querySelector('[aria-roledescription="plate heat map"] canvas')
        const now = []
        if (canvas && Number(canvas.dataset.frames) > 0 && !window.plateOrder.join().includes('map')) {
          now.push('map')
        }
        if (document.querySelector('[data-measure="z-prime"]') && !window.plateOrder.join().includes('statistics')) {
          now.push('statistics')
        }
        if (now.length > 0) window.plateOrder.push(now.join(' with '))
      }
      new MutationObserver(seen).observe(document.body, {
        subtree: true,
        childList: true,
        attributes: true,
        attributeFilter: ['data-frames'],
      })
    })()`)
    await page.evaluate(`location.hash = '#/plates/${plate.id}'`)
    await page.locator('[data-measure="z-prime"]').waitFor({ timeout: 30_000 })
    expect(await page.evaluate('window.plateOrder')).toEqual(['map', 'statistics'])

    // A 384-well map: 20-pixel wells 2 apart after a 24-pixel axis, the strips a well beyond.
    const [cell, pitch, axis] = [20, 22, 24]
    const { chosen } = app.services.plates.plate(connectionId, vaultId, plate.id)
    const wells = chosen!.wells
    const at = (state: string) =>
      wells.well[
        wells.controlState.findIndex(
          (control, index) => (control?.trim() ?? '') === state && wells.number[index] !== null,
        )
      ]!
    /** The colour just inside a well's left edge, where a control's ring is drawn. */
    const edge = (position: string) => {
      const { row, column } = wellPlace(position)
      return page.evaluate(`(() => {
        const canvas = document.querySelector('[aria-roledescription="plate heat map"] canvas')
        const ratio = canvas.width / canvas.getBoundingClientRect().width
        const x = Math.round((${axis + (column - 1) * pitch} + 1) * ratio)
        const y = Math.round((${axis + (row - 1) * pitch + cell / 2}) * ratio)
        return [...canvas.getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3)]
      })()`) as Promise<number[]>
    }
    const ink = [0x11, 0x11, 0x11]
    expect(await edge(at('+'))).toEqual(ink)
    expect(await edge(at('-'))).toEqual(ink)
    expect(await edge(at(''))).not.toEqual(ink)

    const canvas = page.locator('[aria-roledescription="plate heat map"] canvas')
    const tooltip = async () => (await page.getByRole('tooltip').textContent())?.trim()
    const rowStrip = axis + 24 * pitch + cell
    await canvas.hover({ position: { x: rowStrip + 5, y: axis + pitch + 5 } })
    const unit = chosen!.readout.unit ? ` ${chosen!.readout.unit}` : ''
    const rowB = chosen!.statistics.rows.find((line) => line.index === 2)!
    await expect
      .poll(tooltip)
      .toBe(`Row B: sample mean ${scaleLabel(rowB.mean!)}${unit} (n ${rowB.n})`)
    const columnStrip = axis + 16 * pitch + cell
    await canvas.hover({ position: { x: axis + 2 * pitch + 5, y: columnStrip + 5 } })
    const column3 = chosen!.statistics.columns.find((line) => line.index === 3)!
    await expect
      .poll(tooltip)
      .toBe(`Column 3: sample mean ${scaleLabel(column3.mean!)}${unit} (n ${column3.n})`)
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

  it("shows a run's three plates side by side on one scale, each with its Z′ and flag", async () => {
    const answer = app.services.plates.run(connectionId, vaultId, screen.runId)
    expect(answer.definitionId).toBe(screen.inhibitionId)
    expect(answer.plates.map((shown) => shown.plate.name)).toEqual([
      'HTS-P001',
      'HTS-P002',
      'HTS-P003',
    ])
    // Z′ from the values written to the vault: 1 - 3 (SD+ + SD-) / |mean+ - mean-|, sample SDs.
    const controls = sim.core.db
      .prepare(
        `SELECT r.plate_id AS plateId, trim(r.control_state) AS state, c.number_value AS value
           FROM readout_rows r JOIN readout_cells c ON c.row_id = r.id
          WHERE r.run_id = ? AND c.definition_id = ? AND trim(r.control_state) IN ('+', '-')`,
      )
      .all(screen.runId, screen.inhibitionId) as { plateId: number; state: string; value: number }[]
    const spread = (values: number[]) => {
      const mean = values.reduce((sum, value) => sum + value, 0) / values.length
      const variance =
        values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1)
      return { mean, sd: Math.sqrt(variance) }
    }
    const expected = screen.plateIds.map((plateId) => {
      const of = (state: string) =>
        spread(
          controls.filter((c) => c.plateId === plateId && c.state === state).map((c) => c.value),
        )
      const [positive, negative] = [of('+'), of('-')]
      return 1 - (3 * (positive.sd + negative.sd)) / Math.abs(positive.mean - negative.mean)
    })
    const zPrimes = answer.plates.map((shown) => shown.statistics.zPrime.value!)
    zPrimes.forEach((zPrime, index) => expect(zPrime).toBeCloseTo(expected[index]!, 9))
    // Wider control spreads, lower Z′: one plate of each flag (Z′ 0.5 and 0 are the thresholds).
    expect(zPrimes[0]).toBeGreaterThan(0.5)
    expect(zPrimes[1]).toBeGreaterThan(0)
    expect(zPrimes[1]).toBeLessThan(0.5)
    expect(zPrimes[2]).toBeLessThan(0)
    expect(answer.plates.map((shown) => shown.statistics.flag.level)).toEqual([
      'ok',
      'warning',
      'failure',
    ])

    await page.goto(`${app.harness.url}#/runs/${screen.runId}`)
    const list = page.getByRole('list', { name: 'Plates of the run' })
    await list.waitFor({ timeout: 30_000 })
    const items = list.getByRole('listitem')
    await expect.poll(() => items.count()).toBe(3)
    for (const [index, shown] of answer.plates.entries()) {
      const item = items.nth(index)
      const link = item.getByRole('link', { name: shown.plate.name! })
      expect(await link.getAttribute('href')).toBe(`#/plates/${shown.plate.id}`)
      expect(await item.getAttribute('data-flag')).toBe(shown.statistics.flag.level)
      expect(await item.textContent()).toContain(`Z′ ${zPrimes[index]!.toFixed(2)}`)
      await expect
        .poll(async () => Number(await item.locator('canvas').getAttribute('data-frames')))
        .toBeGreaterThan(0)
    }
    // One scale for the three: it spans the wells the statistics use on every plate.
    const numbers = answer.plates.flatMap(({ wells }) =>
      wells.number.flatMap((number, index) =>
        wells.kind[index] === 'number' && number !== null && !wells.outlier[index] ? [number] : [],
      ),
    )
    const [low, high] = [Math.min(...numbers), Math.max(...numbers)]
    await expect
      .poll(() => page.getByLabel('Colour scale').textContent())
      .toContain(`${scaleLabel(low)} to ${scaleLabel(high)} %, the same for every plate`)
    // The vault's own statistics of the run: its Z′ flagged by the same thresholds and words.
    const vaultTable = page.getByRole('table', { name: 'Plate statistics' })
    for (const [index, shown] of answer.plates.entries()) {
      const cell = vaultTable
        .locator('tbody tr')
        .filter({ has: page.getByRole('link', { name: shown.plate.name! }) })
        .filter({ hasText: '% Inhibition' })
        .locator('[data-z-prime-flag]')
      const flag = zPrimeFlag(zPrimes[index]!, DEFAULT_PLATE_THRESHOLDS)
      expect(flag).toBe(['ok', 'warning', 'failure'][index])
      expect(await cell.getAttribute('data-z-prime-flag')).toBe(flag)
      const badge = cell.locator('[data-flag-badge]')
      if (flag === 'ok') expect(await badge.count()).toBe(0)
      else expect(await badge.textContent()).toBe(plateFlagWords[flag])
    }
    await vaultTable.screenshot({ path: app.screenshotPath('run-plate-statistics-flags.png') })
    await checkAccessibility(page, "a run's plates")
    await page
      .getByRole('region', { name: /^Plates/ })
      .screenshot({ path: app.screenshotPath('run-plates-three.png') })
    await items.nth(2).getByRole('link', { name: 'HTS-P003' }).click()
    await page.locator('[aria-roledescription="plate heat map"]').waitFor()
  })

  it("asks for a plate's wells beside its record, and names its wells' batches from them", async () => {
    // The page's requests and answers over the harness's socket, in the order they pass.
    const passed: { way: 'sent' | 'received'; id: unknown; channel?: unknown }[] = []
    page.on('websocket', (socket) => {
      const note = (way: 'sent' | 'received') => (frame: { payload: string | Buffer }) => {
        const message = JSON.parse(String(frame.payload)) as Record<string, unknown>
        if ('id' in message) passed.push({ way, id: message.id, channel: message.channel })
      }
      socket.on('framesent', note('sent'))
      socket.on('framereceived', note('received'))
    })
    await page.goto(`${app.harness.url}#/plates/${plate.id}`)
    await page.reload()
    await page.locator('[aria-roledescription="plate heat map"]').waitFor({ timeout: 30_000 })
    const sent = (channel: string) =>
      passed.findIndex((entry) => entry.way === 'sent' && entry.channel === channel)
    const recordAsked = sent('records.get')
    const wellsAsked = sent('plates.quality')
    expect(recordAsked).toBeGreaterThanOrEqual(0)
    expect(wellsAsked).toBeGreaterThanOrEqual(0)
    const recordAnswered = passed.findIndex(
      (entry) => entry.way === 'received' && entry.id === passed[recordAsked]!.id,
    )
    expect(recordAnswered).toBeGreaterThan(recordAsked)
    expect(wellsAsked).toBeLessThan(recordAnswered)

    // A sample well's batch, named as the batch's page is titled, from the wells' answer.
    const { batches, chosen } = app.services.plates.plate(connectionId, vaultId, plate.id)
    const index = chosen!.wells.batchId.findIndex((batchId) => batchId !== null)
    const position = chosen!.wells.well[index]!
    const batchId = chosen!.wells.batchId[index]!
    const cached = app.services.runtimes.get(connectionId).cache.get('batches', vaultId, batchId)!
    const title = recordTitle(kindDeclaration('batches'), cached)
    expect(batches.name[batches.id.indexOf(batchId)]).toBe(title)
    const map = page.locator('[aria-roledescription="plate heat map"]')
    await map.focus()
    const { column, row } = wellPlace(position)
    for (let step = 1; step < column; step += 1) await page.keyboard.press('ArrowRight')
    for (let step = 1; step < row; step += 1) await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: `Well ${position}` }).waitFor()
    const link = page.locator('.well-detail').getByRole('link', { name: title })
    expect(await link.getAttribute('href')).toBe(`#/batches/${batchId}`)

    // Another readout chosen is asked once.
    await page.goto(`${app.harness.url}#/plates/${screen.plateIds[0]}`)
    const label = () =>
      page.locator('[aria-roledescription="plate heat map"]').getAttribute('aria-label')
    await expect.poll(label, { timeout: 30_000 }).toMatch(/^% Inhibition over/)
    passed.length = 0
    await page
      .locator('label')
      .filter({ hasText: /^\s*Readout/ })
      .locator('select')
      .selectOption({ label: 'Signal (RLU)' })
    await expect.poll(label).toMatch(/^Signal over/)
    expect(passed.filter((entry) => entry.channel === 'plates.quality')).toHaveLength(1)
  })
})

/** Row and column (from 1) of a well such as `B07`. */
function wellPlace(position: string): { row: number; column: number } {
  const [, letters, digits] = /^([A-Z]+)0*(\d+)$/.exec(position)!
  const row = [...letters!].reduce((sum, letter) => sum * 26 + letter.charCodeAt(0) - 64, 0)
  return { row, column: Number(digits) }
}
