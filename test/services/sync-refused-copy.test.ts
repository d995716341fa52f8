/**
 * Scheduled syncs of a connection whose cache a newer Vault Desk wrote: refused once, logged
 * once, and left alone by the schedule until the cache's files change on disk or the person asks.
 * A real cache synced from the simulator, then set to a newer schema step; only the scheduler's
 * timers are fake (an interval is a minute at least).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { cacheMigrations } from '../../src-main/store/cache-migrations.ts'
import { cacheFromNewerVersion, setCacheSchemaStep, testServices } from './support.ts'

const simDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-sim-'))
let sim: VaultSim

beforeAll(async () => {
  sim = await startVaultSim({ port: 0, seed: 2601, db: path.join(simDir, 'vault.db') })
})
afterEach(() => {
  vi.useRealTimers()
})
afterAll(async () => {
  await sim.stop()
  fs.rmSync(simDir, { recursive: true, force: true })
})

const minute = 60_000

describe('the sync schedule of a connection whose local copy a newer Vault Desk wrote', () => {
  it('tries it once, logs once, and tries again only when its files change or a sync is asked', async () => {
    const { dataDir, connectionId, file } = await cacheFromNewerVersion(sim)

    const logged: string[] = []
    const second = testServices({ dataDir, mirrorLog: (line) => logged.push(line) })
    const refusals = () => logged.filter((line) => line.includes('belongs to a newer Vault Desk'))
    const attempts = () =>
      logged.filter(
        (line) => line.includes('sync scheduled') || line.includes('belongs to a newer'),
      )
    try {
      const { sync } = second.services
      sync.configure({ intervalMinutes: 1 })
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
      sync.startScheduling()
      await vi.advanceTimersByTimeAsync(0)
      expect(refusals()).toHaveLength(1)
      const state = () => sync.states().find((one) => one.connectionId === connectionId)!
      expect(state()).toMatchObject({
        lastOutcome: 'failed',
        lastError: { code: 'storage', message: expect.stringMatching(/newer Vault Desk/) },
      })
      // Its files are looked at each interval, and nothing more is tried or logged.
      expect(state().nextSyncAt).not.toBeNull()
      const triedBefore = attempts().length
      await vi.advanceTimersByTimeAsync(10 * minute)
      expect(refusals()).toHaveLength(1)
      expect(attempts()).toHaveLength(triedBefore)

      // The newer build wrote to it: the next interval tries again (and is refused again).
      setCacheSchemaStep(file, cacheMigrations.length + 3)
      await vi.advanceTimersByTimeAsync(minute)
      expect(refusals()).toHaveLength(2)
      await vi.advanceTimersByTimeAsync(10 * minute)
      expect(refusals()).toHaveLength(2)

      // The person asks: tried at once, whatever the files.
      sync.startNow(connectionId)
      await vi.advanceTimersByTimeAsync(0)
      expect(refusals()).toHaveLength(3)
      expect(state().lastError?.message).toMatch(/newer Vault Desk/)
    } finally {
      vi.useRealTimers()
      await second.dispose()
    }
  })
})
