import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { LimiterRegistry, VaultClient, type VaultClientOptions } from '../../src-main/api/index.ts'
import { silentLogger } from '../../src-main/shared/logger.ts'
import type { RecordKindName } from '../../src-main/store/record-kinds.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import {
  pullConnection,
  type ConnectionPullOptions,
  type ConnectionPullResult,
} from '../../src-main/sync/connection-pull.ts'
import type { VaultSim } from '../../src-sim/index.ts'

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
export function temporaryCache(): { cache: VaultCache; file: string; dispose: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-sync-'))
  const file = path.join(dir, 'cache.db')
  const { cache } = VaultCache.open(file)
  return {
    cache,
    file,
    dispose: () => {
      try {
        cache.close()
      } catch {
        // closed by the test already
      }
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

/**
 * The simulator seen through a proxy that stamps each answer's `Date` header with the simulator's
 * own clock, as a real server's Date and timestamps come from one clock. The simulator itself
 * stamps the wall clock, which tests that freeze or move its clock would then see disagree.
 */
export async function simClockProxy(
  sim: VaultSim,
): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const target = new URL(sim.baseUrl)
  const server = http.createServer((request, response) => {
    const forwarded = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
      },
      (answer) => {
        const date = new Date(sim.clock.nowMillis()).toUTCString()
        response.writeHead(answer.statusCode ?? 502, { ...answer.headers, date })
        answer.pipe(response)
      },
    )
    forwarded.on('error', () => response.destroy())
    request.pipe(forwarded)
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
