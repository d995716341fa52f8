import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openCacheDatabase } from '../../src-main/store/cache-database.ts'
import { cacheFile } from '../../src-main/store/cache-files.ts'
import { cacheMigrations } from '../../src-main/store/cache-migrations.ts'
import { requirement } from '../support/environment.ts'
import { checkAccessibility } from './support/accessibility.ts'
import { chromiumInstalled } from './support/chromium.ts'
import { suiteWindow } from './support/suite-window.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

const connection = { id: 'bench', name: 'Bench vault', baseUrl: 'https://vault.example.org' }
const newerSchema = cacheMigrations.length + 4

const digest = (file: string) =>
  crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')

/**
 * A connection whose local copy a newer Vault Desk wrote (a real cache at this build's newest
 * step, its `user_version` then set beyond it), as a person who opened an older install sees it:
 * said plainly beside the connection, on its page and in the sync panel; no token asked for, no
 * sync offered, and the file left byte for byte.
 */
describe.runIf(available)('a local copy from a newer Vault Desk, in Chromium', () => {
  let file: string
  let before: string
  const suite = suiteWindow({
    prepare: (dataDir) => {
      file = cacheFile(dataDir, connection.id)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      openCacheDatabase(file).db.close()
      const db = new Database(file)
      db.pragma('journal_mode = DELETE')
      db.pragma(`user_version = ${newerSchema}`)
      db.close()
      before = digest(file)
    },
    beforeOpen: (app) => app.addConnection(connection),
  })

  it('says whose copy it is, that nothing was changed, and to open the newer version', async () => {
    const { app, page } = suite
    const line = page.getByRole('listitem').filter({ hasText: connection.name })
    await line.getByText('Newer version’s copy').waitFor()
    expect(await page.getByText(`${connection.name} needs its token again`).count()).toBe(0)

    await page.getByRole('button', { name: `Manage ${connection.name}` }).click()
    const dialog = page.getByRole('dialog', { name: connection.name })
    const explanation = dialog.getByRole('status').filter({ hasText: 'newer version' })
    await explanation.waitFor()
    const text = await explanation.innerText()
    expect(text).toContain(
      `format ${newerSchema}; this version reads up to ${cacheMigrations.length}`,
    )
    expect(text).toContain('nothing in it was changed or lost')
    expect(text).toContain('Open the newer Vault Desk')
    await dialog.getByText('Not needed while this version cannot open the local copy').waitFor()
    for (const offer of ['Sync now', 'New token…', 'Set budget', 'Remove…']) {
      expect(await dialog.getByRole('button', { name: offer }).count()).toBe(0)
    }
    await page.screenshot({ path: app.screenshotPath('newer-local-copy.png') })
    await checkAccessibility(page, 'a connection whose local copy is newer')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })

    await page.getByRole('group', { name: 'Sync status' }).getByRole('button').first().click()
    const panel = page.getByRole('dialog', { name: 'Sync' })
    const section = panel.getByRole('region', { name: `Sync of ${connection.name}` })
    await section.getByText('nothing in it was changed or lost').waitFor()
    expect(await section.getByRole('button', { name: 'Sync now' }).count()).toBe(0)

    // Said once, plainly: no reader of the cache (vaults, attachments) reports the raw refusal.
    expect(await page.getByText('written by a newer Vault Desk (schema').count()).toBe(0)
    expect(await page.getByText('Could not read').count()).toBe(0)

    expect(fs.existsSync(`${file}-wal`)).toBe(false)
    expect(digest(file)).toBe(before)
  })
})
