import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { requirement } from '../support/environment.ts'
import { accessibilityViolations } from './support/accessibility.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

/** Waits until `check` holds (hooks cannot use expect.poll). */
async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

describe.runIf(available)('watched instrument folders in Chromium', () => {
  let sim: VaultSim
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>
  let folder: string

  beforeAll(async () => {
    sim = await startDemoSnapshotSim({ port: 0 })
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-e2e-instrument-'))
    app = await AppUnderTest.start({
      pull: { exportThreshold: Number.POSITIVE_INFINITY },
      watch: { settleMs: 300, scanMs: 200 },
      outbox: { retry: { baseDelayMs: 100, maxDelayMs: 1000 }, pollMs: 50, importPollMs: 100 },
    })
    const added = await app.services.connections.add({
      name: 'Lab',
      baseUrl: sim.baseUrl,
      token: sim.cast.users.writer.tokens[0]!,
      sessionOnly: true,
    })
    await until(
      'the first sync has completed',
      () =>
        app.services.sync.states().find((state) => state.connectionId === added.connection.id)
          ?.lastOutcome === 'completed',
      110_000,
    )
    const session = await app.open('#/outbox')
    page = session.page
    problems = session.problems
  }, 180_000)

  afterEach(async () => {
    expect(await problems()).toEqual([])
  })

  afterAll(async () => {
    await app?.stop()
    await sim?.stop()
    if (folder) fs.rmSync(folder, { recursive: true, force: true })
  })

  it('watches a folder, holds a file with problems with its report, and queues it anyway', async () => {
    const section = page.getByRole('region', { name: 'Watched instrument folders' })
    await section.getByRole('button', { name: 'Watch a folder…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Watch an instrument folder' })
    // The browser preview has no folder dialog: the path is typed (or a folder dropped).
    expect(await dialog.getByRole('button', { name: 'Choose…' }).count()).toBe(0)
    await dialog.getByLabel('Folder').fill(folder)
    await dialog.getByLabel('Protocol').selectOption({ label: 'Kinase IC50 (ADP-Glo)' })
    await dialog.getByLabel('Mapping template').selectOption({ label: 'Kinase IC50 import (CSV)' })
    await dialog.getByLabel('Person').fill('Plate reader 2')
    expect(await accessibilityViolations(page, 'the watch-a-folder dialog')).toEqual([])
    await dialog.getByRole('button', { name: 'Watch the folder' }).click()
    await section.getByText(folder, { exact: true }).waitFor()
    await section.getByText('Watching', { exact: true }).waitFor()

    // A plate reader's file without the readout column the template maps.
    fs.writeFileSync(
      path.join(folder, 'reader-17.csv'),
      'SMILES,Compound,Concentration (uM),RLU\nc1ccccc1O,E2E-1,10,4000\n',
    )
    const held = section.getByRole('listitem').filter({ hasText: 'reader-17.csv' })
    await held.getByText('Waiting for you', { exact: true }).waitFor({ timeout: 30_000 })
    await held
      .getByText(/% Inhibition/)
      .first()
      .waitFor()
    expect(await accessibilityViolations(page, 'a held file in the Outbox')).toEqual([])
    await page.screenshot({ path: app.screenshotPath('watch-held-file.png'), fullPage: true })

    await held.getByRole('button', { name: 'Queue anyway' }).click()
    await held.getByText(/^Queued \(outbox item \d+\)$/).waitFor()
    const [taken] = app.services.watch.takenFiles()
    expect(taken).toMatchObject({ fileName: 'reader-17.csv', outcome: 'queued' })
    expect(app.services.outbox.item(taken!.outboxItemId!).file?.name).toBe('reader-17.csv')
  }, 120_000)
})
