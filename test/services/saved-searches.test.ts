/**
 * Saved searches through the contract, as a window asks them: `searches.list` and `searches.run`
 * against the demo vault's simulator over loopback after a real sync, the run's question then
 * asked of `records.list` and compared with the vault's own run of the saved search.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VaultClient } from '../../src-main/api/client.ts'
import { LimiterRegistry } from '../../src-main/api/limiter-registry.ts'
import { createDispatcher, type Dispatch } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type { CachedRecordPage } from '../../src-main/ipc/records/contract.ts'
import type { SavedSearchRun, SavedSearchSummary } from '../../src-main/ipc/searches/contract.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { nextEvent, testServices } from './support.ts'

let sim: VaultSim
let dispatch: Dispatch
let dispose: () => Promise<void>
let connectionId: string
let main: number

async function call<T>(channel: string, args: unknown): Promise<T> {
  const result = await dispatch(channel, args)
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.code} ${result.error.message}`)
  return result.value as T
}

beforeAll(async () => {
  sim = await startDemoSnapshotSim({
    port: 0,
    exportTiming: { startDelayMs: 5, durationMs: 20 },
  })
  main = sim.cast.vaults.main.id
  const built = testServices()
  dispose = built.dispose
  const services = built.services
  dispatch = createDispatcher(createHandlers(services), services.log)
  const added = await call<{ connection: { id: string } }>('connections.add', {
    name: 'Lab',
    baseUrl: sim.baseUrl,
    token: sim.cast.users.admin.tokens[0]!,
    sessionOnly: true,
  })
  connectionId = added.connection.id
  const finished = nextEvent(
    services,
    'sync.changed',
    (state) => state.connectionId === connectionId && !state.running,
  )
  await call('sync.start', { connectionId })
  expect(await finished).toMatchObject({ lastOutcome: 'completed' })
}, 180_000)

afterAll(async () => {
  await dispose?.()
  await sim?.stop()
})

describe('searches.list and searches.run', () => {
  it('lists the saved searches in words and runs one as a list of the cache', async () => {
    const listed = await call<SavedSearchSummary[]>('searches.list', {
      connectionId,
      vaultId: main,
    })
    expect(listed.map((search) => search.name).sort()).toEqual([
      'Priority 1 compounds',
      'Quinazoline cores',
    ])
    const priority = listed.find((search) => search.name === 'Priority 1 compounds')!
    expect(priority.untranslated.map((part) => part.part)).toEqual(['scope'])

    const refused = await dispatch('searches.run', {
      connectionId,
      vaultId: main,
      search: 'priority 1 COMPOUNDS',
    })
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'validation', message: expect.stringContaining('scope') },
    })

    const run = await call<SavedSearchRun>('searches.run', {
      connectionId,
      vaultId: main,
      search: priority.id,
      translatablePart: true,
    })
    expect(run).toMatchObject({ partial: true, search: { name: 'Priority 1 compounds' } })
    const page = await call<CachedRecordPage>('records.list', {
      connectionId,
      vaultId: main,
      ...run.question,
      limit: 1000,
    })
    const offline = page.rows.map((row) => row.id as number).sort((a, b) => a - b)

    const client = new VaultClient({
      baseUrl: sim.baseUrl,
      token: sim.cast.users.admin.tokens[0]!,
      limiters: new LimiterRegistry(),
      exportPolling: { minIntervalMs: 2, maxIntervalMs: 10 },
    })
    const searchId = (await client.searches.list(main)).find(
      (search) => search.name === 'Priority 1 compounds',
    )!.search_id!
    const online: number[] = []
    for await (const molecule of (await client.searches.run(main, searchId)).records()) {
      if ((molecule.projects ?? []).length > 0) online.push(molecule.id!)
    }
    expect(online.length).toBeGreaterThan(0)
    expect(page.total).toBe(online.length)
    expect(offline).toEqual(online.sort((a, b) => a - b))
  })

  it('refuses bad arguments and unknown searches with a clear error', async () => {
    expect(
      await dispatch('searches.run', { connectionId, vaultId: main, search: '' }),
    ).toMatchObject({ ok: false, error: { code: 'invalid_argument' } })
    expect(
      await dispatch('searches.run', { connectionId, vaultId: main, search: 424242 }),
    ).toMatchObject({
      ok: false,
      error: { code: 'not_found', message: expect.stringContaining("'Quinazoline cores'") },
    })
  })
})
