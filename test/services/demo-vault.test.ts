import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { createDispatcher } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import { nextEvent, testServices } from './support.ts'

describe('the demo vault', () => {
  it('starts the simulator in-process, adds its connection and syncs it; reopened, it keeps both', async () => {
    const first = testServices({ background: true })
    const dispatch = createDispatcher(createHandlers(first.services), first.services.log)
    let baseUrl: string
    let connectionId: string
    try {
      const synced = nextEvent(
        first.services,
        'sync.changed',
        (state) => state.lastOutcome === 'completed',
      )
      const opened = await dispatch('demo.open', {})
      expect(opened).toMatchObject({
        ok: true,
        value: { connection: { name: 'Demo vault' }, tokenPlace: 'session' },
      })
      if (!opened.ok) return
      const value = opened.value as { connection: { id: string; baseUrl: string } }
      ;({ id: connectionId, baseUrl } = value.connection)
      // Opening again while it runs answers the same connection.
      expect(await dispatch('demo.open', {})).toEqual(opened)
      await synced
      expect(await first.services.connections.statuses()).toEqual([
        expect.objectContaining({ connectionId, demo: true, online: true }),
      ])
      const vaults = first.services.browse.vaults(connectionId)
      expect(vaults.find((vault) => vault.name === 'Vault Desk Demo')?.counts.molecules).toBe(2000)
    } finally {
      await first.services.close()
    }
    await expect(fetch(`${baseUrl}/vaults`)).rejects.toThrow()

    const second = testServices({ dataDir: first.dataDir, background: true })
    try {
      const cached = second.services.browse.vaults(connectionId)
      expect(cached.find((vault) => vault.name === 'Vault Desk Demo')?.counts.molecules).toBe(2000)
      const synced = nextEvent(
        second.services,
        'sync.changed',
        (state) => state.lastOutcome === 'completed',
      )
      const reopened = await second.services.demo.open()
      expect(reopened.connection.id).toBe(connectionId)
      await synced
    } finally {
      await second.dispose()
      await first.dispose()
    }
  })

  it('sets aside a demo file made by an older simulator and starts afresh', async () => {
    const { services, dataDir, dispose } = testServices()
    try {
      const folder = path.join(dataDir, 'demo-vault')
      fs.mkdirSync(folder, { recursive: true })
      const old = new Database(path.join(folder, 'vault.db'))
      old.exec(`CREATE TABLE sim_meta (key TEXT PRIMARY KEY, value TEXT);
        INSERT INTO sim_meta VALUES ('schema', 'an older simulator''s tables')`)
      old.close()
      const opened = await services.demo.open()
      expect(opened.connection.name).toBe('Demo vault')
      const asides = fs.readdirSync(folder).filter((name) => name.startsWith('replaced-'))
      expect(asides).toHaveLength(1)
      expect(fs.readdirSync(path.join(folder, asides[0]!))).toContain('vault.db')
      expect(opened.vaults.map((vault) => vault.name)).toContain('Vault Desk Demo')
    } finally {
      await dispose()
    }
  })
})
