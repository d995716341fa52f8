import fs from 'node:fs'
import path from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { requirement } from '../support/environment.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

/** A readout of the demo vault that carries an outlier flag and a note, and where it leads. */
interface Target {
  rowId: number
  well: string
  note: string
  molecule: string
  batch: string
  protocol: string
}

/** Asks the simulator itself (not the app) which record the walk through the links follows. */
async function findTarget(sim: VaultSim, token: string): Promise<Target> {
  const vault = sim.vaults.find((candidate) => candidate.name === 'Vault Desk Demo')!.id
  const ask = async (path: string, body?: unknown) => {
    const response = await fetch(`${sim.baseUrl}/vaults/${vault}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'X-SVC-Token': token, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return (await response.json()) as Record<string, unknown>
  }
  type Row = {
    id: number
    molecule: number | null
    batch: number | null
    protocol: number
    well: string
    readouts: Record<string, { outlier?: boolean; note?: string }>
  }
  const rows = (await ask('/readout_rows/query', { page_size: 1000 })).objects as Row[]
  const row = rows.find(
    (candidate) =>
      candidate.molecule !== null &&
      Object.values(candidate.readouts).some((cell) => cell.outlier && cell.note),
  )!
  const molecule = await ask(`/molecules/${row.molecule}`)
  const batches = molecule.batches as { id: number; molecule_batch_identifier: string }[]
  const protocol = await ask(`/protocols/${row.protocol}`)
  return {
    rowId: row.id,
    well: row.well,
    note: Object.values(row.readouts).find((cell) => cell.note)!.note!,
    molecule: molecule.name as string,
    batch: batches.find((batch) => batch.id === row.batch)!.molecule_batch_identifier,
    protocol: protocol.name as string,
  }
}

describe.runIf(available)('browsing a vault in Chromium, online and then offline', () => {
  let sim: VaultSim
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>
  let token: string
  let target: Target

  const heading = () => page.getByRole('main').getByRole('heading', { level: 2 }).first()
  const syncStatus = () => page.getByRole('group', { name: 'Sync status' })
  const molecules = () => page.getByRole('grid', { name: 'Molecules' })
  const count = () => page.getByRole('status').filter({ hasText: /molecules?$/ })

  /** The texts of one column of the rows rendered in a grid, top first. */
  const column = (grid: Locator, index: number) =>
    grid.locator(`[aria-rowindex] > [role="gridcell"]:nth-child(${index})`).allTextContents()

  async function openSyncPanel(): Promise<Locator> {
    await syncStatus().getByRole('button').first().click()
    const panel = page.getByRole('dialog', { name: 'Sync' })
    await panel.waitFor()
    return panel
  }

  async function keepTokenForThisSessionIfAsked(dialog: Locator) {
    // Where no keychain runs (a CI container), the form offers to keep the token in memory.
    const choice = dialog.getByRole('button', { name: 'Use for this session only' })
    const closed = dialog.waitFor({ state: 'hidden' })
    const offered = choice.waitFor().then(() => 'offered' as const)
    if ((await Promise.race([closed.then(() => 'closed' as const), offered])) === 'offered') {
      await dialog.getByText('The system keychain cannot keep this token').waitFor()
      await page.screenshot({ path: app.screenshotPath('connect-keychain.png') })
      await choice.click()
      await closed
    }
  }

  beforeAll(async () => {
    sim = await startDemoSnapshotSim({
      port: 0,
      exportTiming: { startDelayMs: 0, durationMs: 0 },
    })
    token = sim.users.find((user) => user.role === 'admin')!.token
    target = await findTarget(sim, token)
    app = await AppUnderTest.start({ pull: { exportThreshold: Number.POSITIVE_INFINITY } })
    const session = await app.open()
    page = session.page
    problems = session.problems
  })

  afterEach(async () => {
    // No console error and nothing the CSP blocked, at every step.
    expect(await problems()).toEqual([])
  })

  afterAll(async () => {
    await app?.stop()
    await sim?.stop()
  })

  it('connects to a vault with a token typed into the form, and syncs it', async () => {
    await page.getByRole('button', { name: 'Connect to a vault' }).click()
    const dialog = page.getByRole('dialog', { name: 'Connect to a vault' })
    await dialog.getByLabel('Vault address').fill(sim.baseUrl)
    await dialog.getByLabel('API token').fill('not-a-token-of-this-vault')
    await dialog.getByLabel('Name (optional)').fill('Discovery')
    await dialog.getByRole('button', { name: 'Connect' }).click()
    // The vault refuses a wrong token, and the form says so beside the token.
    await dialog.getByText(/token/i).and(dialog.locator('.error')).waitFor()
    expect(await dialog.getByLabel('API token').getAttribute('aria-invalid')).toBe('true')

    await dialog.getByLabel('API token').fill(token)
    await dialog.getByRole('button', { name: 'Connect' }).click()
    await keepTokenForThisSessionIfAsked(dialog)
    await page.getByRole('status').filter({ hasText: 'Connected to Discovery' }).waitFor()

    await expect
      .poll(() => syncStatus().getByRole('button').first().textContent(), { timeout: 90_000 })
      .toMatch(/Synced just now/)
    await expect.poll(() => count().textContent()).toBe('2,000 molecules')
    await syncStatus().getByText('Online').waitFor()
    const vaults = page.getByRole('list', { name: 'Vaults of Discovery' })
    expect(
      await vaults.getByRole('button', { name: /Vault Desk Demo/ }).getAttribute('aria-current'),
    ).toBe('true')

    const panel = await openSyncPanel()
    await panel.getByText(/^Completed/).waitFor()
    const progress = panel.getByRole('list', { name: 'Progress of Discovery by kind' })
    const molecules = progress.getByRole('progressbar', { name: 'Molecules · Vault Desk Demo' })
    expect(await molecules.getAttribute('aria-valuenow')).toBe('100')
    await page.screenshot({ path: app.screenshotPath('sync-panel.png') })
    await page.keyboard.press('Escape')
    await panel.waitFor({ state: 'hidden' })
  })

  it('lists molecules, sorts them, filters them and searches as the person types', async () => {
    const grid = molecules()
    expect(await grid.getAttribute('aria-rowcount')).toBe('2001')
    // Virtual scrolling: only the rows in view are in the page.
    expect(await grid.getByRole('row').count()).toBeLessThan(60)

    const weight = grid.getByRole('columnheader', { name: 'MW', exact: true })
    const weightsShown = async () => (await column(grid, 3)).slice(0, 10).map(Number)
    await weight.getByRole('button').click()
    expect(await weight.getAttribute('aria-sort')).toBe('ascending')
    await expect.poll(weightsShown).toEqual([...(await weightsShown())].sort((a, b) => a - b))
    const lightest = (await weightsShown())[0]!
    await weight.getByRole('button').click()
    expect(await weight.getAttribute('aria-sort')).toBe('descending')
    await expect.poll(async () => (await weightsShown())[0]).toBeGreaterThan(lightest + 200)
    const heaviest = await weightsShown()
    expect(heaviest).toEqual([...heaviest].sort((a, b) => b - a))

    await grid.getByRole('row').nth(1).click()
    await page.getByRole('link', { name: 'Open molecule' }).waitFor()
    await page.screenshot({ path: app.screenshotPath('browse-molecules.png') })
    await weight.getByRole('button').click()
    expect(await weight.getAttribute('aria-sort')).toBe('none')

    // The project switcher narrows every list to one project.
    const project = page.getByRole('combobox', { name: 'Project' })
    await project.selectOption({ label: 'GPCR Ligands' })
    await expect.poll(() => count().textContent()).toMatch(/^[\d,]+ of 2,000 molecules$/)
    await expect
      .poll(async () =>
        (await column(grid, 6)).every((projects) => projects.split(', ').includes('GPCR Ligands')),
      )
      .toBe(true)
    await project.selectOption({ label: 'All projects' })
    await expect.poll(() => count().textContent()).toBe('2,000 molecules')

    await page.getByRole('combobox', { name: 'Type' }).selectOption({ label: 'Nucleotides' })
    await page.getByText('No molecules match these filters.').waitFor()
    expect(await count().textContent()).toBe('0 of 2,000 molecules')
    await page.getByRole('combobox', { name: 'Type' }).selectOption({ label: 'All types' })

    const search = page.getByRole('searchbox', { name: 'Search molecules' })
    const prefix = target.molecule.slice(0, -1)
    await search.pressSequentially(prefix)
    await expect.poll(() => count().textContent()).toMatch(/^\d+ of 2,000 molecules$/)
    await expect
      .poll(async () => {
        const names = await column(grid, 1)
        return names.length > 1 && names.every((name) => name.startsWith(prefix))
      })
      .toBe(true)
    await search.pressSequentially(target.molecule.slice(-1))
    await expect.poll(() => column(grid, 1)).toEqual([target.molecule])
    expect(await count().textContent()).toBe('1 of 2,000 molecules')
  })

  it('follows a molecule to its batch, its readouts, their run and the protocol', async () => {
    await molecules()
      .getByRole('row', { name: new RegExp(target.molecule) })
      .dblclick()
    await expect.poll(() => heading().textContent()).toBe(target.molecule)
    expect(await page.title()).toBe(`${target.molecule} · Vault Desk`)
    const batches = page.getByRole('table', { name: 'Batches' })
    await batches.getByRole('link', { name: target.batch }).waitFor()
    await page
      .getByRole('grid', { name: `Readouts of ${target.protocol}` })
      .getByRole('row', { name: new RegExp(target.batch) })
      .first()
      .waitFor()
    await page.screenshot({ path: app.screenshotPath('molecule-detail.png') })

    await batches.getByRole('link', { name: target.batch }).click()
    await expect.poll(() => heading().textContent()).toBe(target.batch)
    await page.getByRole('link', { name: target.molecule }).waitFor()
    const readouts = page.getByRole('grid', { name: `Readouts of ${target.protocol}` })
    const flagged = readouts.getByRole('row').filter({ hasText: target.well })
    // The outlier and the note are shown, and said in words to screen readers.
    await flagged.getByText(`outlier, note: ${target.note}`).waitFor()
    const struck = await flagged
      .locator('.outlier .value')
      .evaluate(
        (value) =>
          value.ownerDocument.defaultView.getComputedStyle(value).textDecorationLine as string,
      )
    expect(struck).toBe('line-through')
    await flagged.scrollIntoViewIfNeeded()
    await page.screenshot({ path: app.screenshotPath('readouts.png') })

    await flagged.dblclick()
    await expect
      .poll(() => heading().textContent())
      .toBe(`Readout row ${target.rowId} · well ${target.well}`)
    const values = page.getByRole('table', { name: 'Values' })
    await values.getByRole('row').filter({ hasText: target.note }).waitFor()

    await page.getByRole('link', { name: /^Run of / }).click()
    await expect.poll(() => heading().textContent()).toMatch(/^Run of /)
    await page.getByRole('link', { name: target.protocol }).first().click()
    await expect.poll(() => heading().textContent()).toBe(target.protocol)
    await page.getByRole('table', { name: 'Readout definitions' }).waitFor()
    expect(
      await page.getByRole('table', { name: 'Runs' }).getByRole('link').count(),
    ).toBeGreaterThan(0)
  })

  it('asks for a new token when the vault refuses the one it has', async () => {
    const renewed = `${token}-renewed`
    sim.core.db.prepare('UPDATE api_tokens SET token = ? WHERE token = ?').run(renewed, token)
    const panel = await openSyncPanel()
    await panel.getByRole('button', { name: 'Sync now' }).click()
    const banner = page.getByRole('alert').filter({ hasText: 'the vault refused its token' })
    await banner.waitFor({ timeout: 60_000 })
    await page.keyboard.press('Escape')
    await page.screenshot({ path: app.screenshotPath('token-refused.png') })

    await banner.getByRole('button', { name: 'Enter a new token…' }).click()
    const dialog = page.getByRole('dialog', { name: 'New token for Discovery' })
    await dialog.getByLabel('API token').fill(renewed)
    await dialog.getByRole('button', { name: 'Save token' }).click()
    await keepTokenForThisSessionIfAsked(dialog)
    await page.getByRole('status').filter({ hasText: 'Discovery has a new token' }).waitFor()
    await banner.waitFor({ state: 'detached' })
    const panelAgain = await openSyncPanel()
    await panelAgain.getByText(/^Completed/).waitFor({ timeout: 60_000 })
    await page.keyboard.press('Escape')
  })

  it('keeps browsing and searching with the vault gone, and says it is offline', async () => {
    await sim.stop()
    const panel = await openSyncPanel()
    await panel.getByRole('button', { name: 'Sync now' }).click()
    await syncStatus().getByText('Offline').waitFor({ timeout: 90_000 })
    await page.keyboard.press('Escape')

    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Molecules' })
      .click()
    const search = page.getByRole('searchbox', { name: 'Search molecules' })
    // The list kept its search while the person was away; a new one starts from a clear field.
    expect(await search.inputValue()).toBe(target.molecule)
    await page.getByRole('button', { name: 'Clear the search' }).click()
    await expect.poll(() => count().textContent()).toBe('2,000 molecules')
    await search.pressSequentially('VD-00012')
    await expect
      .poll(async () => {
        const names = await column(molecules(), 1)
        return names.length > 0 && names.every((name) => name.startsWith('VD-00012'))
      })
      .toBe(true)
    await molecules()
      .getByRole('row', { name: /VD-000123/ })
      .dblclick()
    await expect.poll(() => heading().textContent()).toBe('VD-000123')
    await page.getByRole('table', { name: 'Batches' }).getByRole('link').first().waitFor()
    await syncStatus().getByText('Offline').waitFor()
    await page.screenshot({ path: app.screenshotPath('offline.png') })

    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Plates' })
      .click()
    await page
      .getByRole('grid', { name: 'Plates' })
      .getByRole('row', { name: /KIN-P001/ })
      .dblclick()
    const wells = page.getByRole('grid', { name: 'Wells of KIN-P001' })
    await wells.getByRole('gridcell', { name: 'A01, Negative control' }).waitFor()
    await wells.getByRole('gridcell', { name: 'A02, Positive control' }).waitFor()
    await wells.getByRole('gridcell', { name: /^A03, VD-/ }).click()
    await page.getByRole('heading', { name: 'Well A03' }).waitFor()
    await page.screenshot({ path: app.screenshotPath('plate-map.png') })

    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Inventory' })
      .click()
    const tree = page.getByRole('tree', { name: 'Inventory locations' })
    await tree.getByRole('treeitem', { name: /Freezer A/ }).focus()
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await expect.poll(() => new URL(page.url()).hash).toMatch(/^#\/locations\/\d+$/)
    await page.getByText('Freezer A (-20 °C) › Rack 1 › Box 1').waitFor()
    await expect
      .poll(() =>
        page
          .getByRole('status')
          .filter({ hasText: /samples?$/ })
          .textContent(),
      )
      .toMatch(/^[1-9]\d* of \d+ samples$/)
    await page.screenshot({ path: app.screenshotPath('inventory.png') })
  })

  it('removes the connection and, as the person confirmed, its local copy', async () => {
    const caches = path.join(app.dataDir, 'caches')
    const cacheFiles = () => fs.readdirSync(caches).filter((name) => name.endsWith('.db'))
    expect(cacheFiles()).toHaveLength(1)

    await page.getByRole('button', { name: 'Manage Discovery' }).click()
    const manage = page.getByRole('dialog', { name: 'Discovery' })
    await manage
      .getByText('In memory, for this session only')
      .or(manage.getByText('In the system keychain'))
      .waitFor()
    await manage.getByRole('button', { name: 'Remove…' }).click()
    const confirm = page.getByRole('dialog', { name: 'Remove Discovery?' })
    const deleteCopy = confirm.getByRole('checkbox', { name: /Also delete its local copy/ })
    expect(await deleteCopy.isChecked()).toBe(true)
    await confirm.getByText(/^[\d,]+ records on this computer/).waitFor()
    await page.screenshot({ path: app.screenshotPath('remove-connection.png') })
    await confirm.getByRole('button', { name: 'Remove and delete data' }).click()

    await page.getByRole('status').filter({ hasText: 'Discovery was removed' }).waitFor()
    await page.getByRole('heading', { name: 'Bring your vault to your desk' }).waitFor()
    await page.getByText('No vaults connected').waitFor()
    expect(cacheFiles()).toEqual([])
  })
})
