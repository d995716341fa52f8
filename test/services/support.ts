import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { LimiterRegistry } from '../../src-main/api/index.ts'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import {
  createServices,
  type ServiceOptions,
  type Services,
} from '../../src-main/services/index.ts'
import type { AppEventName, AppEvents } from '../../src-main/shared/events.ts'
import { cacheFile } from '../../src-main/store/cache-files.ts'
import { cacheMigrations } from '../../src-main/store/cache-migrations.ts'
import type { VaultCache } from '../../src-main/store/vault-cache.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'

/** Real services on a temporary data folder, with fast export polling, backoff and probes. */
export function testServices(options: Partial<ServiceOptions> = {}): {
  services: Services
  dataDir: string
  dispose: () => Promise<void>
} {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-services-'))
  const services = createServices({
    host: 'web',
    dataDir,
    background: false,
    client: {
      limiters: new LimiterRegistry(),
      exportPolling: { minIntervalMs: 5, maxIntervalMs: 20 },
      retry: { baseDelayMs: 5, maxDelayMs: 50 },
    },
    probeBackoff: { baseDelayMs: 20, maxDelayMs: 200 },
    ...options,
  })
  return {
    services,
    dataDir,
    dispose: async () => {
      await services.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Every event of the services, in order. */
export function recordEvents(services: Services): { name: AppEventName; payload: unknown }[] {
  const seen: { name: AppEventName; payload: unknown }[] = []
  services.events.onAny((name, payload) => seen.push({ name, payload }))
  return seen
}

/** Resolves with the first payload of `event` that passes `test`. */
export function nextEvent<E extends AppEventName>(
  services: Services,
  event: E,
  test: (payload: AppEvents[E]) => boolean = () => true,
): Promise<AppEvents[E]> {
  return new Promise((resolve) => {
    const off = services.events.on(event, (payload) => {
      if (!test(payload)) return
      off()
      resolve(payload)
    })
  })
}

/** Every file under a folder, for checking that a secret was written nowhere. */
export function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
}

export function fileContains(file: string, text: string): boolean {
  return fs.readFileSync(file).includes(Buffer.from(text, 'utf8'))
}

/** Calls a channel through the services' dispatcher; an error answer is thrown, named. */
export type Call = <T>(channel: string, args: unknown) => Promise<T>

/** The services' dispatcher, as the window reaches them, and `call` through it. */
export function dispatching(services: Services): { dispatch: Dispatch; call: Call } {
  const dispatch = createDispatcher(createHandlers(services), services.log)
  const call: Call = async <T>(channel: string, args: unknown): Promise<T> => {
    const result = await dispatch(channel, args)
    if (!result.ok) {
      throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`)
    }
    return result.value as T
  }
  return { dispatch, call }
}

/**
 * Adds a session-only connection through `call`, as the window does, and waits until its first
 * sync has completed; answers the connection's id.
 */
export async function connectAndSync(
  services: Services,
  call: Call,
  connection: { name: string; baseUrl: string; token: string },
): Promise<string> {
  const added = await call<{ connection: { id: string } }>('connections.add', {
    ...connection,
    sessionOnly: true,
  })
  const connectionId = added.connection.id
  const synced = nextEvent(
    services,
    'sync.changed',
    (state) => state.connectionId === connectionId && !state.running,
  )
  await call('sync.start', { connectionId })
  const outcome = (await synced).lastOutcome
  if (outcome !== 'completed') throw new Error(`The first sync ended ${String(outcome)}.`)
  return connectionId
}

export interface SyncedDemo {
  /** Serves a copy of the demo vault's snapshot; a suite may stop it to work offline. */
  sim: VaultSim
  services: Services
  call: Call
  connectionId: string
  /** The demo's main vault. */
  vaultId: number
  cache: VaultCache
  /** Stops the simulator (unless stopped already) and the services; removes the data folder. */
  dispose: () => Promise<void>
}

/**
 * Real services connected, as the window connects, to the demo vault served over real HTTP by the
 * simulator, after their first sync has completed: what suites over a synced demo vault start
 * from. A failed start stops what it had started.
 */
export async function syncedDemoServices(): Promise<SyncedDemo> {
  const sim = await startDemoSnapshotSim({ port: 0 })
  const started = testServices()
  const dispose = async () => {
    await sim.stop().catch(() => {})
    await started.dispose()
  }
  try {
    const { services } = started
    const { call } = dispatching(services)
    const connectionId = await connectAndSync(services, call, {
      name: 'Lab',
      baseUrl: sim.baseUrl,
      token: sim.cast.users.admin.tokens[0]!,
    })
    const cache = services.runtimes.get(connectionId).cache
    return { sim, services, call, connectionId, vaultId: sim.cast.vaults.main.id, cache, dispose }
  } catch (error) {
    await dispose()
    throw error
  }
}

/** Sets a cache's schema step, as a newer build's upgrade (or its next write) leaves it. */
export function setCacheSchemaStep(file: string, step: number): void {
  const db = new Database(file)
  try {
    db.pragma(`user_version = ${step}`)
  } finally {
    db.close()
  }
}

/**
 * A data folder holding one connection synced from `sim` by services since closed, whose cache's
 * schema step is then set `ahead` of this build's newest: a local copy a newer Vault Desk wrote.
 */
export async function cacheFromNewerVersion(
  sim: VaultSim,
  ahead = 2,
): Promise<{ dataDir: string; connectionId: string; file: string; step: number }> {
  const first = testServices()
  const connectionId = await connectAndSync(first.services, dispatching(first.services).call, {
    name: 'Lab',
    baseUrl: sim.baseUrl,
    token: sim.cast.users.admin.tokens[0]!,
  })
  await first.services.close()
  const file = cacheFile(first.dataDir, connectionId)
  const step = cacheMigrations.length + ahead
  setCacheSchemaStep(file, step)
  return { dataDir: first.dataDir, connectionId, file, step }
}
