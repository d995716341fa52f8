/**
 * The Plot view of the results table in Chromium over the demo vault: the kinase IC50 and %
 * inhibition plotted against each other over every molecule of the table, the number drawn equal
 * to the number of molecules with both values (as the main side's own `results.points` gives
 * them), re-read for a results criterion, a box over points whose molecules are known narrowing
 * the table to exactly them, the point under the pointer named and drawn, the picked
 * molecules added to a new collection while the vault does not answer, sent exactly once when it
 * answers again, a histogram's range picking its molecules, and points picked from the keyboard.
 */
import type { Locator, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { VaultSim } from '../../src-sim/index.ts'
import { networkSwitch, type NetworkSwitch } from '../outbox/support/network-switch.ts'
import { columnExtent, scaleOf } from '../../src-renderer/src/lib/plots/scales.ts'
import { decodeIds } from '../../src-renderer/src/lib/results/molecule-pick.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { requirement } from '../support/environment.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

const kinaseName = 'Kinase IC50 (ADP-Glo)'
const criterion = `${kinaseName}: IC50 < 1 uM`
const collectionName = 'Plot picks'

interface Protocol {
  id: number
  name: string
  readout_definitions: { id: number; name: string }[]
}

/** A plotted axis: its scale read from the ticks it draws, and where it puts a value. */
interface AxisMap {
  log: boolean
  /** Pixels from the plot area's left (x) or top (y) edge. */
  at(value: number): number
}

/** A molecule of the plot as `results.points` answers it. */
interface Point {
  id: number
  x: number | null
  y: number | null
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

const formatCount = (value: number) => value.toLocaleString('en-US')

describe.runIf(available)('the Plot view of a results table in Chromium', () => {
  let sim: VaultSim
  let network: NetworkSwitch
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>
  let token: string
  let vaultId: number
  let connectionId: string
  let kinase: Protocol
  /** The table's readouts in its order: the plot's default x and y. */
  let readouts: { id: number; name: string }[]
  /** The molecules picked with the box. */
  let picked: Point[]

  const surface = () => page.getByRole('application', { name: / against / })
  const grid = () => page.getByRole('grid', { name: 'Results table' })
  /** The table's count of its rows. */
  const count = () => page.getByRole('status').filter({ hasText: /molecules?( ·|$)/ })
  /** The plot's count of the molecules it has. */
  const plotCount = () => page.getByRole('status').filter({ hasText: /molecules? with numbers/ })
  const column = (definitionId: number) => ({ protocolId: kinase.id, definitionId })

  /** Every molecule of the table's scope, x and y as the default axes show them. */
  function points(criteria?: string[]): Point[] {
    const answer = app.services.results.points(connectionId, vaultId, {
      columns: readouts.map((readout) => column(readout.id)),
      ...(criteria ? { criteria } : {}),
    })
    return answer.ids
      .map((id, row) => ({ id, x: answer.values[0]![row]!, y: answer.values[1]![row]! }))
      .filter((point) => point.x !== null || point.y !== null)
  }

  /**
   * Where an axis puts a value, in pixels of the plot area: its scale spans the values it has
   * (scales.ts, as the plots' own end-to-end test places points), on a log scale where its title
   * says so.
   */
  async function axisMap(side: 'bottom' | 'left', values: (number | null)[]): Promise<AxisMap> {
    const title = page.locator(`.scatter [data-axis="${side}"] .title`)
    const log = ((await title.textContent()) ?? '').endsWith(', log scale')
    const kind = log ? 'log' : 'linear'
    const scale = scaleOf(columnExtent(values, kind), kind)!
    const area = (await surface().boundingBox())!
    return {
      log,
      at: (value) =>
        side === 'bottom'
          ? scale.toUnit(value) * area.width
          : area.height - scale.toUnit(value) * area.height,
    }
  }

  /** Both axes of the plot of these molecules. */
  const axesOf = async (shown: Point[]) =>
    [
      await axisMap(
        'bottom',
        shown.map((point) => point.x),
      ),
      await axisMap(
        'left',
        shown.map((point) => point.y),
      ),
    ] as const

  const drawnOn = (x: AxisMap, y: AxisMap) => (point: Point) =>
    point.x !== null && point.y !== null && (!x.log || point.x > 0) && (!y.log || point.y > 0)

  async function dismissNotices() {
    const dismiss = page.getByRole('button', { name: /^Dismiss: / })
    while ((await dismiss.count()) > 0) await dismiss.first().click()
  }

  beforeAll(async () => {
    sim = await startDemoSnapshotSim({
      port: 0,
      exportTiming: { startDelayMs: 0, durationMs: 0 },
    })
    network = await networkSwitch(Number(new URL(sim.baseUrl).port))
    token = sim.cast.users.admin.tokens[0]!
    vaultId = sim.cast.vaults.main.id
    const response = await fetch(`${sim.baseUrl}/vaults/${vaultId}/protocols`, {
      headers: { 'X-SVC-Token': token },
    })
    const body = (await response.json()) as Protocol[] | { objects: Protocol[] }
    const protocols = Array.isArray(body) ? body : body.objects
    kinase = protocols.find((protocol) => protocol.name === kinaseName)!
    readouts = kinase.readout_definitions.filter((readout) =>
      ['IC50', '% Inhibition'].includes(readout.name),
    )
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

  it('plots IC50 against % inhibition, a point for each molecule with both', async () => {
    await page
      .getByRole('navigation', { name: 'Assays lists' })
      .getByRole('link', { name: 'Results' })
      .click()
    await page.getByRole('button', { name: 'Choose readouts…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Choose readouts' })
    const protocol = dialog.getByRole('group', { name: kinaseName })
    await protocol.getByLabel('IC50 (uM)').check()
    await protocol.getByLabel('% Inhibition (%)').check()
    await dialog.getByRole('button', { name: 'Show these readouts' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.getByText(/^Indexing results/).waitFor({ state: 'hidden', timeout: 60_000 })

    await page.getByRole('radiogroup', { name: 'Show as' }).getByText('Plot').click()
    expect(new URL(page.url()).hash).toMatch(/&view=plot$/)
    // The first two readouts of the table, against each other; IC50, a concentration, on a log axis.
    const [first, second] = readouts
    await surface().waitFor()
    expect(await surface().getAttribute('aria-label')).toBe(
      `${second!.name} against ${first!.name}`,
    )
    const ic50Side = first!.name === 'IC50' ? 'bottom' : 'left'
    await expect
      .poll(async () => page.locator(`.scatter [data-axis="${ic50Side}"] .title`).textContent())
      .toBe('IC50 (uM), log scale')

    const all = points()
    const drawn = all.filter(drawnOn(...(await axesOf(all))))
    expect(drawn.length).toBeGreaterThan(20)
    expect(drawn.length).toBeLessThanOrEqual(all.length)
    await page
      .getByText(`Showing ${formatCount(drawn.length)} of ${formatCount(all.length)} molecules.`)
      .waitFor()
    expect(await plotCount().textContent()).toBe(
      `${formatCount(all.length)} molecules with numbers`,
    )
    await dismissNotices()
    await page.screenshot({ path: app.screenshotPath('results-plot.png') })
  })

  it('reads the points again for a results criterion, and again without it', async () => {
    await page.getByRole('button', { name: /^Criteria/ }).click()
    await page.getByLabel('Results criteria, one a line').fill(criterion)
    await page.getByRole('button', { name: 'Apply the criteria' }).click()
    const narrowed = points([criterion])
    const [x, y] = await axesOf(narrowed)
    const drawn = narrowed.filter(drawnOn(x, y))
    expect(narrowed.length).toBeLessThan(points().length)
    await page
      .getByText(
        `Showing ${formatCount(drawn.length)} of ${formatCount(narrowed.length)} molecules.`,
      )
      .waitFor()

    await page.goBack()
    const all = points()
    await page
      .getByText(
        `Showing ${formatCount(all.filter(drawnOn(x, y)).length)} of ${formatCount(all.length)} molecules.`,
      )
      .waitFor()
    await page.getByRole('button', { name: /^Criteria/ }).click()
  })

  it('keeps to the table’s ranges, as the table’s own query does', async () => {
    const ic50 = readouts.find((readout) => readout.name === 'IC50')!
    const view = page.getByRole('radiogroup', { name: 'Show as' })
    await view.getByText('Table').click()
    await grid()
      .getByRole('columnheader', { name: `IC50 (uM), ${kinaseName}`, exact: true })
      .getByRole('button', { name: 'Options of IC50' })
      .click()
    const menu = page.getByRole('dialog', { name: 'IC50 (uM)' })
    await menu.getByLabel('Highest IC50').fill('1')
    await menu.getByRole('button', { name: 'Apply the range' }).click()
    await menu.waitFor({ state: 'hidden' })
    await view.getByText('Plot').click()

    // The molecules the table itself has within the range (its SQL, on the main side).
    const columns = readouts.map((readout) => column(readout.id))
    const inRange = app.services.results.table(connectionId, vaultId, {
      level: 'molecule',
      columns,
      ranges: [{ column: readouts.indexOf(ic50), max: 1 }],
      limit: 1000,
    })
    expect(inRange.total).toBeLessThan(1000)
    const kept = new Set(inRange.rows.map((row) => row.subjectId))
    const shown = points().filter((point) => kept.has(point.id))
    expect(shown.length).toBeGreaterThan(0)
    expect(shown.length).toBeLessThan(points().length)
    const drawn = shown.filter(drawnOn(...(await axesOf(shown))))
    await page
      .getByText(`Showing ${formatCount(drawn.length)} of ${formatCount(shown.length)} molecules.`)
      .waitFor()
    await page.getByRole('button', { name: 'Clear the range of IC50' }).click()
    await page
      .getByText(`Showing ${formatCount(drawn.length)} of ${formatCount(shown.length)} molecules.`)
      .waitFor({ state: 'detached' })
  })

  it('narrows the table to exactly the molecules inside a box', async () => {
    const area = (await surface().boundingBox())!
    const all = points()
    const [x, y] = await axesOf(all)
    const placed = all
      .filter(drawnOn(x, y))
      .map((point) => ({ point, left: x.at(point.x!), top: y.at(point.y!) }))
    // A box holding a few points, none of them near its edges (so no rounding decides).
    const [width, height, margin] = [90, 70, 3]
    let box: { left: number; top: number } | null = null
    search: for (let top = 10; top + height < area.height - 10; top += 10) {
      for (let left = 10; left + width < area.width - 10; left += 10) {
        const inside = placed.filter(
          (at) =>
            at.left >= left && at.left <= left + width && at.top >= top && at.top <= top + height,
        )
        const onEdge = placed.some(
          (at) =>
            at.left > left - margin &&
            at.left < left + width + margin &&
            at.top > top - margin &&
            at.top < top + height + margin &&
            (at.left < left + margin ||
              at.left > left + width - margin ||
              at.top < top + margin ||
              at.top > top + height - margin),
        )
        if (inside.length >= 3 && inside.length <= 12 && !onEdge) {
          box = { left, top }
          picked = inside.map((at) => at.point)
          break search
        }
      }
    }
    expect(box).not.toBeNull()

    await page.getByRole('button', { name: 'Box', exact: true }).click()
    await page.mouse.move(area.x + box!.left, area.y + box!.top)
    await page.mouse.down()
    await page.mouse.move(area.x + box!.left + width, area.y + box!.top + height, { steps: 8 })
    await page.mouse.up()
    const chip = page.getByRole('list', { name: 'Picked in the plot' })
    await chip.getByText(`${picked.length} molecules selected in the plot`).waitFor()
    expect(new URL(page.url()).hash).toContain('&picked=')
    await page.getByText(`${picked.length} molecules selected; the others are faded.`).waitFor()
    await dismissNotices()
    await page.screenshot({ path: app.screenshotPath('results-plot-box.png') })

    // The point under the pointer: its name, its values and its structure.
    const names = sim.core.db
      .prepare(`SELECT id, name FROM molecules WHERE id IN (${picked.map(() => '?').join(',')})`)
      .all(...picked.map((point) => point.id)) as { id: number; name: string }[]
    const nameOf = new Map(names.map((row) => [row.id, row.name]))
    // The picked point farthest from any other, so that the pointer is nearest to it alone.
    const apart = (at: (typeof placed)[number]) =>
      Math.min(
        ...placed
          .filter((other) => other !== at)
          .map((other) => Math.hypot(other.left - at.left, other.top - at.top)),
      )
    const loneliest = placed
      .filter((at) => picked.includes(at.point))
      .sort((first, second) => apart(second) - apart(first))[0]!
    const hovered = loneliest.point
    const shown = (await surface().boundingBox())!
    await page.mouse.move(shown.x + loneliest.left, shown.y + loneliest.top)
    const tooltip = page.getByRole('tooltip')
    await expect
      .poll(async () => (await tooltip.locator('.name').textContent()) ?? '')
      .toBe(nameOf.get(hovered.id))
    await tooltip
      .getByRole('img', { name: `Structure of ${nameOf.get(hovered.id)}` })
      .waitFor({ timeout: 30_000 })
    await page.screenshot({ path: app.screenshotPath('results-plot-hover.png') })
    await page.mouse.move(shown.x + shown.width + 40, shown.y - 20)
    await tooltip.waitFor({ state: 'detached' })

    // The table shows exactly those molecules.
    await page.getByRole('radiogroup', { name: 'Show as' }).getByText('Table').click()
    await expect.poll(() => count().textContent()).toBe(`${picked.length} molecules`)
    // Rows are drawn as they scroll into view: page down through them all.
    const seen = new Set<string>()
    await grid().focus()
    for (let page_ = 0; page_ <= picked.length; page_ += 1) {
      const shown = await grid()
        .locator('[role="row"][data-position] [role="rowheader"]')
        .allTextContents()
      for (const name of shown) seen.add(name.trim())
      if (seen.size >= picked.length) break
      await page.keyboard.press('PageDown')
    }
    expect([...seen].sort()).toEqual([...nameOf.values()].sort())
    await grid().press('Home')
    await chip.getByText(`${picked.length} molecules selected in the plot`).waitFor()
    await page.screenshot({ path: app.screenshotPath('results-plot-table.png') })
    // A reload keeps the table narrowed.
    await page.reload()
    await expect.poll(() => count().textContent()).toBe(`${picked.length} molecules`)
    await page.getByRole('radiogroup', { name: 'Show as' }).getByText('Plot').click()
    await chip.getByText(`${picked.length} molecules selected in the plot`).waitFor()
  })

  it('adds the picked molecules to a new collection offline, sent once the vault answers', async () => {
    await network.off()
    await page.getByRole('button', { name: 'Add to a collection…' }).click()
    const dialog = page.getByRole('dialog', {
      name: `Add ${picked.length} molecules to a collection`,
    })
    await dialog.getByLabel('Name of the new collection').fill(collectionName)
    await dialog.getByRole('button', { name: 'Add' }).click()
    await dialog.waitFor({ state: 'hidden' })
    const added = page.getByRole('list', { name: 'Added to collections' }).getByRole('listitem')
    await added
      .filter({ hasText: `${picked.length} molecules into “${collectionName}”` })
      .getByText('Pending')
      .waitFor()
    await page
      .getByRole('group', { name: 'Sync status' })
      .getByText('Offline')
      .waitFor({ timeout: 30_000 })
    const collections = () =>
      sim.core.db
        .prepare('SELECT id FROM collections WHERE vault_id = ? AND name = ?')
        .all(vaultId, collectionName) as { id: number }[]
    expect(collections()).toEqual([])
    await dismissNotices()
    await page.screenshot({ path: app.screenshotPath('results-plot-collection-pending.png') })

    await network.on()
    await added.filter({ hasText: collectionName }).getByText('Sent').waitFor({ timeout: 60_000 })
    expect(collections()).toHaveLength(1)
    const members = sim.core.db
      .prepare(
        'SELECT molecule_id FROM collection_molecules WHERE collection_id = ? ORDER BY molecule_id',
      )
      .pluck()
      .all(collections()[0]!.id) as number[]
    expect(members).toEqual(picked.map((point) => point.id).sort((a, b) => a - b))

    // Clearing the pick shows the whole table again.
    const chip: Locator = page.getByRole('list', { name: 'Picked in the plot' })
    await chip.getByRole('button', { name: 'Clear the plot selection' }).click()
    await chip.waitFor({ state: 'detached' })
    expect(new URL(page.url()).hash).not.toContain('picked=')
  })

  it('picks the molecules of a histogram’s range, linked to the scatter plot', async () => {
    const histogram = page.getByRole('application', { name: /^Histogram of / })
    await histogram.focus()
    await page.keyboard.press('Home')
    // The histogram's own count of its range ("Range 2.86 to 27.5 %: 14 molecules.").
    const range = page.getByText(/^\s*Range .+: [\d,]+ molecules?\./)
    const inRange = Number(/: ([\d,]+) molecules?\./.exec((await range.textContent())!)![1])
    expect(inRange).toBeGreaterThan(0)
    const chip = page.getByRole('list', { name: 'Picked in the plot' })
    await chip.getByText(`${inRange} molecules selected in the plot`).waitFor()
    await page.getByText(`${inRange} molecules selected; the others are faded.`).waitFor()
    await page.getByText(new RegExp(`Picked: ${inRange}\\s+molecules with `)).waitFor()
    await dismissNotices()
    await page.screenshot({ path: app.screenshotPath('results-plot-histogram.png') })
    await page.keyboard.press('Escape')
    await chip.waitFor({ state: 'detached' })
  })

  it('picks points from the keyboard: arrows move between them, Enter and Shift+Enter pick', async () => {
    const chip = page.getByRole('list', { name: 'Picked in the plot' })
    const tooltip = page.getByRole('tooltip')
    /** The focused point's name, once read (a point is named by its id until then). */
    const focusedName = async () => {
      await expect
        .poll(async () => (await tooltip.locator('.name').textContent()) ?? '')
        .not.toMatch(/^(Molecule \d+)?$/)
      return (await tooltip.locator('.name').textContent())!
    }
    /** The names of the molecules the address says are picked. */
    const pickedNames = () => {
      const token = new URLSearchParams(new URL(page.url()).hash.split('?')[1]).get('picked')
      const ids = decodeIds(token ?? '') ?? []
      const rows = sim.core.db
        .prepare(`SELECT name FROM molecules WHERE id IN (${ids.map(() => '?').join(',')})`)
        .pluck()
        .all(...ids) as string[]
      return rows.sort()
    }

    /** What the plot says of the point the keyboard reached: its name first, then its values. */
    const announced = (name: string) =>
      page
        .getByRole('status')
        .filter({ hasText: `${name}: ` })
        .waitFor({ state: 'attached' })

    await surface().focus()
    await page.keyboard.press('ArrowRight')
    const first = await focusedName()
    await announced(first)
    await page.keyboard.press('Enter')
    await chip.getByText('1 molecule selected in the plot').waitFor()
    expect(pickedNames()).toEqual([first])

    // The focus stays on the picked point: the next arrow moves on from it.
    await page.keyboard.press('ArrowRight')
    let second = await focusedName()
    if (second === first) {
      await page.keyboard.press('ArrowLeft')
      second = await focusedName()
    }
    expect(second).not.toBe(first)
    await announced(second)
    await page.keyboard.press('Shift+Enter')
    await chip.getByText('2 molecules selected in the plot').waitFor()
    expect(pickedNames()).toEqual([first, second].sort())
    await page.getByText('2 molecules selected; the others are faded.').waitFor()
    await dismissNotices()
    await page.screenshot({ path: app.screenshotPath('results-plot-keyboard.png') })

    // The table is narrowed to those two.
    const view = page.getByRole('radiogroup', { name: 'Show as' })
    await view.getByText('Table').click()
    await expect.poll(() => count().textContent()).toBe('2 molecules')
    await expect
      .poll(async () =>
        (await grid().locator('[role="row"][data-position] [role="rowheader"]').allTextContents())
          .map((name) => name.trim())
          .sort(),
      )
      .toEqual([first, second].sort())

    // Shift+Enter on a picked point takes it out; Escape clears the rest.
    await view.getByText('Plot').click()
    await surface().focus()
    await page.keyboard.press('ArrowRight')
    const third = await focusedName()
    await page.keyboard.press('Shift+Enter')
    const expected = [first, second].includes(third)
      ? [first, second].filter((name) => name !== third)
      : [first, second, third]
    await chip
      .getByText(
        `${expected.length} ${expected.length === 1 ? 'molecule' : 'molecules'} selected in the plot`,
      )
      .waitFor()
    expect(pickedNames()).toEqual(expected.sort())
    await page.keyboard.press('Escape')
    await chip.waitFor({ state: 'detached' })
    expect(new URL(page.url()).hash).not.toContain('picked=')
  })
})
