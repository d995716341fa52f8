import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../src-main/api/index.ts'
import { silentLogger } from '../../src-main/shared/logger.ts'
import { pullConnection } from '../../src-main/sync/connection-pull.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { clientOf, simProxy, type SimProxy, startDemoSim, temporaryCache } from './support.ts'

let sim: VaultSim
beforeAll(async () => {
  sim = await startDemoSim()
})
afterAll(() => sim.stop())

/** The listings of molecules: the first page's count, pages, and the export's making. */
const moleculeListing = /^\/api\/v1\/vaults\/\d+\/molecules(\/query)?(\?|$)/

/**
 * The simulator behind a proxy that holds back the requests `held` picks until `released`
 * settles, then forwards them, and answers those `lost` picks by closing the connection, as a
 * network gone would; the others go through at once.
 */
function gatedProxy(
  held: (url: string) => boolean,
  released: Promise<void>,
  lost: (url: string) => boolean = () => false,
): Promise<SimProxy> {
  return simProxy(sim, (request, forward) => {
    const url = request.url ?? ''
    if (lost(url)) request.socket.destroy()
    else if (held(url)) void released.then(forward)
    else forward()
  })
}

describe('the kinds of a vault, pulled in two lanes side by side', () => {
  it('stores every other kind while the molecules are held back, and the batches after them', async () => {
    const main = sim.cast.vaults.main.id
    let release = () => {}
    const released = new Promise<void>((resolve) => (release = resolve))
    // Pulled one kind after the other, the molecules would wait for ever: let them go in time
    // for the order below to fail instead.
    const fallback = setTimeout(release, 5_000)
    const proxy = await gatedProxy((url) => moleculeListing.test(url), released)
    const { cache, dispose } = temporaryCache()
    const kinds: string[] = []
    try {
      sim.resetStats()
      const result = await pullConnection({
        client: clientOf(sim, 'admin', { baseUrl: proxy.baseUrl }),
        cache,
        log: silentLogger,
        signal: new AbortController().signal,
        vaultIds: [main],
        observer: {
          progress: (vaultId, kind) => {
            if (vaultId !== main) return
            kinds.push(kind)
            if (kind === 'vault_status') release()
          },
          changed: () => {},
        },
      })
      expect(result.vaults[0]!.failures).toEqual([])
      expect(kinds.indexOf('vault_status')).toBeGreaterThan(kinds.indexOf('readout_rows'))
      expect(kinds.indexOf('molecules')).toBeGreaterThan(kinds.indexOf('vault_status'))
      expect(kinds.indexOf('batches')).toBeGreaterThan(kinds.lastIndexOf('molecules'))
      let serverMolecules = 0
      for await (const _ of clientOf(sim).molecules.queryIds(main, {})) serverMolecules++
      expect(serverMolecules).toBeGreaterThan(0)
      expect(cache.counts()[main]?.molecules).toBe(serverMolecules)
      expect(cache.counts()[main]?.batches).toBeGreaterThan(0)
      expect(sim.stats.maxInFlightPerUser).toBeLessThanOrEqual(3)
    } finally {
      clearTimeout(fallback)
      release()
      await proxy.close()
      await dispose()
    }
  })

  it('stops the other lane at once when one meets a failure of the whole connection', async () => {
    const main = sim.cast.vaults.main.id
    // The molecules never come; a kind of the other lane (one pulled after the molecules were
    // the kinds pulled one after the other) then loses the network.
    const proxy = await gatedProxy(
      (url) => moleculeListing.test(url),
      new Promise(() => {}),
      (url) => url.includes('/collections'),
    )
    const { cache, dispose } = temporaryCache()
    try {
      const pulled = pullConnection({
        client: clientOf(sim, 'admin', {
          baseUrl: proxy.baseUrl,
          retry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 10 },
        }),
        cache,
        log: silentLogger,
        signal: new AbortController().signal,
        vaultIds: [main],
        observer: { progress: () => {}, changed: () => {} },
      })
      const error = await pulled.catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(ApiError)
      expect((error as ApiError).kind).toBe('network')
      expect(cache.counts()[main]?.molecules ?? 0).toBe(0)
    } finally {
      await proxy.close()
      await dispose()
    }
  })
})
