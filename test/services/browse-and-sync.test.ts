import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type { Services } from '../../src-main/services/index.ts'
import type { ConnectionSyncState } from '../../src-main/shared/sync-status.ts'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { copyDemoSnapshot } from '../support/demo-snapshot.ts'
import { fileContains, filesUnder, nextEvent, recordEvents, testServices } from './support.ts'

let sim: VaultSim
let services: Services
let dataDir: string
let dispose: () => Promise<void>
let dispatch: Dispatch
let token: string
let main: number
const simDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-sim-'))
/** On a file, so that the simulator can stop and come back with the same vault and tokens. */
const simOptions = {
  seed: 'demo',
  db: path.join(simDir, 'vault.db'),
  exportTiming: { startDelayMs: 5, durationMs: 20 },
} as const

beforeAll(async () => {
  await copyDemoSnapshot(simOptions.db)
  sim = await startVaultSim({ port: 0, ...simOptions })
  token = sim.cast.users.admin.tokens[0]!
  main = sim.cast.vaults.main.id
})
afterAll(async () => {
  await sim.stop()
  fs.rmSync(simDir, { recursive: true, force: true })
})
beforeEach(() => {
  ;({ services, dataDir, dispose } = testServices())
  dispatch = createDispatcher(createHandlers(services), services.log)
})
afterEach(() => dispose())

/** Calls the contract as a window would, and answers the value (failing on an error value). */
async function call<T>(channel: string, args: unknown): Promise<T> {
  const result = await dispatch(channel, args)
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`)
  return result.value as T
}

async function addAndSync(): Promise<{ connectionId: string; state: ConnectionSyncState }> {
  const added = await call<{ connection: { id: string } }>('connections.add', {
    name: 'Lab',
    baseUrl: sim.baseUrl,
    token,
    sessionOnly: true,
  })
  const connectionId = added.connection.id
  const finished = nextEvent(
    services,
    'sync.changed',
    (state) => state.connectionId === connectionId && !state.running,
  )
  expect(await call('sync.start', { connectionId })).toEqual({ connectionIds: [connectionId] })
  return { connectionId, state: await finished }
}

describe('a connection through the contract', () => {
  it('adds, syncs with progress events, and browses the cache, also with the server gone', async () => {
    const events = recordEvents(services)
    const { connectionId, state } = await addAndSync()
    expect(state).toMatchObject({ lastOutcome: 'completed', lastError: null, running: false })

    const progress = events
      .filter((event) => event.name === 'sync.progress')
      .map((event) => event.payload)
    expect(progress).toContainEqual({
      connectionId,
      vaultId: main,
      kind: 'molecules',
      done: 2000,
      total: 2000,
    })
    expect(events.some((event) => event.name === 'records.changed')).toBe(true)
    expect(services.status.current()).toMatchObject({ online: true, syncing: false })
    expect(await call('connections.baseUrls', {})).toContain(sim.baseUrl)
    expect(await call('sync.configure', { intervalMinutes: 30 })).toEqual({ intervalMinutes: 30 })
    expect(await call('sync.settings', {})).toEqual({ intervalMinutes: 30 })

    const vaults = await call<{ id: number; name: string; counts: Record<string, number> }[]>(
      'vaults.list',
      {
        connectionId,
      },
    )
    expect(vaults.find((vault) => vault.id === main)).toMatchObject({
      name: 'Vault Desk Demo',
      counts: { molecules: 2000 },
    })
    const page = await call<{ total: number; rows: { id: number }[] }>('records.list', {
      connectionId,
      vaultId: main,
      kind: 'molecules',
      limit: 5,
    })
    expect(page.total).toBe(2000)
    expect(page.rows).toHaveLength(5)
    const detail = await call<{ record: { id: number }; links: { batches?: unknown[] } }>(
      'records.get',
      {
        connectionId,
        vaultId: main,
        kind: 'molecules',
        id: page.rows[0]!.id,
      },
    )
    expect(detail.record.id).toBe(page.rows[0]!.id)
    expect(detail.links.batches!.length).toBeGreaterThan(0)

    await sim.stop()
    try {
      const offline = await call<{ hits: unknown[] }>('records.search', {
        connectionId,
        text: 'REF',
      })
      expect(offline.hits.length).toBeGreaterThan(0)
      const ended = nextEvent(
        services,
        'sync.changed',
        (next) => next.connectionId === connectionId && !next.running,
      )
      await call('sync.start', { connectionId })
      expect(await ended).toMatchObject({ lastOutcome: 'offline', lastError: { code: 'offline' } })
      expect(services.status.current().online).toBe(false)
      expect(
        (
          await call<{ total: number }>('records.list', {
            connectionId,
            vaultId: main,
            kind: 'molecules',
          })
        ).total,
      ).toBe(2000)
    } finally {
      sim = await startVaultSim({ port: Number(new URL(sim.baseUrl).port), ...simOptions })
    }
  })

  it('never lets the token out: not in answers, events, the app database, the caches or the log', async () => {
    const events = recordEvents(services)
    const answers: unknown[] = []
    const { connectionId } = await addAndSync()
    answers.push(await call('connections.list', {}), await call('connections.status', {}))
    answers.push(await call('sync.state', {}), await call('vaults.list', { connectionId }))
    expect(JSON.stringify([answers, events])).not.toContain(token)
    await services.close()
    for (const file of filesUnder(dataDir)) expect(fileContains(file, token), file).toBe(false)
  })

  it('refuses a wrong token, an unreachable server and an insecure URL with clear codes', async () => {
    const refused = await dispatch('connections.add', {
      name: 'Bad',
      baseUrl: sim.baseUrl,
      token: 'not-a-token',
    })
    expect(refused).toMatchObject({ ok: false, error: { code: 'authentication' } })
    const unreachable = await dispatch('connections.add', {
      name: 'Gone',
      baseUrl: 'http://127.0.0.1:9/api/v1',
      token,
    })
    expect(unreachable).toMatchObject({ ok: false, error: { code: 'offline' } })
    const insecure = await dispatch('connections.add', {
      name: 'Plain',
      baseUrl: 'http://vault.example.org/api/v1',
      token,
    })
    expect(insecure).toMatchObject({ ok: false, error: { code: 'invalid_argument' } })
    expect(await call('connections.list', {})).toEqual([])
  })
})
