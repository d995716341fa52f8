/**
 * A connection whose cache a newer Vault Desk wrote (a second install, a rollback): the services
 * refuse the cache untouched and say so on the connection's status as data (`localCopy`), so the
 * window can tell it from a sync that merely failed. "Newer" is a real cache, synced from the
 * simulator, whose `user_version` is then set above this build's newest step.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import type { ConnectionStatus } from '../../src-main/shared/connection-status.ts'
import type { ConnectionSyncState } from '../../src-main/shared/sync-status.ts'
import { cacheMigrations } from '../../src-main/store/cache-migrations.ts'
import { cacheFromNewerVersion, dispatching, nextEvent, testServices } from './support.ts'

const simDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-sim-'))
let sim: VaultSim

beforeAll(async () => {
  sim = await startVaultSim({ port: 0, seed: 2600, db: path.join(simDir, 'vault.db') })
})
afterAll(async () => {
  await sim.stop()
  fs.rmSync(simDir, { recursive: true, force: true })
})

/** The SHA-256 of every file of the connection's cache (the database and any WAL beside it). */
function cacheBytes(file: string): Record<string, string> {
  const folder = path.dirname(file)
  return Object.fromEntries(
    fs
      .readdirSync(folder)
      .filter((name) => name.startsWith(path.basename(file)))
      .map((name) => [
        name,
        crypto
          .createHash('sha256')
          .update(fs.readFileSync(path.join(folder, name)))
          .digest('hex'),
      ]),
  )
}

describe('a connection whose local copy a newer Vault Desk wrote', () => {
  it('is shown as such on its status, its sync is refused, and its cache is left byte for byte', async () => {
    const { dataDir, connectionId, file, step: newer } = await cacheFromNewerVersion(sim)
    const before = cacheBytes(file)
    expect(Object.keys(before)).toContain(path.basename(file))

    const second = testServices({ dataDir })
    try {
      const { call, dispatch } = dispatching(second.services)
      const statuses = await call<ConnectionStatus[]>('connections.status', {})
      expect(statuses).toEqual([
        expect.objectContaining({
          connectionId,
          online: false,
          localCopy: { reason: 'newer_version', schema: newer, known: cacheMigrations.length },
        }),
      ])

      const refused = nextEvent(
        second.services,
        'sync.changed',
        (state) => state.connectionId === connectionId && state.lastOutcome !== null,
      )
      expect((await dispatch('sync.start', { connectionId })).ok).toBe(true)
      const state: ConnectionSyncState = await refused
      expect(state.lastOutcome).toBe('failed')
      expect(state.lastError).toMatchObject({ code: 'storage' })
      expect(state.lastError?.message).toMatch(/newer Vault Desk/)

      // Sync of every connection (the window's "Sync now" for all) is not stopped by this one.
      const all = await call<{ connectionIds: string[] }>('sync.start', {})
      expect(all.connectionIds).toEqual([connectionId])
      await dispatch('connections.status', {})
      expect(cacheBytes(file)).toEqual(before)

      // Removing it here would take it from the newer version too (one data folder): refused.
      for (const deleteCache of [true, false]) {
        const removal = await dispatch('connections.remove', { connectionId, deleteCache })
        expect(removal).toMatchObject({ ok: false, error: { code: 'conflict' } })
        expect(removal.ok ? '' : removal.error.message).toMatch(
          /belongs to a newer Vault Desk.*not removed and nothing of it was deleted/,
        )
      }
      expect((await call<{ id: string }[]>('connections.list', {})).map(({ id }) => id)).toEqual([
        connectionId,
      ])
      expect(cacheBytes(file)).toEqual(before)
    } finally {
      await second.dispose()
    }
  })
})
