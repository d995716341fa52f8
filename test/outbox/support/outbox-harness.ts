import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll } from 'vitest'
import { VaultClient } from '../../../src-main/api/client.ts'
import { LimiterRegistry } from '../../../src-main/api/limiter-registry.ts'
import { EventBus, type AppEventName } from '../../../src-main/shared/events.ts'
import { silentLogger } from '../../../src-main/shared/logger.ts'
import { VaultCache } from '../../../src-main/store/vault-cache.ts'
import { Outbox, type OutboxOptions } from '../../../src-main/sync/outbox/outbox.ts'
import type { OutboxItemView } from '../../../src-common/outbox/item-view.ts'
import { startVaultSim, type VaultSim, type VaultSimOptions } from '../../../src-sim/index.ts'

export type UserKey = 'admin' | 'writer' | 'reader' | 'outsider'

export const connectionId = 'lab'

export interface OutboxUnderTest {
  outbox: Outbox
  cache: VaultCache
  client: VaultClient
  events: { name: AppEventName; payload: unknown }[]
  dataDir: string
}

export interface OutboxHarness {
  readonly sim: VaultSim
  readonly vaultId: number
  /** The first `count` molecules of the main vault on the server, by id. */
  moleculeIds(count: number): number[]
  token(user?: UserKey): string
  /** A client as the outbox uses it: no retries of its own, its own limiter registry. */
  client(user?: UserKey, limiters?: LimiterRegistry): VaultClient
  /** An outbox over a fresh data directory; stopped and removed after the test. */
  open(options?: {
    user?: UserKey
    client?: VaultClient
    dataDir?: string
    tuning?: Partial<OutboxOptions>
  }): OutboxUnderTest
}

/**
 * One simulator per suite over real HTTP, and outboxes over real SQLite files in temporary data
 * directories, with fast retries and polling so that a suite does not wait on production delays.
 */
export function useOutboxHarness(simOptions: VaultSimOptions = {}): OutboxHarness {
  let sim: VaultSim | undefined
  const opened: { outbox: Outbox; cache: VaultCache; dataDir: string }[] = []
  beforeAll(async () => {
    sim = await startVaultSim({ port: 0, seed: 40, ...simOptions })
  })
  afterEach(async () => {
    for (const { outbox, cache, dataDir } of opened.splice(0)) {
      await outbox.close()
      await cache.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
    sim?.faults.clear()
  })
  afterAll(async () => {
    await sim?.stop()
    removeTempFiles()
  })
  const running = () => {
    if (!sim) throw new Error('The simulator has not started.')
    return sim
  }
  const token = (user: UserKey = 'admin') => running().cast.users[user].tokens[0]!
  const client = (user: UserKey = 'admin', limiters = new LimiterRegistry()) =>
    new VaultClient({
      baseUrl: running().baseUrl,
      token: token(user),
      limiters,
      retry: { attempts: 1 },
      timeoutMs: 20_000,
    })
  return {
    get sim() {
      return running()
    },
    get vaultId() {
      return running().cast.vaults.main.id
    },
    moleculeIds(count) {
      const rows = running()
        .core.db.prepare('SELECT id FROM molecules WHERE vault_id = ? ORDER BY id LIMIT ?')
        .all(running().cast.vaults.main.id, count) as { id: number }[]
      return rows.map((row) => row.id)
    },
    token,
    client,
    open(options = {}) {
      const dataDir =
        options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-outbox-'))
      const { cache } = VaultCache.open(path.join(dataDir, 'caches', `${connectionId}.db`))
      const vaultClient = options.client ?? client(options.user)
      const bus = new EventBus((error) => {
        throw error
      })
      const events: OutboxUnderTest['events'] = []
      bus.onAny((name, payload) => events.push({ name, payload }))
      const outbox = new Outbox({
        dataDir,
        connection: (id) => {
          if (id !== connectionId) throw new Error(`No connection ${id} in this test.`)
          return { client: vaultClient, cache }
        },
        connectionName: () => 'Lab vault',
        events: bus,
        log: silentLogger,
        retry: { baseDelayMs: 5, maxDelayMs: 40 },
        pollMs: 50,
        importPollMs: 20,
        progressIntervalMs: 10,
        ...options.tuning,
      })
      opened.push({ outbox, cache, dataDir })
      return { outbox, cache, client: vaultClient, events, dataDir }
    },
  }
}

/** Waits until `check` holds, looking every few milliseconds; fails with `what` after a minute. */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Waits until no item of the outbox is queued or being sent. */
export function settled(outbox: Outbox): Promise<void> {
  return waitUntil('the outbox has settled', () => {
    const counts = outbox.counts()
    return counts.queued === 0 && counts.sending === 0
  })
}

export function byState(items: readonly OutboxItemView[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const item of items) counts[item.state] = (counts[item.state] ?? 0) + 1
  return counts
}

let filesRoot: string | undefined

/** A small file in a temporary folder, for uploads; `removeTempFiles` deletes them all. */
export function tempFile(name: string, contents: string | Buffer): string {
  filesRoot ??= fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-files-'))
  const dir = fs.mkdtempSync(path.join(filesRoot, 'file-'))
  const file = path.join(dir, name)
  fs.writeFileSync(file, contents)
  return file
}

export function removeTempFiles(): void {
  if (filesRoot) fs.rmSync(filesRoot, { recursive: true, force: true })
  filesRoot = undefined
}
