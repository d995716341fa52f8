import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  tryTakeDataFolderLock,
  type DataFolderLock,
} from '../../src-main/shared/data-folder-lock.ts'
import { collectionNames, writeDamagedOutbox } from '../outbox/support/damaged-outbox.ts'
import { requirement } from '../support/environment.ts'
import { checkAccessibility } from './support/accessibility.ts'
import { chromiumInstalled } from './support/chromium.ts'
import { suiteWindow } from './support/suite-window.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

/**
 * What happened before the window opened, and what lasts while it is open, as a person sees it:
 * an outbox.db damaged before the start (repaired before any window listened) and a data folder
 * another process holds, each shown until dismissed.
 */
describe.runIf(available)('notices the window keeps until they are read, in Chromium', () => {
  let lock: DataFolderLock | null = null
  const suite = suiteWindow({
    prepare: async (dataDir) => {
      await writeDamagedOutbox(dataDir, collectionNames(240), {
        connectionId: 'lab',
        vaultId: 1,
      })
      // As `vault-desk sync` would hold it while it runs.
      const attempt = tryTakeDataFolderLock(dataDir, "'vault-desk sync'")
      if (!attempt.held) throw new Error('The test could not take the data folder lock.')
      lock = attempt.lock
    },
  })

  afterAll(() => {
    lock?.release()
  })

  it('shows the repaired outbox and the held folder at start, with where and what to do', async () => {
    const { app, page } = suite
    const recovery = app.services.outbox.recovery!
    expect(recovery).not.toBeNull()
    const notices = page.getByRole('region', { name: 'Notices' })
    const repaired = notices.getByRole('alert').filter({ hasText: 'The outbox was damaged' })
    await repaired.waitFor()
    await expect
      .poll(() => repaired.innerText())
      .toContain(`${recovery.recovered} items were recovered`)
    const repairedText = await repaired.innerText()
    expect(repairedText).toContain(`${recovery.unreadable} could not be read`)
    expect(repairedText).toContain('do again the work of the items that could not be read')
    expect(await repaired.locator('code').innerText()).toBe(recovery.movedTo)
    expect(fs.existsSync(recovery.movedTo)).toBe(true)

    const held = notices.getByRole('alert').filter({ hasText: 'Another Vault Desk is syncing' })
    const heldText = await held.innerText()
    expect(heldText).toContain(`'vault-desk sync' (pid ${process.pid}`)
    expect(heldText).toContain(app.dataDir)
    expect(await held.locator('code').innerText()).toBe(path.join(app.dataDir, 'vault-desk.lock'))

    await page.screenshot({ path: app.screenshotPath('notices.png') })
    await checkAccessibility(page, 'the notices at start')
  })

  it('dismisses the repair by keyboard, and it stays dismissed in a new window', async () => {
    const { app, page } = suite
    const notices = page.getByRole('region', { name: 'Notices' })
    const dismiss = notices.getByRole('button', {
      name: 'Dismiss: The outbox was damaged and has been repaired',
    })
    await dismiss.focus()
    await page.keyboard.press('Enter')
    await notices.getByText('The outbox was damaged').waitFor({ state: 'detached' })
    expect(app.services.notices.list().map((notice) => notice.kind)).toEqual(['data-folder-held'])

    const again = await app.open()
    try {
      const held = again.page.getByRole('region', { name: 'Notices' }).getByRole('alert')
      await held.filter({ hasText: 'Another Vault Desk is syncing' }).waitFor()
      expect(await held.count()).toBe(1)
      expect(await again.problems()).toEqual([])
    } finally {
      await again.context.close()
    }
  })

  it('takes the held folder notice away once the other process lets go', async () => {
    const { app, page } = suite
    lock!.release()
    lock = null
    await page
      .getByRole('region', { name: 'Notices' })
      .waitFor({ state: 'detached', timeout: 20_000 })
    expect(app.services.notices.list()).toEqual([])
    await checkAccessibility(page, 'the window without notices')
  })
})
