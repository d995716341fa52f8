import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { cast, idOf, objectsOf } from './fixtures.ts'
import { raw, record } from './http.ts'

/**
 * The spec's Limits: page_size is for "synchronous list and query operations; ignored with
 * async", and Conventions: with async "page_size and offset are then ignored and the export holds
 * the complete result". Every operation the spec lists with async, on the demo vault.
 */
let sim: VaultSim
let c: ReturnType<typeof cast>
let protocolId: number

beforeAll(async () => {
  sim = await startDemoSnapshotSim({ exportTiming: { startDelayMs: 0, durationMs: 0 } })
  c = cast(sim)
  protocolId = idOf(objectsOf(record(await c.admin.post(`${c.main}/protocols/query`, {})))[0]!)
})
afterAll(() => sim.stop())

async function exportedRecords(exportId: number): Promise<{ count: number; objects: unknown[] }> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const progress = record(await c.admin.get(`${c.main}/export_progress/${exportId}`))
    if (progress.status === 'finished') break
    expect(['new', 'started']).toContain(progress.status)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const redirect = await c.admin.get(`${c.main}/exports/${exportId}`)
  expect(redirect.status).toBe(302)
  const file = await raw(redirect.headers.get('location')!, 'GET', '')
  return JSON.parse(new TextDecoder().decode(file.bytes)) as { count: number; objects: unknown[] }
}

describe('page_size and offset with async', () => {
  const kinds: [string, () => string][] = [
    ['molecules', () => `${c.main}/molecules/query`],
    ['batches', () => `${c.main}/batches/query`],
    ['collections', () => `${c.main}/collections/query`],
    ['protocols', () => `${c.main}/protocols/query`],
    ['protocol data', () => `${c.main}/protocols/${protocolId}/data/query`],
    ['runs', () => `${c.main}/runs/query`],
    ['readout rows', () => `${c.main}/readout_rows/query`],
    ['plates', () => `${c.main}/plates/query`],
    ['control layouts', () => `${c.main}/control_layouts/query`],
    ['inventory samples', () => `${c.main}/inventory_samples/query`],
  ]

  it.each(kinds)('are ignored for %s: the export holds the complete result', async (_, path) => {
    const synchronous = record(await c.admin.post(path(), { page_size: 1 }))
    const total = synchronous.count as number
    expect(total).toBeGreaterThan(1)
    // Out of range for a synchronous page (at most 1000), and an offset past the first records.
    const asked = await c.admin.post(path(), { async: true, page_size: 5000, offset: 1 })
    expect(asked.status, JSON.stringify(asked.json)).toBe(200)
    const exported = await exportedRecords(idOf(record(asked)))
    expect(exported.count).toBe(total)
    expect(exported.objects).toHaveLength(total)
  })

  it('are still checked without async', async () => {
    const refused = await c.admin.post(`${c.main}/runs/query`, { page_size: 5000 })
    expect(refused.status).toBe(422)
    expect(record(refused).error).toContain('page_size')
  })
})
