import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { VaultSim } from '../../src-sim/index.ts'
import { cachedIds, clientOf, pull, startDemoSim, temporaryCache } from './support.ts'

let sim: VaultSim
beforeAll(async () => {
  sim = await startDemoSim()
})
afterAll(() => sim.stop())

async function serverIds(list: AsyncIterable<number>): Promise<number[]> {
  const ids: number[] = []
  for await (const id of list) ids.push(id)
  return ids.sort((a, b) => a - b)
}

describe('a storm of server errors', () => {
  it('is ridden out with retries; what fails is pulled by the next sync, never twice, never over the limit', async () => {
    const { cache, dispose } = temporaryCache()
    const client = clientOf(sim)
    const main = sim.cast.vaults.main.id
    try {
      sim.resetStats()
      sim.faults.set({ serverErrorRate: 0.35, serverErrorStatus: 503, seed: 7 })
      const stormy = await pull(client, cache, { exportThreshold: 1000 })
      sim.faults.clear()
      expect(sim.stats.injected.serverErrors).toBeGreaterThan(10)
      const server = await serverIds(client.molecules.queryIds(main, {}))
      const cachedDuringStorm = cachedIds(cache, 'molecules', main)
      expect(cachedDuringStorm.every((id) => server.includes(id))).toBe(true)
      expect(new Set(cachedDuringStorm).size).toBe(cachedDuringStorm.length)

      const calm = await pull(client, cache, { exportThreshold: 1000 })
      expect(calm.vaults.flatMap((vault) => vault.failures)).toEqual([])
      expect(cachedIds(cache, 'molecules', main)).toEqual(server)
      expect(cachedIds(cache, 'readout_rows', main)).toEqual(
        await serverIds(client.readoutRows.queryIds(main, {})),
      )
      expect(stormy.vaults.map((vault) => vault.vaultId)).toEqual(
        calm.vaults.map((vault) => vault.vaultId),
      )
      // The per-user limit (3 in flight) was never exceeded, storm or not.
      expect(sim.stats.concurrencyRejections).toBe(0)
      expect(sim.stats.maxInFlightPerUser).toBeLessThanOrEqual(3)
    } finally {
      sim.faults.clear()
      await dispose()
    }
  })

  it('stops at the first request the network loses, keeping every committed page', async () => {
    const { cache, dispose } = temporaryCache()
    const client = clientOf(sim, 'admin', {
      retry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 10 },
    })
    const main = sim.cast.vaults.main.id
    try {
      sim.faults.set({ dropRate: 1, match: 'readout_rows' })
      const error = await pull(client, cache).then(
        () => null,
        (caught: unknown) => caught,
      )
      expect(error).toMatchObject({ kind: 'network' })
      // Everything pulled before readout rows is there.
      expect(cache.counts()[main]?.molecules).toBe(2000)
      sim.faults.clear()
      await pull(client, cache)
      expect(cache.counts()[main]?.readout_rows).toBeGreaterThan(0)
    } finally {
      sim.faults.clear()
      await dispose()
    }
  })
})
