/**
 * New inventory samples and plates in Chromium, with the vault unreachable so that both stay
 * pending: a sample of a demo batch made by keyboard and mouse (amount, units, a box chosen in the
 * location tree by arrow keys, a free position), shown pending on the batch's page; a plate made
 * from a pasted well list whose one bad line is reported, refused until it is fixed, previewed on
 * the plate map, then queued and listed pending; the outbox lists both. The batch page's edit
 * dialog offers a batch's fields only in a vault with a registration system (the demo vault has
 * none: the name alone, saying why). Every step ends with the page's problems (console errors, CSP
 * violations, accessibility) checked.
 */
import type { Locator, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { VaultSim } from '../../src-sim/index.ts'
import { networkSwitch, type NetworkSwitch } from '../outbox/support/network-switch.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { requirement } from '../support/environment.ts'
import { accessibilityViolations } from './support/accessibility.ts'
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

interface BatchTarget {
  id: number
  identifier: string
}

interface BatchWithFields extends BatchTarget {
  fields: Record<string, unknown>
}

describe.skipIf(!available)('new samples and plates in the window', () => {
  let sim: VaultSim
  let network: NetworkSwitch
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>
  let token: string
  let connectionId: string
  let vaultId: number
  let batch: BatchTarget
  let other: BatchTarget
  /** Box 1 of the demo inventory, and a position in it no sample takes. */
  let box: { id: number; free: string }

  const plateName = 'Offline source plate'

  async function go(hash: string) {
    await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`)
  }

  /** Drops a file on `target` as the operating system would (a DataTransfer with a File). */
  async function dropFile(target: Locator, name: string, contents: string) {
    const dataTransfer = await page.evaluateHandle(`(() => {
      const transfer = new DataTransfer()
      transfer.items.add(new File([${JSON.stringify(contents)}], ${JSON.stringify(name)}, { type: 'text/csv' }))
      return transfer
    })()`)
    await target.dispatchEvent('dragenter', { dataTransfer })
    await target.dispatchEvent('dragover', { dataTransfer })
    await target.dispatchEvent('drop', { dataTransfer })
  }

  async function batchOf(id: number): Promise<BatchTarget> {
    const response = await fetch(`${sim.baseUrl}/vaults/${vaultId}/batches/${id}`, {
      headers: { 'X-SVC-Token': token },
    })
    const body = (await response.json()) as { id: number; molecule_batch_identifier: string }
    return { id: body.id, identifier: body.molecule_batch_identifier }
  }

  /** The first batch of a vault that has values in its batch fields, as the vault sends it. */
  async function batchWithFields(inVault: number): Promise<BatchWithFields> {
    const ids = sim.core.db
      .prepare('SELECT id FROM batches WHERE vault_id = ? ORDER BY id LIMIT 20')
      .pluck()
      .all(inVault) as number[]
    for (const id of ids) {
      const response = await fetch(`${sim.baseUrl}/vaults/${inVault}/batches/${id}`, {
        headers: { 'X-SVC-Token': token },
      })
      const body = (await response.json()) as {
        molecule_batch_identifier: string
        batch_fields?: Record<string, unknown> | null
      }
      const fields = body.batch_fields ?? {}
      if (Object.keys(fields).length > 0) {
        return { id, identifier: body.molecule_batch_identifier, fields }
      }
    }
    throw new Error(`No batch of vault ${inVault} has field values among its first 20.`)
  }

  beforeAll(async () => {
    sim = await startDemoSnapshotSim({
      port: 0,
      exportTiming: { startDelayMs: 0, durationMs: 0 },
    })
    network = await networkSwitch(Number(new URL(sim.baseUrl).port))
    token = sim.cast.users.admin.tokens[0]!
    vaultId = sim.cast.vaults.main.id
    const [first, second] = sim.core.db
      .prepare('SELECT id FROM batches WHERE vault_id = ? ORDER BY id LIMIT 2')
      .all(vaultId) as { id: number }[]
    batch = await batchOf(first!.id)
    other = await batchOf(second!.id)
    const boxRow = sim.core.db
      .prepare(`SELECT id FROM inventory_locations WHERE vault_id = ? AND name = 'Box 1'`)
      .get(vaultId) as { id: number }
    const taken = new Set(
      (
        sim.core.db
          .prepare('SELECT position FROM inventory_samples WHERE location_id = ?')
          .all(boxRow.id) as { position: string | null }[]
      ).map((row) => row.position),
    )
    box = { id: boxRow.id, free: ['I09', 'I08', 'H09', 'H08'].find((label) => !taken.has(label))! }

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
    // Unreachable from here on: what is queued stays pending.
    await network.off()
    const session = await app.open(`#/batches/${batch.id}`)
    page = session.page
    problems = session.problems
    await page.getByRole('heading', { level: 2, name: batch.identifier }).waitFor()
  }, 180_000)

  afterEach(async () => {
    expect(await problems()).toEqual([])
  })

  afterAll(async () => {
    await app?.stop()
    await network?.close()
    await sim?.stop()
  })

  it('creates a sample of a batch by keyboard and mouse, shown pending on its page', async () => {
    await page.getByRole('button', { name: 'New sample…' }).click()
    const dialog = page.getByRole('dialog', { name: `New sample of ${batch.identifier}` })
    await dialog.waitFor()
    // The amount has the focus; the rest is typed and chosen from the keyboard.
    await page.keyboard.type('25')
    await page.keyboard.press('Tab')
    await dialog.getByLabel('Units').selectOption('µL')
    // Into the location tree: Freezer A › Rack 1 › Box 1, by arrow keys.
    const tree = dialog.getByRole('tree', { name: 'Location of the new sample' })
    await tree.getByRole('treeitem').first().focus()
    for (const key of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowRight', 'Enter']) {
      await page.keyboard.press(key)
    }
    await expect
      .poll(() => dialog.getByRole('treeitem', { selected: true }).textContent())
      .toContain('Box 1')
    const position = dialog.getByLabel('Position in Box 1')
    await position.waitFor()

    // A taken position is refused, naming the free ones.
    const taken = sim.core.db
      .prepare(
        'SELECT position FROM inventory_samples WHERE location_id = ? AND position IS NOT NULL',
      )
      .pluck()
      .get(box.id) as string
    await position.fill(taken)
    // The vault's sample fields, typed as their definitions say.
    await dialog.getByLabel('Solvent', { exact: true }).selectOption('DMSO')
    await dialog.getByLabel('Prepared On', { exact: true }).fill('2026-11-02')
    const tare = dialog.getByLabel('Tare (mg)', { exact: true })
    await tare.fill('heavy')
    await dialog.getByRole('button', { name: 'Queue the sample' }).click()
    await dialog.getByText(`${taken} of Box 1 already holds a sample. Free:`).waitFor()
    await dialog.getByText('Tare (mg) takes a number, not "heavy".').waitFor()
    await expect.poll(() => tare.getAttribute('aria-invalid')).toBe('true')
    await expect.poll(() => position.getAttribute('aria-invalid')).toBe('true')
    expect(await accessibilityViolations(page, 'the new sample dialog with an error')).toEqual([])

    await position.fill(box.free.toLowerCase())
    await tare.fill('0,5')
    await dialog.getByLabel('Note').fill('weighed on the bench')
    await page.keyboard.press('Enter')
    await dialog.waitFor({ state: 'hidden' })
    await page
      .getByRole('status')
      .filter({ hasText: `Queued: a sample of 25 µL of ${batch.identifier}` })
      .waitFor()

    const samples = page.getByRole('table', { name: 'Samples' })
    const pending = samples.getByRole('row').filter({ hasText: '25 µL' })
    await pending.getByText('Pending').waitFor()
    const queued = app.services.outbox.list().find((item) => item.operation === 'sample.create')
    expect(queued?.payload).toMatchObject({
      fields: { Solvent: 'DMSO', 'Tare (mg)': 0.5, 'Prepared On': '2026-11-02' },
    })
  })

  it('reports a bad line of a pasted well list, queues nothing until it is fixed, then the plate', async () => {
    await go('#/plates')
    await page.getByRole('button', { name: 'New plate…' }).click()
    const dialog = page.getByRole('dialog', { name: 'New plate' })
    await dialog.waitFor()
    await page.keyboard.type(plateName)
    await dialog.getByRole('checkbox', { name: 'Kinase Inhibitors' }).check()
    await dialog.getByLabel('Wells', { exact: true }).selectOption('96')
    const wells = dialog.getByRole('textbox', { name: /^Wells/ })
    await wells.fill(`well,batch\nA1,${batch.identifier}\nB2,no-such-lot\nH12,${other.id}\n`)
    const problemsList = dialog.getByRole('list', { name: 'Problems of the well list' })
    await problemsList
      .getByText('line 3: No cached batch has the id, name or identifier "no-such-lot".')
      .waitFor()
    await dialog.getByRole('status').filter({ hasText: '1 problem to fix' }).waitFor()
    expect(await accessibilityViolations(page, 'the new plate dialog with a bad line')).toEqual([])

    const before = app.services.outbox.list().length
    await dialog.getByRole('button', { name: 'Queue the plate' }).click()
    await dialog.getByText('The well list has 1 problem to fix first.').waitFor()
    expect(app.services.outbox.list()).toHaveLength(before)

    // The fixed list dropped as a file, as saved by a spreadsheet: semicolons, a BOM, CRLF.
    await dropFile(
      dialog.getByRole('group', { name: 'Drop a CSV file of wells here, or choose one' }),
      'wells.csv',
      `\uFEFFPos;Batch ID\r\nA1;${batch.identifier}\r\nB2;${batch.id}\r\nH12;${other.id}\r\n`,
    )
    await dialog.getByRole('status').filter({ hasText: '3 wells ready.' }).waitFor()
    expect(await wells.inputValue()).toContain(`H12;${other.id}`)
    await problemsList.waitFor({ state: 'detached' })
    const map = dialog.getByRole('grid', { name: "Preview of the new plate's wells" })
    await map.getByRole('gridcell', { name: `A01, ${batch.identifier}` }).waitFor()
    await map.getByRole('gridcell', { name: `H12, ${other.identifier}` }).waitFor()
    expect(await accessibilityViolations(page, 'the new plate dialog and its preview')).toEqual([])

    await dialog.getByRole('button', { name: 'Queue the plate' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page
      .getByRole('status')
      .filter({ hasText: `Queued: the plate ${plateName} (96-well, 3 wells)` })
      .waitFor()
    const item = app.services.outbox.list().find((queued) => queued.operation === 'plate.create')!
    expect(item.payload).toMatchObject({
      name: plateName,
      size: 96,
      wells: [
        { pos: 'A01', batch: batch.id },
        { pos: 'B02', batch: batch.id },
        { pos: 'H12', batch: other.id },
      ],
    })
    await page.getByRole('row').filter({ hasText: plateName }).getByText('Pending').waitFor()
  })

  it('lists both in the outbox, waiting for the vault', async () => {
    await go('#/outbox')
    await page
      .getByRole('article')
      .filter({ has: page.getByRole('heading', { name: `Create the plate "${plateName}"` }) })
      .waitFor()
    await page
      .getByRole('article')
      .filter({
        has: page.getByRole('heading', { name: `Create a sample of batch ${batch.id}` }),
      })
      .waitFor()
    expect(
      app.services.outbox
        .list()
        .filter((item) => ['sample.create', 'plate.create'].includes(item.operation))
        .map((item) => item.state),
    ).toEqual(['queued', 'queued'])
  })

  it("offers a batch's fields only in a vault with a registration system, saying why", async () => {
    const editButton = page.getByRole('button', { name: 'Edit name and fields…' })
    const dialog = page.getByRole('dialog', { name: /^Edit / })
    const fieldsGroup = dialog.getByRole('group', { name: 'Fields' })
    const reason =
      "This vault has no registration system: it takes a batch's fields from imports only, so only the name can be changed here."
    /** Opens the dialog; answers once it has heard what kind of vault this is. */
    const openEditing = async (inVault: number) => {
      await editButton.click()
      await dialog.waitFor()
      // The dialog asks for the vault's form as it opens; the answer to the same question asked
      // after it comes after its own, so by then the dialog shows what it made of its answer.
      const form = (await page.evaluate(
        `window.vaultDesk.invoke('registration.form', ${JSON.stringify({ connectionId, vaultId: inVault })})`,
      )) as { ok: boolean; value?: { vaultKind: string } }
      return form.value?.vaultKind
    }

    // The demo vault has no registration system: a batch's fields come from imports only.
    const plain = await batchWithFields(vaultId)
    await go(`#/batches/${plain.id}`)
    await page.getByRole('heading', { level: 2, name: plain.identifier }).waitFor()
    expect(await openEditing(vaultId)).toBe('plain')
    await dialog.getByText(reason).waitFor()
    await dialog.getByLabel('Batch name').waitFor()
    expect(await fieldsGroup.count()).toBe(0)
    for (const field of Object.keys(plain.fields)) {
      expect(await dialog.getByLabel(field, { exact: true }).count()).toBe(0)
    }
    expect(await accessibilityViolations(page, 'the batch edit dialog of a plain vault')).toEqual(
      [],
    )
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })

    // Discovery AI registers its batches: their fields can be changed here.
    const registration = await batchWithFields(sim.cast.vaults.ai.id)
    await page.getByRole('button', { name: /^Discovery AI/ }).click()
    await go(`#/batches/${registration.id}`)
    await page.getByRole('heading', { level: 2, name: registration.identifier }).waitFor()
    expect(await openEditing(sim.cast.vaults.ai.id)).toBe('registration')
    await fieldsGroup.waitFor()
    for (const [field, value] of Object.entries(registration.fields)) {
      const input = fieldsGroup.getByLabel(field, { exact: true })
      expect(await input.inputValue()).toBe(value === null ? '' : String(value))
    }
    expect(await dialog.getByText(reason).count()).toBe(0)
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
  })
})
