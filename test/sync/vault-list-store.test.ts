import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppError } from '../../src-main/shared/app-error.ts'
import type { CacheWriter } from '../../src-main/store/cache-writer.ts'
import { connectionVaultId } from '../../src-main/store/vault-cache.ts'
import type { WriteBatch } from '../../src-main/store/write-batch.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { clientOf, pull, simProxy, startDemoSim, temporaryCache } from './support.ts'

let sim: VaultSim
beforeAll(async () => {
  sim = await startDemoSim()
})
afterAll(() => sim.stop())

const storesVaultList = (batch: WriteBatch) => batch.writes.some((write) => write.type === 'vaults')

/** The writer's commit of the vault list goes through `instead`; every other commit as usual. */
function interceptVaultList(
  writer: CacheWriter,
  instead: (store: () => ReturnType<CacheWriter['commit']>) => ReturnType<CacheWriter['commit']>,
): void {
  const commit = writer.commit.bind(writer)
  writer.commit = (batch, options) =>
    storesVaultList(batch) ? instead(() => commit(batch, options)) : commit(batch, options)
}

describe('the vault list of a pull', () => {
  it('is stored while the pull of its vaults begins', async () => {
    const main = sim.cast.vaults.main.id
    let vaultRequested = () => {}
    const requested = new Promise<void>((resolve) => (vaultRequested = resolve))
    const proxy = await simProxy(sim, (request, forward) => {
      if (request.url?.includes(`/vaults/${main}/`)) vaultRequested()
      forward()
    })
    const { cache, dispose } = temporaryCache()
    const events: string[] = []
    // Stored only once a request of the vault went out: a pull that waited for the list to be
    // stored first would wait here until the fallback.
    let timer: NodeJS.Timeout | undefined
    const fallback = new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000)))
    interceptVaultList(cache.writer, async (store) => {
      await Promise.race([requested.then(() => events.push('vault requested')), fallback])
      const results = await store()
      events.push('list stored')
      return results
    })
    try {
      const result = await pull(clientOf(sim, 'admin', { baseUrl: proxy.baseUrl }), cache, {
        vaultIds: [main],
        observer: {
          progress: () => {},
          changed: (_vaultId, kind) => {
            if (kind === 'vaults') events.push('vaults changed')
          },
        },
      })
      expect(events).toEqual(['vault requested', 'list stored', 'vaults changed'])
      expect(result.vaults[0]!.failures).toEqual([])
      expect(cache.counts()[main]?.molecules).toBeGreaterThan(0)
      const stored = cache
        .list('vaults', connectionVaultId, { limit: 100 })
        .records.map((vault) => vault.id)
      expect(stored).toContain(main)
    } finally {
      clearTimeout(timer)
      await proxy.close()
      await dispose()
    }
  })

  it('that cannot be stored stops the pull, which throws why', async () => {
    const main = sim.cast.vaults.main.id
    const { cache, dispose } = temporaryCache()
    const failure = new AppError('storage', 'The disk is full.')
    interceptVaultList(cache.writer, () => Promise.reject(failure))
    try {
      await expect(pull(clientOf(sim), cache, { vaultIds: [main] })).rejects.toBe(failure)
      expect(cache.lastSyncs()).toEqual([])
    } finally {
      await dispose()
    }
  })
})
