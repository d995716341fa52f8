import type { Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { VaultSim } from '../../src-sim/index.ts'
import { networkSwitch, type NetworkSwitch } from '../outbox/support/network-switch.ts'
import { requirement } from '../support/environment.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

/** Waits until `check` holds (hooks cannot use expect.poll). */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

interface SimMolecule {
  id: number
  name: string
  smiles: string
}

/**
 * The demo vault's data (the `demo` seed the "Open the demo vault" button starts), served behind
 * a relay the tests switch off, so that what is queued visibly waits, then reaches the vault.
 * Both vault kinds are there: Vault Desk Demo names molecules as the person says (no registration
 * system), Discovery AI numbers them itself and requires Purity (%) and Chemist on every batch.
 */
describe.runIf(available)('registering a compound in Chromium: novelty check, outbox', () => {
  let sim: VaultSim
  let network: NetworkSwitch
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>
  let connectionId: string
  /** A Discovery AI molecule, whose hydrochloride the chemist registers. */
  let parent: SimMolecule
  let batchesBefore: number
  /** The salt chosen for the new batch, of those the vault knows. */
  let saltName: string

  const newName = 'Offline registration 1'
  /** A structure none of the demo's scaffolds makes: 1-(trifluoromethyl)cyclopropanecarbonitrile. */
  const newSmiles = 'N#CC1(CC1)C(F)(F)F'

  const dialog = () => page.getByRole('dialog', { name: 'Register a compound' })
  const structure = () => dialog().getByRole('textbox', { name: 'Structure' })
  const novelty = () => dialog().getByRole('region', { name: 'Novelty check' })
  const openButton = () => page.getByRole('button', { name: 'Register compound…' })
  const vault = (name: RegExp) => page.getByRole('button', { name })
  const simCount = (sql: string, ...args: unknown[]) =>
    (sim.core.db.prepare(sql).get(...args) as { count: number }).count
  const queuedItems = () => app.services.outbox.list({ connectionId }).length

  async function go(hash: string) {
    await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`)
  }

  async function dismissNotices() {
    const dismiss = page.getByRole('button', { name: /^Dismiss: / })
    while ((await dismiss.count()) > 0) await dismiss.first().click()
  }

  async function openDialog() {
    await openButton().click()
    await dialog().waitFor()
    // The structure field takes the focus: the chemist pastes at once.
    await expect
      .poll(() => structure().evaluate((field) => field === field.ownerDocument.activeElement))
      .toBe(true)
  }

  async function indexed(vaultId: number) {
    const state = await app.services.chem.indexState(connectionId, vaultId)
    return state.total > 0 && state.indexed === state.total && state.detailsPending === 0
  }

  beforeAll(async () => {
    sim = await startDemoSnapshotSim({ port: 0 })
    network = await networkSwitch(Number(new URL(sim.baseUrl).port))
    const token = sim.cast.users.admin.tokens[0]!
    parent = sim.core.db
      .prepare(
        `SELECT id, name, smiles FROM molecules
          WHERE vault_id = ? AND smiles IS NOT NULL AND smiles NOT LIKE '%.%' ORDER BY id LIMIT 1`,
      )
      .get(sim.cast.vaults.ai.id) as SimMolecule
    batchesBefore = simCount(
      'SELECT count(*) AS count FROM batches WHERE molecule_id = ?',
      parent.id,
    )
    app = await AppUnderTest.start({
      pull: { exportThreshold: Number.POSITIVE_INFINITY },
      probeBackoff: { baseDelayMs: 100, maxDelayMs: 1000 },
      outbox: { retry: { baseDelayMs: 100, maxDelayMs: 1000 }, pollMs: 50 },
    })
    const added = await app.services.connections.add({
      name: 'Demo data',
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
      150_000,
    )
    // The novelty check compares InChIKeys: the index computes them after the first sync.
    await until('the structures are indexed', () => indexed(sim.cast.vaults.ai.id), 120_000)
    await until('the structures are indexed', () => indexed(sim.cast.vaults.main.id), 180_000)
    const session = await app.open('#/molecules')
    page = session.page
    problems = session.problems
    await openButton().waitFor({ timeout: 30_000 })
  }, 480_000)

  afterEach(async () => {
    // No console error, failed request or CSP violation, and no accessibility violation of the
    // screen the test ended on.
    expect(await problems()).toEqual([])
  })

  afterAll(async () => {
    await app?.stop()
    await network?.close()
    await sim?.stop()
  })

  it('finds a salt form as the same parent and queues a new batch of that molecule', async () => {
    await network.off()
    await vault(/^Discovery AI/).click()
    await page.getByRole('grid', { name: 'Molecules' }).waitFor()
    await openDialog()
    await dialog()
      .getByText(/names new molecules/)
      .waitFor()

    await structure().fill(`${parent.smiles}.Cl`)
    await novelty()
      .getByText(/^\d+ match(es)? in the cached vault: choose what to register\.$/)
      .waitFor({ timeout: 20_000 })
    await novelty()
      .getByRole('heading', { name: /^Same parent without salts or solvents/ })
      .waitFor()
    const card = novelty().getByRole('listitem').filter({ hasText: parent.name })
    await card.getByRole('link', { name: parent.name }).waitFor()
    // Drawn large enough to read, with its name for a screen reader.
    const drawing = card.getByRole('img', { name: `Structure of ${parent.name}` })
    await drawing.waitFor()
    expect(await drawing.getAttribute('src')).toMatch(/^data:image\/svg\+xml/)
    expect((await drawing.boundingBox())!.width).toBeGreaterThanOrEqual(120)
    await novelty()
      .getByText(/Compared without/)
      .waitFor()
    // The pasted structure is drawn beside the field.
    await dialog().getByRole('img', { name: 'The structure as drawn' }).waitFor()
    await page.screenshot({ path: app.screenshotPath('registration-novelty.png') })

    // Queued without an answer to the check: the dialog asks for one, and queues nothing.
    const before = queuedItems()
    await dialog().getByRole('button', { name: 'Queue registration' }).click()
    await novelty()
      .getByRole('alert')
      .getByText(/choose a molecule for a new batch/)
      .waitFor()
    expect(queuedItems()).toBe(before)

    // The match's link opens its page; the registration waits, as typed, for the chemist.
    await card.getByRole('link', { name: parent.name }).click()
    await dialog().waitFor({ state: 'hidden' })
    await page.getByRole('main').getByRole('heading', { level: 2, name: parent.name }).waitFor()
    await page.goBack()
    await openDialog()
    expect(await structure().inputValue()).toBe(`${parent.smiles}.Cl`)
    // The summary is a polite live region: a screen reader hears the count as it changes.
    const summary = novelty().locator('[aria-live="polite"]')
    await expect.poll(() => summary.textContent()).toMatch(/\d+ match(es)? in the cached vault/)

    // Chosen from the keyboard.
    const newBatch = card.getByRole('radio', {
      name: `New batch of this molecule (${parent.name})`,
    })
    await newBatch.focus()
    await page.keyboard.press('Space')
    expect(await newBatch.isChecked()).toBe(true)
    await dialog().getByText(`A new batch of ${parent.name}`).waitFor()
    await dialog().getByRole('checkbox', { name: 'AI Exploration' }).check()
    // Discovery AI requires these on every batch: left empty, each says so beside it.
    await dialog().getByRole('button', { name: 'Queue registration' }).click()
    const purity = dialog().getByRole('textbox', { name: 'Purity (%)' })
    await expect.poll(() => purity.getAttribute('aria-invalid')).toBe('true')
    await dialog().getByText('Purity (%) is required.').waitFor()
    await dialog().getByText('Chemist is required.').waitFor()
    // The first field with a problem takes the focus.
    await expect
      .poll(() => purity.evaluate((field) => field === field.ownerDocument.activeElement))
      .toBe(true)
    expect(queuedItems()).toBe(before)
    await purity.fill('98,5')
    await dialog().getByRole('textbox', { name: 'Chemist' }).fill('R. Franklin')
    await dialog().getByRole('button', { name: 'Queue registration' }).click()
    await dialog()
      .getByText(/has a comma in “98,5”/)
      .waitFor()
    await purity.fill('98.5')
    // A hydrochloride: its salt, one per formula unit.
    const salt = dialog().getByRole('combobox', { name: 'Salt', exact: true })
    await salt.selectOption({ index: 1 })
    saltName = await salt.inputValue()
    await dialog().getByRole('textbox', { name: 'Salt count' }).fill('1')
    await page.screenshot({ path: app.screenshotPath('registration-salt-form.png') })
    // The dialog with its matches, its problems and its fields passes the accessibility gate.
    expect(await problems()).toEqual([])

    await dialog().getByRole('button', { name: 'Queue registration' }).click()
    await dialog().waitFor({ state: 'hidden' })
    await page.getByRole('status').filter({ hasText: 'Queued: the compound' }).first().waitFor()
    // Focus goes back to the button that opened the dialog.
    await expect
      .poll(() => openButton().evaluate((button) => button === button.ownerDocument.activeElement))
      .toBe(true)
    expect(queuedItems()).toBe(before + 1)

    await dismissNotices()
    await go('#/outbox')
    const item = page.getByRole('article').filter({
      has: page.getByRole('heading', { name: `Create a batch of molecule ${parent.id}` }),
    })
    await item.waitFor()
    // The batch waits in the list of batches, marked pending, until the vault has it.
    await go('#/batches')
    const batches = page.getByRole('grid', { name: 'Batches' })
    await batches
      .getByRole('row')
      .filter({ hasText: 'Pending' })
      .first()
      .waitFor({ timeout: 20_000 })
  })

  it('registers a new structure as a new molecule, pending in the list until sent', async () => {
    await vault(/^Vault Desk Demo/).click()
    await go('#/molecules')
    await openDialog()
    await dialog()
      .getByText(/works without the network/)
      .waitFor()
    await structure().fill(newSmiles)
    await novelty()
      .getByText('New: no molecule in the cached vault has this structure.')
      .waitFor({ timeout: 20_000 })
    await dialog().getByRole('textbox', { name: 'Name' }).fill(newName)
    await dialog().getByRole('checkbox', { name: 'Kinase Inhibitors' }).check()
    await page.screenshot({ path: app.screenshotPath('registration-new.png') })
    expect(await problems()).toEqual([])
    await dialog().getByRole('button', { name: 'Queue registration' }).click()
    await dialog().waitFor({ state: 'hidden' })

    const list = page.getByRole('grid', { name: 'Molecules' })
    await page.getByRole('searchbox', { name: 'Search molecules' }).fill(newName)
    const row = list.getByRole('row').filter({ hasText: newName })
    await row.getByText('Pending').waitFor({ timeout: 20_000 })

    // The vault answers again: both registrations reach it, each once.
    await network.on()
    await until(
      'the new molecule is on the vault',
      () =>
        simCount(
          'SELECT count(*) AS count FROM molecules WHERE vault_id = ? AND name = ?',
          sim.cast.vaults.main.id,
          newName,
        ) === 1,
      60_000,
    )
    await until(
      'the new batch is on the vault',
      () =>
        simCount('SELECT count(*) AS count FROM batches WHERE molecule_id = ?', parent.id) ===
        batchesBefore + 1,
      60_000,
    )
    const batch = sim.core.db
      .prepare(
        'SELECT salt_name, salt_count FROM batches WHERE molecule_id = ? ORDER BY id DESC LIMIT 1',
      )
      .get(parent.id)
    expect(batch).toEqual({ salt_name: saltName, salt_count: 1 })
    await row.getByText('Pending').waitFor({ state: 'detached', timeout: 60_000 })
  })

  it('names what is wrong with a structure that does not parse, and queues nothing', async () => {
    await openDialog()
    await structure().fill('C1CC(')
    const message = dialog()
      .getByText(/Parse Error|unclosed|syntax|cannot be read/i)
      .first()
    await message.waitFor({ timeout: 20_000 })
    await novelty().getByText('Not checked: the structure cannot be read.').waitFor()
    expect(await structure().getAttribute('aria-invalid')).toBe('true')
    const before = queuedItems()
    await dialog().getByRole('textbox', { name: 'Name' }).fill('Broken ring')
    await dialog().getByRole('button', { name: 'Queue registration' }).click()
    await expect
      .poll(() => structure().evaluate((field) => field === field.ownerDocument.activeElement))
      .toBe(true)
    expect(queuedItems()).toBe(before)
    expect(await problems()).toEqual([])

    // At 200% zoom of a 1280x720 window (640x360 CSS pixels) it reflows to one column and never
    // scrolls sideways: the form scrolls between the title and the buttons, which stay in view.
    await page.setViewportSize({ width: 640, height: 360 })
    const sideways = await dialog().evaluate((element) => {
      const body = element.querySelector('form')!
      return [element.scrollWidth - element.clientWidth, body.scrollWidth - body.clientWidth]
    })
    expect(sideways).toEqual([0, 0])
    await page.screenshot({ path: app.screenshotPath('registration-zoom.png') })
    await dialog().getByRole('button', { name: 'Queue registration' }).scrollIntoViewIfNeeded()
    expect(await dialog().getByRole('button', { name: 'Queue registration' }).isVisible()).toBe(
      true,
    )
    expect(await problems()).toEqual([])
    await page.setViewportSize({ width: 1280, height: 800 })

    // Escape closes the dialog and gives the focus back; what was typed waits for next time.
    await page.keyboard.press('Escape')
    await dialog().waitFor({ state: 'hidden' })
    await expect
      .poll(() => openButton().evaluate((button) => button === button.ownerDocument.activeElement))
      .toBe(true)
    await openButton().click()
    expect(await structure().inputValue()).toBe('C1CC(')
    await page.keyboard.press('Escape')
    await dialog().waitFor({ state: 'hidden' })
  })
})
