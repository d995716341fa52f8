import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { VaultClient } from '../../src-main/api/index.ts'
import type { VaultCache } from '../../src-main/store/vault-cache.ts'
import { oneSecondBefore, readKindCursor } from '../../src-main/sync/kind-cursor.ts'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { cachedIds, clientOf, pull, simClockProxy, temporaryCache } from './support.ts'

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
afterEach(() => {
  sim.clock.resume()
  dispose()
})

/** Every id the server lists for a kind. */
async function serverIds(list: () => AsyncIterable<number>): Promise<number[]> {
  const ids: number[] = []
  for await (const id of list()) ids.push(id)
  return ids.sort((a, b) => a - b)
}

describe('incremental pull', () => {
  it('holds exactly what the server lists after a first pull, and the cursor of each pass', async () => {
    expect(cachedIds(cache, 'molecules', main)).toEqual(
      await serverIds(() => client.molecules.queryIds(main, {})),
    )
    expect(cachedIds(cache, 'batches', main)).toEqual(
      await serverIds(() => client.batches.queryIds(main, {})),
    )
    expect(cachedIds(cache, 'readout_rows', main)).toEqual(
      await serverIds(() => client.readoutRows.queryIds(main, {})),
    )
    const cursor = readKindCursor(cache.cursor('molecules', main))
    expect(cursor.pass).toBeNull()
    expect(cursor.since).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    // Batches came inside their molecules; their own cursor starts where the molecules' did.
    expect(readKindCursor(cache.cursor('batches', main)).since).toBe(cursor.since)
  })

  it('fetches a record changed in the cursor second again (one-second overlap), without duplicates', async () => {
    sim.clock.freeze()
    await pull(client, cache, { vaultIds: [main] })
    const frozenSecond = new Date(Math.floor(sim.clock.nowMillis() / 1000) * 1000).toISOString()
    // The pass began before its first answer came, so at most at the frozen second (a frozen
    // clock makes the bound learned from the Date headers fall a little earlier still).
    const since = Date.parse(readKindCursor(cache.cursor('molecules', main)).since!)
    expect(since).toBeLessThanOrEqual(Date.parse(oneSecondBefore(frozenSecond)))
    expect(since).toBeGreaterThan(Date.parse(frozenSecond) - 60_000)
    const [id] = cachedIds(cache, 'molecules', main)
    // Changed after the pull read it, in the very second the next pass starts from.
    await client.molecules.update(main, id!, { description: 'changed in the cursor second' })
    const before = cache.counts()[main]!
    await pull(client, cache, { vaultIds: [main] })
    expect(cache.get('molecules', main, id!)?.description).toBe('changed in the cursor second')
    expect(cache.counts()[main]).toEqual(before)
  })

  it('catches a record changed behind a pass while it paged (passes begin at server time)', async () => {
    // Molecules of a project (those of the public data set cannot be changed).
    const ids = cachedIds(cache, 'molecules', main).filter(
      (id) => (cache.get('molecules', main, id)?.projects as unknown[]).length > 0,
    )
    const early = ids[0]!
    const late = ids.at(-1)!
    const query = client.molecules.query.bind(client.molecules)
    // Between the first and the second page: an already read molecule changes, and a second
    // later one not yet read. A pass that resumed from the newest timestamp it saw would miss
    // the first change.
    client.molecules.query = async (vaultId, body, options) => {
      if ((body as { offset?: number }).offset === 999 && 'modified_after' in body) {
        sim.clock.advance(1000)
        await client.molecules.update(main, early, { description: 'changed behind the pass' })
        sim.clock.advance(5000)
        await client.molecules.update(main, late, { description: 'changed ahead of the pass' })
      }
      return query(vaultId, body, options)
    }
    // Make every molecule part of the next pass, so that it spans several pages.
    sim.clock.advance(2000)
    sim.core.db
      .prepare('UPDATE molecules SET modified_at = ? WHERE vault_id = ?')
      .run(sim.clock.nowSeconds(), main)
    sim.core.dataVersion++
    const first = await pull(client, cache, { vaultIds: [main] })
    expect(first.vaults[0]!.failures).toEqual([])
    expect(cache.get('molecules', main, late)?.description).toBe('changed ahead of the pass')
    client.molecules.query = query
    await pull(client, cache, { vaultIds: [main] })
    expect(cache.get('molecules', main, early)?.description).toBe('changed behind the pass')
  })

  it('removes records the server no longer lists, kind by kind', async () => {
    const admin = client
    const collection = (await admin.collections.query(main, { page_size: 1 })).objects[0]!
    await admin.collections.delete(main, collection.id)
    const row = (await admin.readoutRows.query(main, { type: 'detail', page_size: 1 })).objects[0]!
    await admin.readoutRows.delete(main, row.id)
    const layout = (await admin.controlLayouts.list(main, { page_size: 1 })).objects[0]!
    await admin.controlLayouts.delete(main, layout.id)
    const molecule = deleteMoleculeWithoutReadouts(main)

    await pull(client, cache, { vaultIds: [main], refreshAll: true })
    expect(cache.get('collections', main, collection.id)).toBeNull()
    expect(cache.get('readout_rows', main, row.id)).toBeNull()
    expect(cache.get('control_layouts', main, layout.id)).toBeNull()
    expect(cache.get('molecules', main, molecule)).toBeNull()
    expect(cachedIds(cache, 'molecules', main)).toEqual(
      await serverIds(() => client.molecules.queryIds(main, {})),
    )
    expect(cachedIds(cache, 'batches', main)).toEqual(
      await serverIds(() => client.batches.queryIds(main, {})),
    )
  })

  it('asks only for what changed: one molecule changed costs one small page', async () => {
    const [id] = cachedIds(cache, 'molecules', main)
    // A pull two seconds after the earlier tests' changes, so that none of them falls in the
    // one-second overlap that the next pull reads again.
    sim.clock.advance(2000)
    await pull(client, cache, { vaultIds: [main] })
    sim.clock.advance(2000)
    await client.molecules.update(main, id!, { description: 'one change' })
    sim.resetStats()
    const { progress } = await pull(client, cache, { vaultIds: [main] })
    expect(cache.get('molecules', main, id!)?.description).toBe('one change')
    const molecules = progress.filter((line) => line.kind === 'molecules')
    expect(molecules.at(-1)).toMatchObject({ done: 1, total: 1 })
    // One page of changes per kind read by changes; no id listing (not due), no export, no
    // reference data, no vault list and no request for the server's time. (Protocols, runs and
    // dose response follow readout rows, which the demo's imports may add as its clock moves.)
    const asked = sim.stats.byOperation
    for (const kind of ['molecules', 'batches', 'collections', 'readout_rows']) {
      expect(asked[`POST /vaults/{vault_id}/${kind}/query`], kind).toBe(1)
    }
    expect(asked['POST /vaults/{vault_id}/inventory_samples/query']).toBe(1)
    const referenceData = Object.keys(asked).filter((operation) =>
      /\/(vaults|projects|data_sets|fields|users|plates|control_layouts|inventory_locations|eln|searches|mapping_templates|import_parsers|registration_\w+|status|api_executions)\b/.test(
        operation.replace('/vaults/{vault_id}', ''),
      ),
    )
    expect(referenceData).toEqual([])
    expect(sim.stats.downloads).toBe(0)
  })
})

/** Deletes a molecule that has no readouts, behind the API (which cannot delete molecules). */
function deleteMoleculeWithoutReadouts(vaultId: number): number {
  const db = sim.core.db
  const id = db
    .prepare(
      `SELECT m.id FROM molecules m WHERE m.vault_id = ? AND NOT EXISTS (
         SELECT 1 FROM batches b JOIN readout_rows r ON r.batch_id = b.id WHERE b.molecule_id = m.id)
       ORDER BY m.id DESC LIMIT 1`,
    )
    .pluck()
    .get(vaultId) as number
  db.pragma('foreign_keys = OFF')
  try {
    db.prepare('DELETE FROM batches WHERE molecule_id = ?').run(id)
    db.prepare('DELETE FROM molecules WHERE id = ?').run(id)
  } finally {
    db.pragma('foreign_keys = ON')
  }
  sim.core.dataVersion++
  return id
}
