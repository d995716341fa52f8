import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { VaultClient } from '../../src-main/api/index.ts'
import type { VaultCache } from '../../src-main/store/vault-cache.ts'
import { readKindCursor } from '../../src-main/sync/kind-cursor.ts'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { clientOf, pull, simClockProxy, temporaryCache } from './support.ts'

let sim: VaultSim
let proxy: Awaited<ReturnType<typeof simClockProxy>>
let client: VaultClient
let main: number
let cache: VaultCache
let dispose: () => void

beforeAll(async () => {
  sim = await startVaultSim({
    port: 0,
    seed: 'demo',
    exportTiming: { startDelayMs: 5, durationMs: 20 },
  })
  proxy = await simClockProxy(sim)
  main = sim.cast.vaults.main.id
})
afterAll(async () => {
  await proxy.close()
  await sim.stop()
})
beforeEach(async () => {
  ;({ cache, dispose } = temporaryCache())
  client = clientOf(sim, 'admin', { baseUrl: proxy.baseUrl })
  await pull(client, cache, { vaultIds: [main] })
})
afterEach(() => dispose())

const projectName = (id: number) => cache.get('projects', main, id)?.name

describe('reference data and deletion checks on a slower cadence', () => {
  it('waits for the refresh to read reference data and deletions; changes come at every pass', async () => {
    const project = (await client.projects.list(main))[0]!
    await client.projects.update(main, project.id, { name: 'Renamed between refreshes' })
    const collection = (await client.collections.query(main, { page_size: 1 })).objects[0]!
    await client.collections.delete(main, collection.id)
    const molecule = cache.list('molecules', main, { sort: 'id', limit: 1 }).records[0]!
    sim.clock.advance(2000)
    await client.molecules.update(main, Number(molecule.id), { description: 'changed' })

    await pull(client, cache, { vaultIds: [main] })
    expect(cache.get('molecules', main, Number(molecule.id))?.description).toBe('changed')
    expect(projectName(project.id)).toBe(project.name)
    expect(cache.get('collections', main, collection.id)).not.toBeNull()

    // Due once the refresh interval has passed since the last check.
    await pull(client, cache, { vaultIds: [main], referenceRefreshMs: 0 })
    expect(projectName(project.id)).toBe('Renamed between refreshes')
    expect(cache.get('collections', main, collection.id)).toBeNull()
    expect(Date.parse(readKindCursor(cache.cursor('projects', main)).checkedAt!)).not.toBeNaN()
  })

  it('reads everything at once when asked, due or not', async () => {
    const project = (await client.projects.list(main))[0]!
    await client.projects.update(main, project.id, { name: 'Renamed, then synced on demand' })
    await pull(client, cache, { vaultIds: [main], refreshAll: true })
    expect(projectName(project.id)).toBe('Renamed, then synced on demand')
  })

  it('reads runs, protocols and curves in a pass whose readout rows changed', async () => {
    const runs = cache.list('runs', main, { limit: 1000 }).records
    expect(runs.length).toBeGreaterThan(0)
    // Plate statistics come only with a single run; the first sync fetched them.
    expect(runs.every((run) => Array.isArray(run.plate_statistics))).toBe(true)
    const [row] = (await client.readoutRows.query(main, { type: 'detail', page_size: 1 })).objects
    const runId = Number((row!.run as { id: number }).id)
    const definition = Object.keys(row!.readouts as object)[0]!
    sim.clock.advance(2000)
    await client.readoutRows.update(main, row!.id, {
      readouts: { [definition]: { outlier: true } },
    })
    sim.resetStats()

    await pull(client, cache, { vaultIds: [main] })
    const asked = sim.stats.byOperation
    expect(asked['POST /vaults/{vault_id}/runs/query']).toBeGreaterThan(0)
    expect(asked['POST /vaults/{vault_id}/protocols/query']).toBeGreaterThan(0)
    expect(asked['GET /vaults/{vault_id}/runs/{id}']).toBeGreaterThan(0)
    expect(asked['GET /vaults/{vault_id}/projects']).toBeUndefined()
    // The run listing replaced the run, which kept the statistics its listing lacks.
    expect(Array.isArray(cache.get('runs', main, runId)?.plate_statistics)).toBe(true)
  })
})
