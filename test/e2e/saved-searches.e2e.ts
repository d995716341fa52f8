/**
 * Saved searches in the window, in Chromium, against the demo vault served by the simulator
 * behind a relay that can cut the network: the list reached from the molecules section's tabs
 * (criteria in words, what needs the vault named), a saved search run offline as the molecule list
 * (the vault's own answer, saved as a file like any list), one run on the vault and downloaded as
 * an SD file that RDKit reads back, and the current search of the list saved offline, waiting in
 * the outbox, then sent once the vault answers.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Download, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { VaultClient } from '../../src-main/api/client.ts'
import { LimiterRegistry } from '../../src-main/api/limiter-registry.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { networkSwitch, type NetworkSwitch } from '../outbox/support/network-switch.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { requirement } from '../support/environment.ts'
import { exportReadersHere, readCsv, readSdf } from '../support/export-readers.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'

const available =
  requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)') && exportReadersHere()

describe.runIf(available)('saved searches in Chromium', () => {
  let sim: VaultSim
  let network: NetworkSwitch
  let client: VaultClient
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>
  let downloadsDir: string
  let main: number

  const content = () => page.getByRole('main')
  const searchesList = () => page.getByRole('list', { name: 'Saved searches' })
  const card = (name: string) =>
    searchesList()
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { level: 2, name, exact: true }) })
  const count = () =>
    content()
      .getByRole('status')
      .filter({ hasText: /molecules?$/ })

  /** "120 of 2,000 molecules" → 120. */
  const shownCount = async () => {
    const found = /^([\d,]+)\+? of /.exec((await count().textContent()) ?? '')
    return found ? Number(found[1]!.replaceAll(',', '')) : null
  }

  /** The vault's own run of a saved search: every molecule, and those of a project. */
  async function vaultAnswer(name: string): Promise<{ all: number[]; inProjects: number[] }> {
    const searchId = (await client.searches.list(main)).find(
      (search) => search.name === name,
    )!.search_id!
    const all: number[] = []
    const inProjects: number[] = []
    for await (const molecule of (await client.searches.run(main, searchId)).records()) {
      all.push(molecule.id!)
      if ((molecule.projects ?? []).length > 0) inProjects.push(molecule.id!)
    }
    return { all, inProjects }
  }

  async function until(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  const sessionsNamed = (name: string) =>
    sim.core.db
      .prepare(
        `SELECT COUNT(*) AS count FROM saved_search_sessions WHERE vault_id = ? AND name = ?`,
      )
      .get(main, name) as { count: number }

  beforeAll(async () => {
    sim = await startDemoSnapshotSim({
      port: 0,
      exportTiming: { startDelayMs: 200, durationMs: 400 },
    })
    network = await networkSwitch(Number(new URL(sim.baseUrl).port))
    main = sim.cast.vaults.main.id
    const token = sim.cast.users.admin.tokens[0]!
    client = new VaultClient({
      baseUrl: sim.baseUrl,
      token,
      limiters: new LimiterRegistry(),
      exportPolling: { minIntervalMs: 2, maxIntervalMs: 10 },
    })
    app = await AppUnderTest.start({
      pull: { exportThreshold: Number.POSITIVE_INFINITY },
      probeBackoff: { baseDelayMs: 100, maxDelayMs: 1000 },
      outbox: { retry: { baseDelayMs: 100, maxDelayMs: 1000 }, pollMs: 50 },
      client: { exportPolling: { minIntervalMs: 100, maxIntervalMs: 200 } },
    })
    downloadsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-e2e-saved-'))
    const added = await app.services.connections.add({
      name: 'Lab',
      baseUrl: `http://127.0.0.1:${network.port}/api/v1`,
      token,
      sessionOnly: true,
    })
    const connectionId = added.connection.id
    const syncState = () =>
      app.services.sync.states().find((state) => state.connectionId === connectionId)
    await until(
      'the first sync has ended',
      () => syncState()?.running === false && (syncState()?.lastOutcome ?? null) !== null,
      200_000,
    )
    expect(syncState()).toMatchObject({ lastOutcome: 'completed', lastError: null })
    const session = await app.open()
    page = session.page
    problems = session.problems
    await count()
      .filter({ hasText: /^2,000 molecules$/ })
      .waitFor({ timeout: 60_000 })
  }, 300_000)

  afterEach(async () => {
    // No console error, failed request, CSP violation or accessibility violation, at every step.
    expect(await problems()).toEqual([])
  })

  afterAll(async () => {
    await app?.stop()
    await network?.close()
    await sim?.stop()
    if (downloadsDir) fs.rmSync(downloadsDir, { recursive: true, force: true })
  })

  it('lists the vault’s saved searches in words, from the molecules section’s tabs', async () => {
    await page
      .getByRole('navigation', { name: 'Molecules lists' })
      .getByRole('link', { name: 'Saved searches' })
      .click()
    await expect.poll(() => new URL(page.url()).hash).toBe('#/saved-searches')
    await card('Quinazoline cores').waitFor()
    const quinazolines = card('Quinazoline cores')
    await quinazolines.getByText('containing the substructure c1ncnc2ccccc12').waitFor()
    await quinazolines.getByText(/Project Kinase Inhibitors/).waitFor()
    // The demo's public data set holds molecules of no project: the offline list cannot add them.
    await quinazolines.getByText('Needs the vault', { exact: true }).waitFor()
    await quinazolines
      .getByText(/public data set/)
      .first()
      .waitFor()
    const priority = card('Priority 1 compounds')
    await priority.getByText("whose 'Priority' is 1", { exact: false }).waitFor()
    await page.screenshot({ path: app.screenshotPath('saved-searches-list.png') })
  })

  it('runs a saved search offline as the molecule list: the vault’s own answer, saved like any list', async () => {
    await card('Priority 1 compounds')
      .getByRole('link', { name: /^Run offline/ })
      .click()
    const refusal = content().getByRole('alert')
    await refusal.getByText(/cannot run offline as saved/).waitFor()
    await refusal.getByRole('button', { name: 'Run the rest offline' }).click()
    await content()
      .getByRole('status')
      .filter({ hasText: /Only part of this search was run offline/ })
      .waitFor()
    const { inProjects } = await vaultAnswer('Priority 1 compounds')
    expect(inProjects.length).toBeGreaterThan(0)
    await expect.poll(shownCount, { timeout: 30_000 }).toBe(inProjects.length)
    await page.getByRole('grid', { name: 'Molecules' }).waitFor()

    await content().getByRole('button', { name: 'Save as…' }).click()
    const dialog = page.getByRole('dialog', { name: /^Save .* as a file$/ })
    const downloaded = page.waitForEvent('download', { timeout: 60_000 })
    await dialog.getByRole('button', { name: 'Download' }).click()
    const file: Download = await downloaded
    expect(file.suggestedFilename()).toBe('Priority 1 compounds.csv')
    const target = path.join(downloadsDir, file.suggestedFilename())
    await file.saveAs(target)
    const [header, ...rows] = readCsv(target)
    expect(rows.map((row) => Number(row[header!.indexOf('ID')])).sort((a, b) => a - b)).toEqual(
      [...inProjects].sort((a, b) => a - b),
    )
    await page
      .getByRole('region', { name: 'Exports' })
      .getByRole('button', { name: /^Dismiss the notice/ })
      .click()
  })

  it('runs a saved search on the vault, following it, and downloads its SD file', async () => {
    await content().getByRole('link', { name: 'Saved searches' }).first().click()
    const quinazolines = card('Quinazoline cores')
    await quinazolines
      .getByRole('combobox', { name: 'Format of Quinazoline cores run on the vault' })
      .selectOption({ label: 'SD file' })
    const downloaded = page.waitForEvent('download', { timeout: 90_000 })
    await quinazolines.getByRole('button', { name: 'Run on the vault and download' }).click()
    const runs = page.getByRole('region', { name: 'Runs on the vault' })
    await runs.getByRole('progressbar', { name: /^Quinazoline cores on the vault/ }).waitFor()
    const file: Download = await downloaded
    expect(file.suggestedFilename()).toBe('Quinazoline cores.sdf')
    const target = path.join(downloadsDir, file.suggestedFilename())
    await file.saveAs(target)
    await runs
      .getByRole('status')
      .filter({ hasText: /Quinazoline cores: Saved/ })
      .waitFor()
    const { all } = await vaultAnswer('Quinazoline cores')
    const records = readSdf(target)
    expect(records.every((record) => record !== null && record.atoms > 0)).toBe(true)
    expect(records.map((record) => Number(record!.properties.id)).sort((a, b) => a - b)).toEqual(
      [...all].sort((a, b) => a - b),
    )
    await page.screenshot({ path: app.screenshotPath('saved-searches-run-on-vault.png') })
    await runs.getByRole('button', { name: 'Dismiss' }).click()
  })

  it('saves the list’s current search offline, and sends it once the vault answers', async () => {
    const name = 'Quin offline'
    await network.off()
    await page.evaluate(`location.hash = '#/molecules'`)
    await content().getByRole('searchbox', { name: 'Search molecules' }).fill('quin')
    await expect.poll(shownCount, { timeout: 30_000 }).not.toBeNull()
    await content().getByRole('button', { name: 'Save search…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Save this search in the vault' })
    await dialog.getByText(/whose name contains 'quin'/).waitFor()
    await dialog.getByText(/name contains “quin”/).waitFor()
    await dialog.getByRole('textbox', { name: 'Name' }).fill('quinazoline cores')
    await dialog
      .getByRole('combobox', { name: 'Project' })
      .selectOption({ label: 'Kinase Inhibitors' })
    await dialog.getByRole('button', { name: 'Save search' }).click()
    await dialog
      .getByRole('alert')
      .getByText(/already used by saved search/)
      .waitFor()
    await dialog.getByRole('textbox', { name: 'Name' }).fill(name)
    await dialog.getByRole('button', { name: 'Save search' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.getByText(`Saved search “${name}” queued`).waitFor()

    await page.evaluate(`location.hash = '#/saved-searches'`)
    const queued = card(name)
    await queued.getByText('The vault can run it once the outbox has sent it.').waitFor()
    await queued
      .getByText(/^Molecules whose name contains 'quin' in project 'Kinase Inhibitors'/)
      .waitFor()
    // Offline, a keyword is not asked the vault's way: the card says so.
    await queued.getByText('Needs the vault', { exact: true }).waitFor()
    expect(sessionsNamed(name).count).toBe(0)
    await page.screenshot({ path: app.screenshotPath('saved-searches-queued.png') })

    await network.on()
    await until('the vault has the saved search', () => sessionsNamed(name).count === 1, 90_000)
    await queued.getByRole('button', { name: /^Run on the vault/ }).waitFor({ timeout: 60_000 })
    expect(sessionsNamed(name).count).toBe(1)
  }, 180_000)
})
