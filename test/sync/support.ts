import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { LimiterRegistry, VaultClient, type VaultClientOptions } from '../../src-main/api/index.ts'
import { silentLogger } from '../../src-main/shared/logger.ts'
import type { RecordKindName } from '../../src-main/store/record-kinds.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import {
  pullConnection,
  type ConnectionPullOptions,
  type ConnectionPullResult,
} from '../../src-main/sync/connection-pull.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'

export type CastUser = 'admin' | 'writer' | 'reader' | 'outsider'

/** A client of a cast member, with its own limiter and fast export polling and backoff. */
export function clientOf(
  sim: VaultSim,
  user: CastUser = 'admin',
  options: Partial<VaultClientOptions> = {},
): VaultClient {
  return new VaultClient({
    baseUrl: sim.baseUrl,
    token: sim.cast.users[user].tokens[0]!,
    limiters: new LimiterRegistry(),
    exportPolling: { minIntervalMs: 5, maxIntervalMs: 20 },
    retry: { baseDelayMs: 5, maxDelayMs: 50 },
    ...options,
  })
}

/** A cache in a fresh temporary folder; `dispose` closes it and deletes the folder. */
export function temporaryCache(): {
  cache: VaultCache
  file: string
  dispose: () => Promise<void>
} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-sync-'))
  const file = path.join(dir, 'cache.db')
  const { cache } = VaultCache.open(file)
  return {
    cache,
    file,
    dispose: async () => {
      // Closing twice is harmless (a test may have closed it already).
      await cache.close()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

export interface ProgressLine {
  vaultId: number
  kind: RecordKindName
  done: number
  total: number | null
}

/** Pulls a connection into a cache, recording progress. */
export async function pull(
  client: VaultClient,
  cache: VaultCache,
  options: Partial<ConnectionPullOptions> = {},
): Promise<ConnectionPullResult & { progress: ProgressLine[] }> {
  const progress: ProgressLine[] = []
  const result = await pullConnection({
    client,
    cache,
    log: silentLogger,
    signal: new AbortController().signal,
    observer: {
      progress: (vaultId, kind, done, total) => progress.push({ vaultId, kind, done, total }),
      changed: () => {},
    },
    ...options,
  })
  return { ...result, progress }
}

/** Ids of every record of a kind in a vault of the cache, sorted. */
export function cachedIds(cache: VaultCache, kind: string, vaultId: number): number[] {
  const ids: number[] = []
  for (let offset = 0; ; offset += 1000) {
    const page = cache.list(kind, vaultId, { sort: 'id', limit: 1000, offset })
    ids.push(...page.records.map((record) => Number(record.id)))
    if (page.records.length < 1000) return ids
  }
}

export interface SimProxy {
  baseUrl: string
  close(): Promise<void>
}

/**
 * The simulator seen through a proxy on loopback. `handle` gets each request with `forward`,
 * which passes it on and answers with what the simulator answered, its headers through
 * `headersOf`; by default every request is forwarded as it comes.
 */
export async function simProxy(
  sim: VaultSim,
  handle: (request: http.IncomingMessage, forward: () => void) => void = (_, forward) => forward(),
  headersOf: (headers: http.IncomingHttpHeaders) => http.OutgoingHttpHeaders = (headers) => headers,
): Promise<SimProxy> {
  const target = new URL(sim.baseUrl)
  const server = http.createServer((request, response) => {
    handle(request, () => {
      const forwarded = http.request(
        {
          host: target.hostname,
          port: target.port,
          method: request.method,
          path: request.url,
          headers: request.headers,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, headersOf(answer.headers))
          answer.pipe(response)
        },
      )
      forwarded.on('error', () => response.destroy())
      request.pipe(forwarded)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * The simulator seen through a proxy that stamps each answer's `Date` header with the simulator's
 * own clock, as a real server's Date and timestamps come from one clock. The simulator itself
 * stamps the wall clock, which tests that freeze or move its clock would then see disagree.
 */
export function simClockProxy(sim: VaultSim): Promise<SimProxy> {
  return simProxy(sim, undefined, (headers) => ({
    ...headers,
    date: new Date(sim.clock.nowMillis()).toUTCString(),
  }))
}

/** The demo seed's simulator, its exports made in a few tens of milliseconds. */
export function startDemoSim(): Promise<VaultSim> {
  return startDemoSnapshotSim({
    port: 0,
    exportTiming: { startDelayMs: 5, durationMs: 20 },
  })
}

export interface ClockedDemoVault {
  sim: VaultSim
  /** The demo's main vault. */
  main: number
  /** An administrator's client, through the proxy that dates answers by the simulator's clock. */
  client: VaultClient
  /** A fresh cache for each test, already holding a first pull of the main vault. */
  cache: VaultCache
}

/**
 * The demo vault behind a clock proxy for the file's tests; each test starts from a fresh cache
 * synced once, and with the simulator's clock running again.
 */
export function useClockedDemoVault(): ClockedDemoVault {
  const demo = {} as ClockedDemoVault
  let proxy: SimProxy
  let dispose: () => Promise<void>
  beforeAll(async () => {
    demo.sim = await startDemoSim()
    proxy = await simClockProxy(demo.sim)
    demo.main = demo.sim.cast.vaults.main.id
  })
  afterAll(async () => {
    await proxy.close()
    await demo.sim.stop()
  })
  beforeEach(async () => {
    ;({ cache: demo.cache, dispose } = temporaryCache())
    demo.client = clientOf(demo.sim, 'admin', { baseUrl: proxy.baseUrl })
    await pull(demo.client, demo.cache, { vaultIds: [demo.main] })
  })
  afterEach(async () => {
    demo.sim.clock.resume()
    await dispose()
  })
  return demo
}
