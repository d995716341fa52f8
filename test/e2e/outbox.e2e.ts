import type { Locator, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { VaultSim } from '../../src-sim/index.ts'
import { networkSwitch, type NetworkSwitch } from '../outbox/support/network-switch.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { requirement } from '../support/environment.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

interface SimRow {
  id: number
  type: string
  molecule: number | null
  batch: number | null
  protocol: number
  well: string | null
  run: { id: number; run_date: string }
  readouts: Record<string, { value?: number | string; outlier?: boolean }>
}

/** What the tests work on, read from the simulator itself (not from the app). */
interface Targets {
  vaultId: number
  molecule: { id: number; name: string }
  protocol: string
  /** A row of the molecule's readout table, unique there by batch and well. */
  row: SimRow
  batch: string
  /** Another row, for the conflict. */
  other: SimRow
  definition: { id: string; label: string }
}

const percent = '2'

/** Hits from a vendor, in the columns of the demo vault's "Vendor delivery (CSV)" template. */
const hitsCsv = (appearance: string) =>
  'SMILES,Compound,Catalog ID,Received,Appearance\r\n' +
  `CCOCC(=O)c1ccccc1,Offline hit 1,CAT-991,2026-07-20,${appearance}\r\n`

/** Waits until `check` holds (hooks cannot use expect.poll). */
async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

async function findTargets(sim: VaultSim, token: string): Promise<Targets> {
  const vaultId = sim.cast.vaults.main.id
  const ask = async (path: string, body?: unknown) => {
    const response = await fetch(`${sim.baseUrl}/vaults/${vaultId}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'X-SVC-Token': token, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return (await response.json()) as Record<string, unknown>
  }
  const rows = (await ask('/readout_rows/query', { page_size: 1000 })).objects as SimRow[]
  const byMolecule = new Map<number, SimRow[]>()
  for (const row of rows) {
    if (row.molecule === null) continue
    byMolecule.set(row.molecule, [...(byMolecule.get(row.molecule) ?? []), row])
  }
  const usable = (row: SimRow) =>
    row.type === 'detail row' &&
    row.protocol === 1 &&
    typeof row.readouts[percent]?.value === 'number' &&
    !row.readouts[percent]?.outlier
  // Few rows (all in view without scrolling), and one unique by its batch and well.
  const [moleculeId, moleculeRows] = [...byMolecule].find(
    ([, candidates]) =>
      candidates.length <= 8 &&
      candidates.some(
        (row) =>
          usable(row) &&
          candidates.filter((other) => other.batch === row.batch && other.well === row.well)
            .length === 1,
      ),
  )!
  const row = moleculeRows.find(
    (candidate) =>
      usable(candidate) &&
      moleculeRows.filter(
        (other) => other.batch === candidate.batch && other.well === candidate.well,
      ).length === 1,
  )!
  const other = rows.find((candidate) => usable(candidate) && candidate.molecule !== moleculeId)!
  const molecule = await ask(`/molecules/${moleculeId}`)
  const batches = molecule.batches as { id: number; molecule_batch_identifier: string }[]
  const protocol = await ask('/protocols/1')
  const definition = (
    protocol.readout_definitions as { id: number; name: string; unit_label: string }[]
  ).find((candidate) => String(candidate.id) === percent)!
  return {
    vaultId,
    molecule: { id: moleculeId, name: molecule.name as string },
    protocol: protocol.name as string,
    row,
    batch: batches.find((batch) => batch.id === row.batch)!.molecule_batch_identifier,
    other,
    definition: { id: percent, label: `${definition.name} (${definition.unit_label})` },
  }
}

describe.runIf(available)('the outbox in Chromium: work done offline reaches the vault', () => {
  let sim: VaultSim
  let network: NetworkSwitch
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>
  let token: string
  let targets: Targets
  let connectionId: string
  /** The item creating the notebook entry written offline, and the entry's server id. */
  let draftItem: number
  let entryId: number

  const entryTitle = 'Offline synthesis notes'
  const entryText = 'Weighed 12.3 mg of the crude product; TLC shows one spot.'
  const heading = () => page.getByRole('main').getByRole('heading', { level: 2 }).first()
  const outboxLink = () => page.getByRole('link', { name: /^Outbox: \d+ waiting to be sent$/ })
  const section = (name: string) =>
    page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name })
  const card = (summary: string | RegExp) =>
    page.getByRole('article').filter({ has: page.getByRole('heading', { name: summary }) })
  /** One item's card, by its id (summaries repeat: two additions to one entry). */
  const itemCard = (id: number) => page.locator(`article[data-item-id="${id}"]`)
  const simCount = (sql: string, ...args: unknown[]) =>
    (sim.core.db.prepare(sql).get(...args) as { count: number }).count

  /** Notices fade on their own; screenshots should show the page, not them. */
  async function dismissNotices() {
    const dismiss = page.getByRole('button', { name: /^Dismiss: / })
    while ((await dismiss.count()) > 0) await dismiss.first().click()
  }

  async function go(hash: string) {
    await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`)
  }

  /**
   * Drags files onto `target` and drops them there, as the operating system would: the files
   * are made in the page (a DataTransfer carrying File objects).
   */
  async function dropFiles(
    target: Locator,
    files: { name: string; contents: string; type: string }[],
    on: Locator = target,
  ) {
    const dataTransfer = await page.evaluateHandle(`(() => {
      const transfer = new DataTransfer()
      for (const file of ${JSON.stringify(files)}) {
        transfer.items.add(new File([file.contents], file.name, { type: file.type }))
      }
      return transfer
    })()`)
    await target.dispatchEvent('dragenter', { dataTransfer })
    await target.dispatchEvent('dragover', { dataTransfer })
    await on.dispatchEvent('drop', { dataTransfer })
  }

  async function serverRow(id: number): Promise<SimRow> {
    const response = await fetch(`${sim.baseUrl}/vaults/${targets.vaultId}/readout_rows/${id}`, {
      headers: { 'X-SVC-Token': token },
    })
    return (await response.json()) as SimRow
  }

  beforeAll(async () => {
    sim = await startDemoSnapshotSim({
      port: 0,
      exportTiming: { startDelayMs: 0, durationMs: 0 },
    })
    network = await networkSwitch(Number(new URL(sim.baseUrl).port))
    token = sim.cast.users.admin.tokens[0]!
    targets = await findTargets(sim, token)
    app = await AppUnderTest.start({
      pull: { exportThreshold: Number.POSITIVE_INFINITY },
      probeBackoff: { baseDelayMs: 100, maxDelayMs: 1000 },
      outbox: {
        retry: { baseDelayMs: 100, maxDelayMs: 1000 },
        pollMs: 50,
        importPollMs: 100,
        progressIntervalMs: 50,
      },
    })
    // The vault is reached through a relay that the tests switch off, as a network would go.
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
    const session = await app.open(`#/molecules/${targets.molecule.id}`)
    page = session.page
    problems = session.problems
    await page.getByRole('heading', { level: 2, name: targets.molecule.name }).waitFor()
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

  it('works with the vault unreachable: a file, a correction, a notebook entry, an import', async () => {
    await network.off()

    // A file dropped onto the molecule's page is attached to the molecule.
    const zone = page.getByRole('group', { name: 'Attach files to this molecule' })
    await dropFiles(zone, [
      { name: 'nmr-offline.csv', contents: 'ppm,i\n7.26,100\n', type: 'text/csv' },
    ])
    await page.getByRole('status').filter({ hasText: 'Queued: nmr-offline.csv' }).waitFor()
    const files = page.getByRole('table', { name: 'Files' })
    await files
      .getByRole('row', { name: /nmr-offline\.csv/ })
      .getByText(/Pending|Sending/)
      .waitFor()
    await page.getByRole('group', { name: 'Sync status' }).getByText('Offline').waitFor({
      timeout: 30_000,
    })

    // A readout corrected in the molecule's readout table.
    const grid = page.getByRole('grid', { name: `Readouts of ${targets.protocol}` })
    const row = grid
      .getByRole('row')
      .filter({ hasText: targets.batch })
      .filter({ hasText: new RegExp(`\\b${targets.row.well}\\b`) })
    await row.click()
    await page
      .getByRole('button', { name: new RegExp(`^Correct well ${targets.row.well}, run of`) })
      .click()
    const correction = page.getByRole('dialog', {
      name: new RegExp(`^Correct well ${targets.row.well}`),
    })
    await correction.getByLabel(targets.definition.label, { exact: true }).fill('12.5')
    await correction.getByRole('button', { name: 'Queue the correction' }).click()
    await correction.waitFor({ state: 'hidden' })
    await expect.poll(() => row.textContent()).toContain('12.5')
    await row.getByText(/Pending|Sending/).waitFor()
    await dismissNotices()
    await grid.scrollIntoViewIfNeeded()
    await page.screenshot({ path: app.screenshotPath('pending-changes.png') })

    // A notebook entry written offline, with text, a link and a file.
    await section('Notebook').click()
    await page.getByRole('button', { name: 'New entry…' }).click()
    const create = page.getByRole('dialog', { name: 'New notebook entry' })
    await create.getByLabel('Title').fill(entryTitle)
    await create.getByLabel('Project').selectOption({ label: 'Kinase Inhibitors' })
    await create.getByRole('button', { name: 'Add a field' }).click()
    await create.getByLabel('Name of field 1').fill('Yield')
    await create.getByLabel('Value of field 1').fill('82%')
    await create.getByRole('button', { name: 'Create entry' }).click()
    await expect.poll(() => new URL(page.url()).hash).toMatch(/^#\/entries\/new\/\d+$/)
    draftItem = Number(new URL(page.url()).hash.split('/').at(-1))
    await expect.poll(() => heading().textContent()).toBe(entryTitle)
    await page.getByText('written offline, not on the vault yet').waitFor()

    await page.getByLabel('Add text').fill(entryText)
    await page.getByLabel('Add a link').fill('https://example.org/procedures/42')
    await page.getByLabel('Link text (optional)').fill('Procedure 42')
    await page.getByRole('button', { name: 'Add to the entry' }).click()
    const body = page.getByRole('list', { name: 'Body of the entry' })
    await body.getByRole('listitem').filter({ hasText: entryText }).getByText('Pending').waitFor()
    await body.getByRole('link', { name: 'Procedure 42' }).waitFor()
    await dropFiles(page.getByRole('group', { name: 'Add files to this entry' }), [
      { name: 'tlc-plate.txt', contents: 'Rf 0.42 (EtOAc/hexane 1:3)', type: 'text/plain' },
    ])
    await page
      .getByRole('table', { name: 'Files' })
      .getByRole('row', { name: /tlc-plate\.txt/ })
      .waitFor()
    await body.getByText('tlc-plate.txt').waitFor()
    await dismissNotices()
    // The drop was handled by the entry's zone: the window does not ask where it goes.
    expect(await page.getByText('Drop to choose where it goes').count()).toBe(0)
    await page.screenshot({ path: app.screenshotPath('eln-editor.png') })

    await section('Notebook').click()
    const entries = page.getByRole('grid', { name: 'Notebook entries' })
    await entries
      .getByRole('row', { name: new RegExp(entryTitle) })
      .getByText('Pending')
      .waitFor()

    // A data file dropped anywhere: the window asks where it goes, and it is imported.
    await go(`#/molecules/${targets.molecule.id}`)
    await expect.poll(() => heading().textContent()).toBe(targets.molecule.name)
    await dismissNotices()
    await dropFiles(
      page.getByRole('main'),
      [
        {
          name: 'hits.csv',
          contents: hitsCsv('white solid'),
          type: 'text/csv',
        },
      ],
      page.getByRole('main').getByRole('heading', { level: 2 }).first(),
    )
    const where = page.getByRole('dialog', { name: 'Where should “hits.csv” go?' })
    await where
      .getByRole('radio', { name: new RegExp(`Attach to molecule “${targets.molecule.name}”`) })
      .waitFor()
    await where.getByRole('radio', { name: /Attach to another record/ }).waitFor()
    await page.screenshot({ path: app.screenshotPath('drop-target.png') })
    await where.getByRole('radio', { name: /Import as data/ }).check()
    await where.getByRole('button', { name: 'Continue' }).click()
    const importing = page.getByRole('dialog', { name: 'Import hits.csv' })
    await importing.getByLabel('Project').selectOption({ label: 'Kinase Inhibitors' })
    await importing.getByLabel('Mapping template').selectOption({ label: 'Vendor delivery (CSV)' })
    await importing.getByLabel('Run date').fill('2026-07-24')
    await importing.getByLabel('Person').fill('Ada Lovelace')
    await importing
      .getByLabel('Ambiguous records')
      .selectOption({ label: 'Register a new molecule' })
    await page.screenshot({ path: app.screenshotPath('import-dialog.png') })
    await importing.getByRole('button', { name: 'Queue the import' }).click()
    const following = page.getByRole('dialog', { name: 'Importing hits.csv' })
    await following.getByRole('status').filter({ hasText: 'Waiting to be sent' }).waitFor()
    await following.getByRole('button', { name: 'Done' }).click()

    // The Outbox holds all of it, safe on disk, with why each waits.
    await outboxLink().click()
    await expect.poll(() => new URL(page.url()).hash).toBe('#/outbox')
    const waiting = page.getByRole('region', { name: /^Waiting to be sent/ })
    for (const summary of [
      `Attach nmr-offline.csv to molecule ${targets.molecule.id}`,
      `Correct readout row ${targets.row.id}`,
      `Create the ELN entry "${entryTitle}"`,
      `Attach tlc-plate.txt to the eln entry of item ${draftItem}`,
      'Import hits.csv into project 1',
    ]) {
      await waiting.getByRole('heading', { name: summary }).waitFor()
    }
    expect(await waiting.getByRole('article').count()).toBe(7)
    await outboxLink()
      .and(page.getByRole('link', { name: 'Outbox: 7 waiting to be sent' }))
      .waitFor()
    await page.getByRole('link', { name: 'Outbox, 7 waiting' }).waitFor()
    await card(`Attach nmr-offline.csv to molecule ${targets.molecule.id}`)
      .getByText('The last attempt failed; it is tried again:')
      .waitFor({ timeout: 30_000 })
    await page
      .getByRole('status')
      .filter({ hasText: '7 waiting to be sent · the vault is not answering' })
      .waitFor()
    await dismissNotices()
    await page.screenshot({ path: app.screenshotPath('outbox.png') })
    expect(simCount('SELECT COUNT(*) AS count FROM eln_entries WHERE title = ?', entryTitle)).toBe(
      0,
    )
  })

  it('sends everything once the vault answers again, each exactly once', async () => {
    await network.on()
    await page.getByText('Nothing is waiting. Everything you did has reached the vault.').waitFor({
      timeout: 90_000,
    })
    const recent = page.getByRole('region', { name: /^Recently sent/ })
    await recent
      .getByRole('article')
      .filter({ has: page.getByRole('heading', { name: `Create the ELN entry "${entryTitle}"` }) })
      .getByText('Sent', { exact: true })
      .waitFor()
    await outboxLink()
      .and(page.getByRole('link', { name: 'Outbox: 0 waiting to be sent' }))
      .waitFor()

    expect(
      sim.core.db
        .prepare('SELECT resource_class, resource_id FROM uploaded_files WHERE name = ?')
        .all('nmr-offline.csv'),
    ).toEqual([{ resource_class: 'molecule', resource_id: targets.molecule.id }])
    const entries = sim.core.db
      .prepare('SELECT id, fields, body FROM eln_entries WHERE title = ?')
      .all(entryTitle) as { id: number; fields: string; body: string }[]
    expect(entries).toHaveLength(1)
    const entry = entries[0]!
    entryId = entry.id
    expect(JSON.parse(entry.fields)).toEqual({ Yield: '82%' })
    const blocks = JSON.parse(entry.body) as { type: string; text?: string; file?: number }[]
    expect(blocks.filter((block) => block.type === 'text').map((block) => block.text)).toEqual([
      entryText,
    ])
    expect(blocks.filter((block) => block.type === 'file')).toHaveLength(1)
    expect(
      sim.core.db
        .prepare('SELECT resource_class, resource_id FROM uploaded_files WHERE name = ?')
        .all('tlc-plate.txt'),
    ).toEqual([{ resource_class: 'eln_entry', resource_id: entry.id }])
    expect((await serverRow(targets.row.id)).readouts[percent]?.value).toBe(12.5)
    expect(simCount('SELECT COUNT(*) AS count FROM slurps WHERE file_name = ?', 'hits.csv')).toBe(1)

    // The import is followed through its states, with what the vault made of it.
    const imported = card('Import hits.csv into project 1')
    await imported.getByRole('list', { name: 'States of the import' }).waitFor()
    await imported
      .getByRole('status')
      .filter({ hasText: /^Imported/ })
      .waitFor({ timeout: 60_000 })

    await imported.getByText(/molecules created/i).waitFor()

    // A file chosen with the picker (no dragging), imported: the vault's errors are shown.
    await page.getByRole('button', { name: 'Add a file…' }).focus()
    await page.getByLabel('Add a file: attach it to a record or import it').setInputFiles({
      name: 'bad-hits.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(hitsCsv('white powder')),
    })
    const where = page.getByRole('dialog', { name: 'Where should “bad-hits.csv” go?' })
    await where.getByRole('radio', { name: /Import as data/ }).check()
    await page.keyboard.press('Enter')
    const importing = page.getByRole('dialog', { name: 'Import bad-hits.csv' })
    await importing.getByLabel('Project').selectOption({ label: 'Kinase Inhibitors' })
    await importing.getByLabel('Mapping template').selectOption({ label: 'Vendor delivery (CSV)' })
    await importing.getByRole('button', { name: 'Queue the import' }).click()
    const following = page.getByRole('dialog', { name: 'Importing bad-hits.csv' })
    await following
      .getByRole('status')
      .filter({ hasText: 'The import was invalid' })
      .waitFor({ timeout: 60_000 })
    await following
      .getByRole('table', { name: 'Errors of bad-hits.csv' })
      .getByText(/Appearance must be one of/)
      .waitFor()
    await following.getByRole('button', { name: 'Done' }).click()

    // The entry written offline now lives at its server id, marks gone.
    await go(`#/entries/new/${draftItem}`)
    await expect.poll(() => new URL(page.url()).hash).toBe(`#/entries/${entry.id}`)
    await expect.poll(() => heading().textContent()).toBe(entryTitle)
    await page.getByText(entryText).waitFor()
    expect(
      await page.getByText('This page shows changes that are not on the vault yet.').count(),
    ).toBe(0)

    // Status moves with what they need: a witness (not the author), a reason.
    const status = page.getByRole('group', { name: 'Status' })
    await status.getByRole('button', { name: 'Submit for witnessing…' }).click()
    const submit = page.getByRole('dialog', { name: `Submit for witnessing “${entryTitle}”` })
    const witness = submit.getByLabel('Witness')
    await witness.getByRole('option', { name: 'Rosalind Franklin' }).waitFor({ state: 'attached' })
    expect(await witness.getByRole('option', { name: 'Ada Lovelace' }).count()).toBe(0)
    await witness.selectOption({ label: 'Rosalind Franklin' })
    await submit.getByRole('button', { name: 'Submit for witnessing' }).click()
    await status.getByRole('button', { name: 'Reject…' }).waitFor()
    await expect
      .poll(() =>
        sim.core.db.prepare('SELECT status, witness_id FROM eln_entries WHERE id = ?').get(entryId),
      )
      .toEqual({ status: 'submitted', witness_id: 2 })
    await status.getByRole('button', { name: 'Reject…' }).click()
    const reject = page.getByRole('dialog', { name: `Reject “${entryTitle}”` })
    await reject.getByRole('button', { name: 'Reject' }).click()
    await reject.getByRole('alert').filter({ hasText: 'Say why' }).waitFor()
    await reject.getByLabel('Reason').fill('The yield is not given in the body.')
    await reject.getByRole('button', { name: 'Reject' }).click()
    await status.getByRole('button', { name: 'Submit for witnessing…' }).waitFor()
    await expect
      .poll(() =>
        sim.core.db
          .prepare('SELECT action, reason FROM eln_status_changes WHERE entry_id = ? ORDER BY id')
          .all(entryId),
      )
      .toEqual([
        { action: 'submit', reason: null },
        { action: 'reject', reason: 'The yield is not given in the body.' },
      ])

    await go(`#/molecules/${targets.molecule.id}`)
    const file = page
      .getByRole('table', { name: 'Files' })
      .getByRole('row', { name: /nmr-offline\.csv/ })
    await file.getByRole('link', { name: 'nmr-offline.csv' }).waitFor()
    expect(await file.getByText(/Pending|Sending/).count()).toBe(0)
  })

  it('shows what the vault refused in its own words, to fix or to discard', async () => {
    const queue = (title: string) =>
      app.services.outbox.queue({
        connectionId,
        vaultId: targets.vaultId,
        operation: 'eln.create',
        payload: { title, project: 'No such project' },
      })
    const [fixed] = await queue('Entry with a mistyped project')
    await go('#/outbox')
    const refused = card('Create the ELN entry "Entry with a mistyped project"')
    await refused.getByText('Needs attention', { exact: true }).waitFor({ timeout: 30_000 })
    await refused.getByText('The vault refused it:').waitFor()
    await refused.getByText('"No such project" is not a project of this vault').waitFor()
    expect(app.services.outbox.item(fixed!.id).lastError).toMatch(/422|not a project/)

    await refused.getByRole('button', { name: 'Edit…' }).click()
    const edit = page.getByRole('dialog', { name: 'Edit: new notebook entry' })
    await edit.getByText('"No such project" is not a project of this vault').waitFor()
    await edit.getByLabel('Project').selectOption({ label: 'GPCR Ligands' })
    await edit.getByRole('button', { name: 'Save and send again' }).click()
    await refused.getByText('Sent', { exact: true }).waitFor({ timeout: 30_000 })
    expect(
      sim.core.db
        .prepare('SELECT project_id FROM eln_entries WHERE title = ?')
        .all('Entry with a mistyped project'),
    ).toEqual([{ project_id: 2 }])

    // A refused entry is discarded with the addition that needs it.
    const [doomed] = await queue('Entry to give up on')
    await app.services.outbox.queue({
      connectionId,
      vaultId: targets.vaultId,
      operation: 'eln.append',
      entry: { item: doomed!.id },
      body: [{ type: 'text', text: 'Never sent' }],
    })
    const given = card('Create the ELN entry "Entry to give up on"')
    await given.getByText('Needs attention', { exact: true }).waitFor({ timeout: 30_000 })
    await given.getByRole('button', { name: 'Discard…' }).click()
    const discard = page.getByRole('dialog', { name: 'Discard this change?' })
    await discard
      .getByRole('list', { name: 'Discarded with it' })
      .getByText(`Append to the ELN entry of item ${doomed!.id}`)
      .waitFor()
    await discard.getByRole('button', { name: 'Discard 2 changes' }).click()
    await page.getByRole('status').filter({ hasText: 'Discarded 2 changes' }).waitFor()
    await page.getByText('Nothing is waiting. Everything you did has reached the vault.').waitFor()
    expect(
      simCount('SELECT COUNT(*) AS count FROM eln_entries WHERE title = ?', 'Entry to give up on'),
    ).toBe(0)
  })

  it('shows a conflict side by side and sends the version the person keeps', async () => {
    const { other } = targets
    await network.off()
    await go(`#/readout-rows/${other.id}`)
    await page.getByRole('button', { name: 'Correct values…' }).click()
    const correction = page.getByRole('dialog', { name: /^Correct well/ })
    await correction.getByLabel(targets.definition.label, { exact: true }).fill('33.3')
    await correction.getByRole('button', { name: 'Queue the correction' }).click()
    await page.getByText('This page shows changes that are not on the vault yet.').waitFor()

    // Meanwhile a colleague changes the same value on the vault.
    sim.clock.advance(2000)
    const colleague = await fetch(
      `${sim.baseUrl}/vaults/${targets.vaultId}/readout_rows/${other.id}`,
      {
        method: 'PUT',
        headers: { 'X-SVC-Token': token, 'Content-Type': 'application/json' },
        body: JSON.stringify({ readouts: { [percent]: { value: 44.4 } } }),
      },
    )
    expect(colleague.status).toBe(200)
    await network.on()

    await go('#/outbox')
    const conflict = card(`Correct readout row ${other.id}`)
    await conflict.getByText('Conflict', { exact: true }).waitFor({ timeout: 60_000 })
    const compare = conflict.getByRole('table', { name: "Your change and the vault's copy" })
    const member = compare.getByRole('row', {
      name: new RegExp(`^${targets.definition.label.replace(/[()%]/g, '\\$&')}`),
    })
    await member.getByRole('cell', { name: '33.3' }).waitFor()
    await member.getByRole('cell', { name: '44.4' }).waitFor()
    await dismissNotices()
    await page.screenshot({ path: app.screenshotPath('outbox-conflict.png') })

    await conflict.getByRole('button', { name: 'Keep mine' }).click()
    await conflict.getByText('Sent', { exact: true }).waitFor({ timeout: 30_000 })
    expect((await serverRow(other.id)).readouts[percent]?.value).toBe(33.3)
  })

  it('leaves a change that may or may not have arrived to the person', async () => {
    const text = 'Filtered and dried over MgSO4.'
    // The connection breaks after the vault has taken the addition, before it could answer.
    sim.faults.set({ dropRate: 1, match: /^PUT \/vaults\/\d+\/eln\/entries\/\d+$/ })
    let doubtful: Locator
    try {
      const [append] = await app.services.outbox.queue({
        connectionId,
        vaultId: targets.vaultId,
        operation: 'eln.append',
        entry: { id: entryId },
        body: [{ type: 'text', text }],
      })
      await go('#/outbox')
      doubtful = itemCard(append!.id)
      await doubtful.getByText('Uncertain', { exact: true }).waitFor({ timeout: 60_000 })
      await doubtful.getByText(/the API cannot show an entry body/).waitFor()
    } finally {
      sim.faults.clear()
    }
    const body = () =>
      (
        sim.core.db.prepare('SELECT body FROM eln_entries WHERE id = ?').get(entryId) as {
          body: string
        }
      ).body
    // The person looks in the vault, sees it there, and says so: nothing is sent twice.
    expect(body().split(text)).toHaveLength(2)
    await doubtful.getByRole('button', { name: 'It arrived: mark as done' }).click()
    await doubtful.getByText('Sent', { exact: true }).waitFor()
    expect(body().split(text)).toHaveLength(2)
  })

  it('pauses the queue while the vault refuses the token, and goes on with a new one', async () => {
    const renewed = `${token}-renewed`
    sim.core.db.prepare('UPDATE api_tokens SET token = ? WHERE token = ?').run(renewed, token)
    const text = 'Recrystallised from ethanol.'
    const [append] = await app.services.outbox.queue({
      connectionId,
      vaultId: targets.vaultId,
      operation: 'eln.append',
      entry: { id: entryId },
      body: [{ type: 'text', text }],
    })
    await go('#/outbox')
    await page
      .getByRole('alert')
      .filter({ hasText: 'Sending to Lab is paused: the vault refused its token.' })
      .waitFor({ timeout: 60_000 })
    const waiting = itemCard(append!.id)
    await waiting.getByText('Queued', { exact: true }).waitFor()

    const banner = page
      .getByRole('alert')
      .filter({ hasText: 'the vault refused its token' })
      .first()
    await banner.getByRole('button', { name: 'Enter a new token…' }).click()
    const dialog = page.getByRole('dialog', { name: 'New token for Lab' })
    await dialog.getByLabel('API token').fill(renewed)
    await dialog.getByRole('button', { name: 'Save token' }).click()
    // Where no keychain runs (a CI container), the form offers to keep the token in memory.
    const choice = dialog.getByRole('button', { name: 'Use for this session only' })
    const closed = dialog.waitFor({ state: 'hidden' })
    const offered = choice.waitFor().then(() => 'offered' as const)
    if ((await Promise.race([closed.then(() => 'closed' as const), offered])) === 'offered') {
      await choice.click()
      await closed
    }
    token = renewed
    await waiting.getByText('Sent', { exact: true }).waitFor({ timeout: 60_000 })
    expect(
      (
        sim.core.db.prepare('SELECT body FROM eln_entries WHERE id = ?').get(entryId) as {
          body: string
        }
      ).body.split(text),
    ).toHaveLength(2)
  })
})
