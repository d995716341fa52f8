/**
 * "Save as" from the window in Chromium, over the demo vault: the browser preview saves an
 * export as a download, which the test reads back with readers that share no code with the app
 * (Python's csv module, RDKit's SD reader, through Debian's python3), cancels a long export, and
 * shows a refused export's reason.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Download, Locator, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { requirement } from '../support/environment.ts'
import { canonicalSmiles, exportReadersHere, readCsv, readSdf } from '../support/export-readers.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'

const available =
  requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)') && exportReadersHere()

describe.runIf(available)('saving a view as a file in Chromium', () => {
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>
  let downloadsDir: string
  let connectionId: string

  const molecules = () => page.getByRole('grid', { name: 'Molecules' })
  const count = () => page.getByRole('status').filter({ hasText: /molecules?$/ })
  const saveAs = () => page.getByRole('button', { name: 'Save as…' })
  const dialog = () => page.getByRole('dialog', { name: /^Save .* as a file$/ })
  const tray = () => page.getByRole('region', { name: 'Exports' })

  /** The texts of one column of the rows rendered in a grid, top first. */
  const column = (grid: Locator, index: number) =>
    grid.locator(`[aria-rowindex] > [role="gridcell"]:nth-child(${index})`).allTextContents()

  /** "120 of 2,000 molecules" → 120. */
  const shownCount = async () => {
    const found = /^([\d,]+) of /.exec((await count().textContent()) ?? '')
    return found ? Number(found[1]!.replaceAll(',', '')) : null
  }

  /** Files the preview still holds for downloads (none once each is taken or cancelled). */
  const leftInDataFolder = () => {
    const folder = path.join(app.dataDir, 'downloads')
    if (!fs.existsSync(folder)) return []
    return fs
      .readdirSync(folder, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name)
  }

  /** Saves through the dialog with `format`, and keeps the download where the test reads it. */
  async function download(format: RegExp, options: { bom?: boolean } = {}) {
    await saveAs().click()
    await dialog().getByRole('radio', { name: format }).check()
    if (options.bom)
      await dialog()
        .getByRole('checkbox', { name: /byte order mark/ })
        .check()
    const downloaded = page.waitForEvent('download', { timeout: 60_000 })
    await dialog().getByRole('button', { name: 'Download' }).click()
    await dialog().waitFor({ state: 'hidden' })
    const file: Download = await downloaded
    const target = path.join(downloadsDir, file.suggestedFilename())
    await file.saveAs(target)
    await tray().getByRole('status').filter({ hasText: 'Downloaded' }).first().waitFor()
    return { name: file.suggestedFilename(), target }
  }

  beforeAll(async () => {
    app = await AppUnderTest.start(
      { pull: { exportThreshold: Number.POSITIVE_INFINITY } },
      { seededDemoVault: true },
    )
    downloadsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-e2e-downloads-'))
    const session = await app.open()
    page = session.page
    problems = session.problems
    await page.getByRole('button', { name: 'Open the demo vault' }).click()
    await count()
      .filter({ hasText: /^2,000 molecules$/ })
      .waitFor({ timeout: 60_000 })
    connectionId = app.services.connections.list()[0]!.id
  }, 120_000)

  afterEach(async () => {
    // No console error, failed request, CSP violation or accessibility violation, at every step.
    expect(await problems()).toEqual([])
  })

  afterAll(async () => {
    await app?.stop()
    if (downloadsDir) fs.rmSync(downloadsDir, { recursive: true, force: true })
  })

  it('saves a filtered, sorted molecule list as CSV, with the rows and order shown', async () => {
    await page.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'GPCR Ligands' })
    await expect.poll(shownCount).toBeGreaterThan(0)
    const shown = (await shownCount())!
    expect(shown).toBeLessThan(2000)
    const weight = molecules().getByRole('columnheader', { name: 'MW', exact: true })
    await weight.getByRole('button').click()
    await weight.getByRole('button').click()
    expect(await weight.getAttribute('aria-sort')).toBe('descending')
    // The rows shown are read again each time: the list may still show the last order. The
    // weights are shown grouped ("1,020.50").
    await expect
      .poll(async () => {
        const shownWeights = (await column(molecules(), 3)).slice(0, 5)
        const weights = shownWeights.map((text) => Number(text.replaceAll(',', '')))
        return (
          weights.length > 1 &&
          weights.every((weight, at) => at === 0 || weights[at - 1]! >= weight)
        )
      })
      .toBe(true)
    const firstNames = (await column(molecules(), 1)).slice(0, 5)

    // The keyboard reaches the button, the dialog takes focus and gives it back when closed.
    await saveAs().focus()
    await page.keyboard.press('Enter')
    await dialog().waitFor()
    expect(await dialog().getByRole('radio', { name: /^CSV/ }).isChecked()).toBe(true)
    expect(
      await dialog()
        .getByRole('radio', { name: /^SD file/ })
        .count(),
    ).toBe(1)
    await page.screenshot({ path: app.screenshotPath('exports-dialog.png') })
    await page.keyboard.press('Escape')
    await dialog().waitFor({ state: 'hidden' })
    await expect
      .poll(() => page.evaluate('document.activeElement?.textContent?.trim()'))
      .toBe('Save as…')

    const { name, target } = await download(/^CSV/, { bom: true })
    expect(name).toBe('Molecules.csv')
    const rows = readCsv(target)
    // The byte order mark Excel needs, then the view's columns.
    expect(rows[0]![0]).toBe('\ufeffID')
    const header = rows[0]!.slice(1)
    expect(header).toEqual(expect.arrayContaining(['Name', 'MW', 'Projects']))
    const records = rows.slice(1)
    expect(records).toHaveLength(shown)
    const at = (label: string) => rows[0]!.indexOf(label)
    expect(records.slice(0, 5).map((row) => row[at('Name')])).toEqual(firstNames)
    const weights = records.map((row) => Number(row[at('MW')]))
    expect(weights).toEqual([...weights].sort((a, b) => b - a))
    expect(records.every((row) => row[at('Projects')]!.split(', ').includes('GPCR Ligands'))).toBe(
      true,
    )
    // Served once, then removed from the data folder.
    await expect.poll(leftInDataFolder).toEqual([])
    await page.screenshot({ path: app.screenshotPath('exports-downloaded.png') })
    await tray().getByRole('button', { name: 'Dismiss the notice about Molecules.csv' }).click()
  })

  it('saves the same list as an SD file that RDKit reads back, structures and names', async () => {
    const shown = (await shownCount())!
    const { name, target } = await download(/^SD file/)
    expect(name).toBe('Molecules.sdf')
    const records = readSdf(target)
    expect(records).toHaveLength(shown)
    expect(records.every((record) => record !== null)).toBe(true)

    // The vault's own structures and names of the same molecules, from the synced records.
    const ids = records.map((record) => Number(record!.properties.ID))
    const inVault = (vaultId: number) =>
      Array.from({ length: Math.ceil(ids.length / 1000) }, (_, page) =>
        app.services.browse.list(connectionId, vaultId, 'molecules', {
          ids: ids.slice(page * 1000, (page + 1) * 1000),
          sort: 'id',
          limit: 1000,
        }),
      ).flatMap((answer) => answer.rows)
    // The demo has several vaults: the one the window shows holds every molecule of the file.
    const vault = app.services.browse
      .vaults(connectionId)
      .map((cached) => inVault(cached.id))
      .find((rows) => rows.length === shown)
    expect(vault).toBeDefined()
    const byId = new Map(vault!.map((row) => [row.id, row]))
    expect(records.map((record) => record!.title)).toEqual(
      ids.map((id) => byId.get(id)!.columns.name),
    )
    const smiles = ids.map((id) => {
      const json = byId.get(id)!.json
      return String(json.smiles ?? json.cxsmiles)
    })
    expect(records.map((record) => record!.smiles)).toEqual(canonicalSmiles(smiles))
    await expect.poll(leftInDataFolder).toEqual([])
    await tray().getByRole('button', { name: 'Dismiss the notice about Molecules.sdf' }).click()
  })

  it('cancels a long export, which leaves no file and downloads nothing', async () => {
    await page.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'All projects' })
    await expect.poll(() => count().textContent()).toBe('2,000 molecules')
    // The export is held once its first page (100 records for SD files) is written, until the
    // test has pressed Cancel: a machine fast enough would otherwise finish it first. The real
    // conversion runs after.
    const chem = app.services.chem
    const molblocks = chem.molblocks.bind(chem)
    let calls = 0
    chem.molblocks = async (texts, signal) => {
      if (++calls > 1) {
        await new Promise<void>((resolve) => {
          if (signal?.aborted) resolve()
          signal?.addEventListener('abort', () => resolve(), { once: true })
        })
      }
      return molblocks(texts, signal)
    }
    let downloads = 0
    page.on('download', () => downloads++)
    try {
      await saveAs().click()
      await dialog()
        .getByRole('radio', { name: /^SD file/ })
        .check()
      await dialog().getByRole('button', { name: 'Download' }).click()
      await dialog().waitFor({ state: 'hidden' })
      const progress = tray().getByRole('progressbar', { name: 'Saving Molecules.sdf' })
      // RDKit converts the first page's structures in the workers first: slow on a busy machine.
      await expect
        .poll(() => progress.getAttribute('aria-valuetext'), { timeout: 60_000 })
        .toBe('100 of 2,000 molecules')
      await page.screenshot({ path: app.screenshotPath('exports-progress.png') })
      await tray().getByRole('button', { name: 'Cancel saving Molecules.sdf' }).click()
      await tray()
        .getByRole('status')
        .filter({ hasText: 'Cancelled saving Molecules.sdf' })
        .waitFor()
      await expect.poll(leftInDataFolder).toEqual([])
      expect(downloads).toBe(0)
    } finally {
      chem.molblocks = molblocks
    }
    await tray().getByRole('button', { name: 'Dismiss the notice about Molecules.sdf' }).click()
  })

  it('saves a results table as CSV, a row per molecule with its readout', async () => {
    // The vault the window shows, once the readout index has read every row of it.
    const [vault] = app.services.browse
      .vaults(connectionId)
      .filter((cached) => (cached.counts.molecules ?? 0) === 2000)
    const catalogue = () => app.services.results.catalogue(connectionId, vault!.id)
    await expect
      .poll(() => catalogue().backlog.rows + catalogue().backlog.groups, { timeout: 60_000 })
      .toBe(0)
    const protocol = catalogue().protocols.find((entry) =>
      entry.readouts.some((readout) => readout.valueType === 'number'),
    )!
    const readout = protocol.readouts.find((entry) => entry.valueType === 'number')!
    await page.evaluate(`location.hash = '#/results?columns=${protocol.id}:${readout.id}'`)
    const total = () =>
      page
        .getByRole('main')
        .getByRole('status')
        .filter({ hasText: /^[\d,]+ molecules?$/ })
    await total().waitFor()
    const rows = Number((await total().textContent())!.split(' ')[0]!.replaceAll(',', ''))
    expect(rows).toBeGreaterThan(0)

    const { name, target } = await download(/^CSV/)
    expect(name).toBe('Results by molecule.csv')
    const [header, ...records] = readCsv(target)
    expect(header).toEqual(expect.arrayContaining(['Name', `${protocol.name}: ${readout.name}`]))
    expect(records).toHaveLength(rows)
    const values = records.map((row) => row[header!.indexOf(`${protocol.name}: ${readout.name}`)])
    expect(values.some((value) => value !== '' && Number.isFinite(Number(value)))).toBe(true)
    await expect.poll(leftInDataFolder).toEqual([])
    await tray()
      .getByRole('button', { name: 'Dismiss the notice about Results by molecule.csv' })
      .click()
  })

  it('shows why an export was refused, in the dialog, and writes nothing', async () => {
    // A results table naming a protocol the vault does not have.
    await page.evaluate(`location.hash = '#/results?columns=99999:1'`)
    await saveAs().click()
    await dialog().getByRole('button', { name: 'Download' }).click()
    const refusal = dialog().getByRole('alert')
    await expect.poll(() => refusal.textContent()).toMatch(/has no protocol 99999/)
    await page.screenshot({ path: app.screenshotPath('exports-refused.png') })
    await dialog().getByRole('button', { name: 'Cancel' }).click()
    await dialog().waitFor({ state: 'hidden' })
    expect(leftInDataFolder()).toEqual([])
  })
})
