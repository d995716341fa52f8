import { describe, expect, it } from 'vitest'
import { oneSecondBefore, readKindCursor } from '../../src-main/sync/kind-cursor.ts'
import { cachedIds, pull, useClockedDemoVault } from './support.ts'

const demo = useClockedDemoVault()

/** Every id the server lists for a kind. */
async function serverIds(list: () => AsyncIterable<number>): Promise<number[]> {
  const ids: number[] = []
  for await (const id of list()) ids.push(id)
  return ids.sort((a, b) => a - b)
}

describe('incremental pull', () => {
  it('holds exactly what the server lists after a first pull, and the cursor of each pass', async () => {
    expect(cachedIds(demo.cache, 'molecules', demo.main)).toEqual(
      await serverIds(() => demo.client.molecules.queryIds(demo.main, {})),
    )
    expect(cachedIds(demo.cache, 'batches', demo.main)).toEqual(
      await serverIds(() => demo.client.batches.queryIds(demo.main, {})),
    )
    expect(cachedIds(demo.cache, 'readout_rows', demo.main)).toEqual(
      await serverIds(() => demo.client.readoutRows.queryIds(demo.main, {})),
    )
    const cursor = readKindCursor(demo.cache.cursor('molecules', demo.main))
    expect(cursor.pass).toBeNull()
    expect(cursor.since).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    // Batches came inside their molecules; their own cursor starts where the molecules' did.
    expect(readKindCursor(demo.cache.cursor('batches', demo.main)).since).toBe(cursor.since)
  })

  it('fetches a record changed in the cursor second again (one-second overlap), without duplicates', async () => {
    demo.sim.clock.freeze()
    await pull(demo.client, demo.cache, { vaultIds: [demo.main] })
    const frozenSecond = new Date(
      Math.floor(demo.sim.clock.nowMillis() / 1000) * 1000,
    ).toISOString()
    // The pass began before its first answer came, so at most at the frozen second (a frozen
    // clock makes the bound learned from the Date headers fall a little earlier still).
    const since = Date.parse(readKindCursor(demo.cache.cursor('molecules', demo.main)).since!)
    expect(since).toBeLessThanOrEqual(Date.parse(oneSecondBefore(frozenSecond)))
    expect(since).toBeGreaterThan(Date.parse(frozenSecond) - 60_000)
    const [id] = cachedIds(demo.cache, 'molecules', demo.main)
    // Changed after the pull read it, in the very second the next pass starts from.
    await demo.client.molecules.update(demo.main, id!, {
      description: 'changed in the cursor second',
    })
    const before = demo.cache.counts()[demo.main]!
    await pull(demo.client, demo.cache, { vaultIds: [demo.main] })
    expect(demo.cache.get('molecules', demo.main, id!)?.description).toBe(
      'changed in the cursor second',
    )
    expect(demo.cache.counts()[demo.main]).toEqual(before)
  })

  it('catches a record changed behind a pass while it paged (passes begin at server time)', async () => {
    // Molecules of a project (those of the public data set cannot be changed).
    const ids = cachedIds(demo.cache, 'molecules', demo.main).filter(
      (id) => (demo.cache.get('molecules', demo.main, id)?.projects as unknown[]).length > 0,
    )
    const early = ids[0]!
    const late = ids.at(-1)!
    const query = demo.client.molecules.query.bind(demo.client.molecules)
    // Between the first and the second page: an already read molecule changes, and a second
    // later one not yet read. A pass that resumed from the newest timestamp it saw would miss
    // the first change.
    demo.client.molecules.query = async (vaultId, body, options) => {
      if ((body as { offset?: number }).offset === 999 && 'modified_after' in body) {
        demo.sim.clock.advance(1000)
        await demo.client.molecules.update(demo.main, early, {
          description: 'changed behind the pass',
        })
        demo.sim.clock.advance(5000)
        await demo.client.molecules.update(demo.main, late, {
          description: 'changed ahead of the pass',
        })
      }
      return query(vaultId, body, options)
    }
    // Make every molecule part of the next pass, so that it spans several pages.
    demo.sim.clock.advance(2000)
    demo.sim.core.db
      .prepare('UPDATE molecules SET modified_at = ? WHERE vault_id = ?')
      .run(demo.sim.clock.nowSeconds(), demo.main)
    demo.sim.core.dataVersion++
    const first = await pull(demo.client, demo.cache, { vaultIds: [demo.main] })
    expect(first.vaults[0]!.failures).toEqual([])
    expect(demo.cache.get('molecules', demo.main, late)?.description).toBe(
      'changed ahead of the pass',
    )
    demo.client.molecules.query = query
    await pull(demo.client, demo.cache, { vaultIds: [demo.main] })
    expect(demo.cache.get('molecules', demo.main, early)?.description).toBe(
      'changed behind the pass',
    )
  })

  it('removes records the server no longer lists, kind by kind', async () => {
    const admin = demo.client
    const collection = (await admin.collections.query(demo.main, { page_size: 1 })).objects[0]!
    await admin.collections.delete(demo.main, collection.id)
    const row = (await admin.readoutRows.query(demo.main, { type: 'detail', page_size: 1 }))
      .objects[0]!
    await admin.readoutRows.delete(demo.main, row.id)
    const layout = (await admin.controlLayouts.list(demo.main, { page_size: 1 })).objects[0]!
    await admin.controlLayouts.delete(demo.main, layout.id)
    const molecule = deleteMoleculeWithoutReadouts(demo.main)

    await pull(demo.client, demo.cache, { vaultIds: [demo.main], refreshAll: true })
    expect(demo.cache.get('collections', demo.main, collection.id)).toBeNull()
    expect(demo.cache.get('readout_rows', demo.main, row.id)).toBeNull()
    expect(demo.cache.get('control_layouts', demo.main, layout.id)).toBeNull()
    expect(demo.cache.get('molecules', demo.main, molecule)).toBeNull()
    expect(cachedIds(demo.cache, 'molecules', demo.main)).toEqual(
      await serverIds(() => demo.client.molecules.queryIds(demo.main, {})),
    )
    expect(cachedIds(demo.cache, 'batches', demo.main)).toEqual(
      await serverIds(() => demo.client.batches.queryIds(demo.main, {})),
    )
  })

  it('asks only for what changed: one molecule changed costs one small page', async () => {
    const [id] = cachedIds(demo.cache, 'molecules', demo.main)
    // A pull two seconds after the earlier tests' changes, so that none of them falls in the
    // one-second overlap that the next pull reads again.
    demo.sim.clock.advance(2000)
    await pull(demo.client, demo.cache, { vaultIds: [demo.main] })
    demo.sim.clock.advance(2000)
    await demo.client.molecules.update(demo.main, id!, { description: 'one change' })
    demo.sim.resetStats()
    const { progress } = await pull(demo.client, demo.cache, { vaultIds: [demo.main] })
    expect(demo.cache.get('molecules', demo.main, id!)?.description).toBe('one change')
    const molecules = progress.filter((line) => line.kind === 'molecules')
    expect(molecules.at(-1)).toMatchObject({ done: 1, total: 1 })
    // One page of changes per kind read by changes; no id listing (not due), no export, no
    // reference data, no vault list and no request for the server's time. (Protocols, runs and
    // dose response follow readout rows, which the demo's imports may add as its clock moves.)
    const asked = demo.sim.stats.byOperation
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
    expect(demo.sim.stats.downloads).toBe(0)
  })
})

/** Deletes a molecule that has no readouts, behind the API (which cannot delete molecules). */
function deleteMoleculeWithoutReadouts(vaultId: number): number {
  const db = demo.sim.core.db
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
  demo.sim.core.dataVersion++
  return id
}
