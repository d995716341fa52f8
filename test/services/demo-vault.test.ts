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
})
