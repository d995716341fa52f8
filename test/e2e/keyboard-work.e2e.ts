/**
 * Keyboard-only flows for work that waits in the outbox (issue 31), in Chromium over the simulator
 * reached through a relay the tests switch off: connect to the vault from the welcome screen,
 * queue a file through the drop zone's chooser, edit
 * a notebook entry offline, and resolve the conflict of a readout corrected offline that a
 * colleague changed on the vault meanwhile (a notebook edit's conflict goes through the same
 * flow: test/outbox/eln.test.ts). The mouse is never used; at every step the
 * focus is on something and drawn, and a dialog gives the focus back to what opened it.
 */
import type { FileChooser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { VaultSim } from '../../src-sim/index.ts'
import { networkSwitch, type NetworkSwitch } from '../outbox/support/network-switch.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { requirement } from '../support/environment.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'
import { focusOf, tabTo as tabToIn } from './support/keyboard.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

/** Waits until `check` holds (hooks cannot use expect.poll). */
async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

interface SimRow {
  id: number
  type: string
  molecule: number | null
  protocol: number
  readouts: Record<string, { value?: number | string; outlier?: boolean }>
}

/** The readout of protocol 1 that the conflict is about (a percentage). */
const corrected = '2'

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

describe.runIf(available)('keyboard-only work through the outbox in Chromium', () => {
  let sim: VaultSim
  let network: NetworkSwitch
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>
  /** File choosers the page has opened (see beforeAll). */
  const choosers: FileChooser[] = []
  let token: string
  let vaultId: number
  let molecule: { id: number; name: string }
  /** An open notebook entry of the demo vault, found by a title no other entry shares. */
  let entry: { id: number; title: string }

  const fileName = 'ir-keyboard.csv'
  const myTitle = 'Amide coupling, repeated at 5 mmol (keyboard)'

  const heading = () => page.getByRole('main').getByRole('heading', { level: 2 }).first()
  const waiting = () => page.getByRole('region', { name: /^Waiting to be sent/ })
  const recent = () => page.getByRole('region', { name: /^Recently sent/ })
  const needsYou = () => page.getByRole('region', { name: /^Needs you/ })
  const simRows = (sql: string, ...args: unknown[]) => sim.core.db.prepare(sql).all(...args)

  /** Asks the vault directly, as a colleague's client would. */
  async function vault(path: string, method = 'GET', body?: unknown): Promise<Response> {
    return fetch(`${sim.baseUrl}/vaults/${vaultId}${path}`, {
      method,
      headers: { 'X-SVC-Token': token, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  }

  /**
   * A molecule whose readout rows are all of protocol 1 with a plain number for the readout the
   * test corrects: any row the keyboard lands on will do.
   */
  async function moleculeWithCorrectableRows(): Promise<{ id: number; name: string }> {
    const response = await vault('/readout_rows/query', 'POST', { page_size: 1000 })
    const rows = ((await response.json()) as { objects: SimRow[] }).objects
    const byMolecule = new Map<number, SimRow[]>()
    for (const row of rows) {
      if (row.molecule !== null)
        byMolecule.set(row.molecule, [...(byMolecule.get(row.molecule) ?? []), row])
    }
    const [id] = [...byMolecule].find(([, candidates]) =>
      candidates.every(
        (row) =>
          row.protocol === 1 &&
          typeof row.readouts[corrected]?.value === 'number' &&
          !row.readouts[corrected]?.outlier,
      ),
    )!
    return { id, name: ((await (await vault(`/molecules/${id}`)).json()) as { name: string }).name }
  }

  const focus = () => focusOf(page)
  const tabTo = (wanted: RegExp, options: Parameters<typeof tabToIn>[2] = {}) =>
    tabToIn(page, wanted, options)

  /** The focus is on what `wanted` names (it may take a render to get there), and drawn. */
  async function expectFocusOn(wanted: RegExp): Promise<void> {
    await expect.poll(async () => (await focus()).name, { timeout: 20_000 }).toMatch(wanted)
    expect((await focus()).visible, `a focus indicator on ${wanted}`).toBe(true)
  }

  /** To the outbox by its link in the top bar, as a person would from anywhere in the window. */
  async function openOutbox(pending: number): Promise<void> {
    await tabTo(new RegExp(`^a: Outbox: ${pending} waiting to be sent$`), { back: true })
    await page.keyboard.press('Enter')
    await expect.poll(() => new URL(page.url()).hash).toBe('#/outbox')
  }

  beforeAll(async () => {
    sim = await startDemoSnapshotSim({ port: 0 })
    network = await networkSwitch(Number(new URL(sim.baseUrl).port))
    token = sim.cast.users.admin.tokens[0]!
    vaultId = sim.cast.vaults.main.id
    molecule = await moleculeWithCorrectableRows()
    entry = simRows(
      `SELECT id, title FROM eln_entries WHERE vault_id = ? AND status = 'open'
         AND title NOT IN (SELECT title FROM eln_entries GROUP BY title HAVING COUNT(*) > 1)
       ORDER BY id LIMIT 1`,
      vaultId,
    )[0] as { id: number; title: string }
    app = await AppUnderTest.start({
      pull: { exportThreshold: Number.POSITIVE_INFINITY },
      probeBackoff: { baseDelayMs: 100, maxDelayMs: 1000 },
      outbox: { retry: { baseDelayMs: 100, maxDelayMs: 1000 }, pollMs: 50 },
    })
    const session = await app.open()
    page = session.page
    problems = session.problems
    // Chromium reports a chooser only once interception is on, which a listener turns on without
    // waiting: added just before the key, it can miss the chooser the key opens. Added here, it
    // is on long before.
    page.on('filechooser', (chooser) => choosers.push(chooser))
  }, 180_000)

  afterEach(async () => {
    // No console error, failed request, CSP violation or accessibility violation, at every step.
    expect(await problems()).toEqual([])
  })

  afterAll(async () => {
    await app?.stop()
    await network?.close()
    await sim?.stop()
  })

  it('connects to a vault from the welcome screen', async () => {
    await page.getByRole('button', { name: 'Connect to a vault' }).waitFor({ timeout: 60_000 })
    await tabTo(/^button: Connect to a vault$/)
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Connect to a vault' })
    await dialog.waitFor()
    await tabTo(/^input: Vault address/, { inside: dialog })
    await page.keyboard.press('ControlOrMeta+A')
    await page.keyboard.type(`http://127.0.0.1:${network.port}/api/v1`)
    await tabTo(/^input: (API )?token/i, { inside: dialog })
    await page.keyboard.type(token)
    await tabTo(/^input: Name/, { inside: dialog })
    await page.keyboard.type('Lab')
    // Enter in a field submits the form, as the Connect button would.
    await page.keyboard.press('Enter')
    // Without a keychain here, the window offers to keep the token for this session only.
    const sessionOnly = dialog.getByRole('button', { name: 'Use for this session only' })
    await expect
      .poll(async () => (await sessionOnly.isVisible()) || !(await dialog.isVisible()), {
        timeout: 30_000,
      })
      .toBe(true)
    if (await sessionOnly.isVisible()) {
      await tabTo(/^button: Use for this session only$/, { inside: dialog })
      await page.keyboard.press('Enter')
    }
    await dialog.waitFor({ state: 'hidden', timeout: 30_000 })
    const connectionId = app.services.connections.list()[0]!.id
    await until(
      'the first sync has completed',
      () =>
        app.services.sync.states().find((state) => state.connectionId === connectionId)
          ?.lastOutcome === 'completed',
      110_000,
    )
    // The later flows start from the molecule's page, reached by its address.
    await page.evaluate(`location.hash = ${JSON.stringify(`#/molecules/${molecule.id}`)}`)
    await page.getByRole('heading', { level: 2, name: molecule.name }).waitFor({ timeout: 60_000 })
  }, 180_000)

  it('queues a file from the drop zone’s chooser offline, and sends it once online', async () => {
    await network.off()
    const zone = page.getByRole('group', { name: 'Attach files to this molecule' })
    await zone.waitFor()
    await tabTo(/^button: Choose files…$/, { inside: zone })
    choosers.length = 0
    await page.keyboard.press('Enter')
    await expect.poll(() => choosers.length, { timeout: 30_000 }).toBe(1)
    const chooser = choosers[0]!
    expect(chooser.isMultiple()).toBe(true)
    await chooser.setFiles({
      name: fileName,
      mimeType: 'text/csv',
      buffer: Buffer.from('wavenumber,transmittance\n1715,0.42\n'),
    })
    await page
      .getByRole('status')
      .filter({ hasText: `Queued: ${fileName}` })
      .waitFor()
    await page
      .getByRole('table', { name: 'Files' })
      .getByRole('row', { name: new RegExp(escaped(fileName)) })
      .getByText(/Pending|Sending/)
      .waitFor()
    // The person can pick the next file at once: the focus stayed on the chooser button.
    await expectFocusOn(/^button: Choose files…$/)
    expect(
      await zone.evaluate((element) => element.contains(element.ownerDocument.activeElement)),
    ).toBe(true)
    await page.getByRole('group', { name: 'Sync status' }).getByText('Offline').waitFor({
      timeout: 30_000,
    })

    await openOutbox(1)
    const card = waiting().getByRole('article').filter({ hasText: fileName })
    await card.getByText(`Attach ${fileName} to molecule`, { exact: false }).waitFor()
    expect(await simRows('SELECT id FROM uploaded_files WHERE name = ?', fileName)).toEqual([])

    await network.on()
    await recent()
      .getByRole('article')
      .filter({ hasText: fileName })
      .getByText('Sent', { exact: true })
      .waitFor({ timeout: 90_000 })
    expect(
      simRows('SELECT resource_class, resource_id FROM uploaded_files WHERE name = ?', fileName),
    ).toEqual([{ resource_class: 'molecule', resource_id: molecule.id }])
    // Nothing took the focus away while the card moved from one group to the other.
    expect((await focus()).visible).toBe(true)
  }, 180_000)

  it('edits a notebook entry offline and sees the edit wait in the outbox', async () => {
    await network.off()
    await tabTo(/^a: Notebook\b/, { back: true, steps: 120 })
    await page.keyboard.press('Enter')
    await expect.poll(() => new URL(page.url()).hash).toBe('#/notebook')
    const entries = page.getByRole('grid', { name: 'Notebook entries' })
    await entries.waitFor()

    await tabTo(/^input: .*[Ss]earch/)
    await page.keyboard.type(entry.title)
    await expect
      .poll(() => entries.getByRole('row', { name: new RegExp(escaped(entry.title)) }).count(), {
        timeout: 20_000,
      })
      .toBe(1)
    for (let step = 0; step < 20; step++) {
      if (await entries.evaluate((grid) => grid.contains(grid.ownerDocument.activeElement))) break
      await page.keyboard.press('Tab')
    }
    expect((await focus()).visible, 'a focus indicator in the grid').toBe(true)
    await page.keyboard.press('Enter')
    await expect.poll(() => new URL(page.url()).hash).toBe(`#/entries/${entry.id}`)
    await expect.poll(() => heading().textContent()).toBe(entry.title)

    await tabTo(/^button: Edit title and fields…$/)
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Edit the entry' })
    await dialog.waitFor()
    await expectFocusOn(/^input: Title$/)
    await page.keyboard.press('Control+A')
    await page.keyboard.type(myTitle)
    await tabTo(/^button: Queue the changes$/, { inside: dialog })
    await page.keyboard.press('Enter')
    await dialog.waitFor({ state: 'hidden' })
    // Back where the dialog was opened from.
    await expectFocusOn(/^button: Edit title and fields…$/)
    await expect.poll(() => heading().textContent()).toBe(myTitle)
    await page.getByText('This page shows changes that are not on the vault yet.').waitFor()

    await openOutbox(1)
    const edit = waiting().getByRole('article')
    await expect.poll(() => edit.count()).toBe(1)
    await edit.getByText('Queued', { exact: true }).waitFor({ timeout: 30_000 })
    await edit.getByText('Notebook edit', { exact: true }).waitFor()
    expect(simRows('SELECT title FROM eln_entries WHERE id = ?', entry.id)).toEqual([
      { title: entry.title },
    ])
  }, 180_000)

  it('resolves from the keyboard a conflict with a change made on the vault meanwhile', async () => {
    // Still offline. Back to the molecule by the link on the file's card, into its readouts.
    await tabTo(/^a: /, { inside: recent().getByRole('article').filter({ hasText: fileName }) })
    await page.keyboard.press('Enter')
    await expect.poll(() => heading().textContent()).toBe(molecule.name)
    const readouts = page.getByRole('grid', { name: /^Readouts of / }).first()
    await readouts.waitFor()
    for (let step = 0; step < 80; step++) {
      if (await readouts.evaluate((grid) => grid.contains(grid.ownerDocument.activeElement))) break
      await page.keyboard.press('Tab')
    }
    expect((await focus()).visible, 'a focus indicator in the readouts').toBe(true)
    await page.keyboard.press('Enter')
    await expect.poll(() => new URL(page.url()).hash).toMatch(/^#\/readout-rows\/\d+$/)
    const rowId = Number(new URL(page.url()).hash.split('/').at(-1))

    await tabTo(/^button: Correct values…$/)
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: /^Correct / })
    await dialog.waitFor()
    const protocol = (await (await vault('/protocols/1')).json()) as {
      readout_definitions: { id: number; name: string; unit_label: string }[]
    }
    const definition = protocol.readout_definitions.find(({ id }) => String(id) === corrected)!
    const value = dialog.getByLabel(`${definition.name} (${definition.unit_label})`, {
      exact: true,
    })
    await tabTo(/^input: /, { inside: value })
    await page.keyboard.press('Control+A')
    await page.keyboard.type('33.3')
    await tabTo(/^button: Queue the correction$/, { inside: dialog })
    await page.keyboard.press('Enter')
    await dialog.waitFor({ state: 'hidden' })
    await expectFocusOn(/^button: Correct values…$/)
    await page.getByText('This page shows changes that are not on the vault yet.').waitFor()

    // Meanwhile a colleague changes the same value on the vault.
    sim.clock.advance(2000)
    const colleague = await vault(`/readout_rows/${rowId}`, 'PUT', {
      readouts: { [corrected]: { value: 44.4 } },
    })
    expect(colleague.status).toBe(200)
    await openOutbox(2)
    await network.on()

    const conflict = needsYou().getByRole('article')
    await conflict.getByText('Conflict', { exact: true }).waitFor({ timeout: 90_000 })
    const compare = conflict.getByRole('table', { name: "Your change and the vault's copy" })
    const member = compare.getByRole('row', { name: new RegExp(`^${escaped(definition.name)}`) })
    await member.getByRole('cell', { name: '33.3' }).waitFor()
    await member.getByRole('cell', { name: '44.4' }).waitFor()
    // The notebook edit had nothing against it: it went out, once.
    await recent()
      .getByRole('article')
      .filter({ hasText: 'Notebook edit' })
      .getByText('Sent', { exact: true })
      .waitFor({ timeout: 60_000 })
    expect(simRows('SELECT title FROM eln_entries WHERE id = ?', entry.id)).toEqual([
      { title: myTitle },
    ])

    await tabTo(/^button: Keep mine$/, { inside: conflict })
    await page.keyboard.press('Enter')
    const resolved = page.locator(`article[data-item-id]`).filter({
      hasText: `Correct readout row ${rowId}`,
    })
    await recent()
      .getByRole('article')
      .filter({ hasText: `Correct readout row ${rowId}` })
      .getByText('Sent', { exact: true })
      .waitFor({ timeout: 60_000 })
    const row = (await (await vault(`/readout_rows/${rowId}`)).json()) as SimRow
    expect(row.readouts[corrected]?.value).toBe(33.3)
    // The focus follows the item to its new place rather than falling to the page.
    await expect
      .poll(() => resolved.evaluate((card) => card === card.ownerDocument.activeElement), {
        timeout: 20_000,
      })
      .toBe(true)
    expect((await focus()).visible, 'a focus indicator on the resolved card').toBe(true)
  }, 240_000)
})
