import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim } from '../../src-sim/index.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { cast, createMolecule, idOf } from './fixtures.ts'
import { client, list, record } from './http.ts'
import type { Client } from './http.ts'

let sim: VaultSim
let c: ReturnType<typeof cast>

beforeAll(async () => {
  sim = await startVaultSim({
    seed: 'empty',
    exportTiming: { startDelayMs: 1000, durationMs: 2000 },
  })
  c = cast(sim)
  for (const [name, smiles] of [
    ['ethanol', 'CCO'],
    ['acetone', 'CC(C)=O'],
    ['benzene', 'c1ccccc1'],
  ]) {
    await createMolecule(c.writer, c.main, {
      name,
      smiles,
      projects: [c.projects.kinase.id],
      synonyms: [`${name}-syn`],
    })
  }
  sim.clock.freeze()
})
afterAll(() => sim.stop())

async function progressOf(api: Client, exportId: number): Promise<Record<string, unknown>> {
  return record(await api.get(`${c.main}/export_progress/${exportId}`))
}

/** Waits (in real time) until the file is written, with the clock already past the duration. */
async function untilStatus(
  api: Client,
  exportId: number,
  status: string,
): Promise<Record<string, unknown>> {
  let progress: Record<string, unknown> = {}
  for (let attempt = 0; attempt < 200; attempt++) {
    progress = await progressOf(api, exportId)
    if (progress.status === status) return progress
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`Export ${exportId} never reached ${status}: ${JSON.stringify(progress)}`)
}

async function download(api: Client, exportId: number): Promise<{ type: string; text: string }> {
  const redirect = await api.get(`${c.main}/exports/${exportId}`)
  expect(redirect.status).toBe(302)
  const location = redirect.headers.get('location')!
  expect(new URL(location).origin).toBe(new URL(sim.downloadBaseUrl).origin)
  expect(new URL(location).origin).not.toBe(new URL(sim.baseUrl).origin)
  const file = await fetch(location)
  expect(file.status).toBe(200)
  return { type: file.headers.get('content-type') ?? '', text: await file.text() }
}

describe('async exports of queries', () => {
  it('moves new -> started -> finished with the clock, answers 403 with progress before, then 302 to the file', async () => {
    const created = record(
      await c.writer.post(`${c.main}/molecules/query`, { async: true, no_structures: true }),
    )
    expect(created).toMatchObject({ id: expect.any(Number), status: 'new', queued_job_position: 1 })
    const id = idOf(created)
    const early = await c.writer.get(`${c.main}/exports/${id}`)
    expect(early.status).toBe(403)
    expect(record(early)).toMatchObject({
      code: 403,
      id,
      status: 'new',
      error: expect.stringContaining('not finished'),
    })
    sim.clock.advance(1000)
    expect((await progressOf(c.writer, id)).status).toBe('started')
    expect((await c.writer.get(`${c.main}/exports/${id}`)).status).toBe(403)
    sim.clock.advance(2000)
    await untilStatus(c.writer, id, 'finished')
    const { type, text } = await download(c.writer, id)
    expect(type).toContain('application/json')
    // The service's JSON export is {count, objects}, the count first.
    expect(text).toMatch(/^\{"count":\s*3,"objects":\[/)
    const exported = JSON.parse(text) as { count: number; objects: Record<string, unknown>[] }
    expect(Object.keys(exported)).toEqual(['count', 'objects'])
    expect(exported.count).toBe(3)
    const molecules = exported.objects
    expect(molecules.map((molecule) => molecule.name)).toEqual(['ethanol', 'acetone', 'benzene'])
    expect(molecules[0]!.smiles).toBeUndefined()
  })

  it('writes CSV and SDF, exports batch and collection queries, and accepts async on the deprecated GET form', async () => {
    const csv = idOf(
      record(await c.writer.post(`${c.main}/molecules/query`, { async: true, format: 'csv' })),
    )
    const sdf = idOf(
      record(await c.writer.get(`${c.main}/molecules`, { async: true, format: 'sdf' })),
    )
    await c.writer.post(`${c.main}/collections`, { name: 'All three', molecules: [1, 2, 3] })
    const collections = idOf(
      record(
        await c.writer.post(`${c.main}/collections/query`, {
          async: true,
          include_molecule_ids: true,
        }),
      ),
    )
    await c.writer.post(`${c.main}/batches`, {
      molecule: { name: 'ethanol' },
      projects: [c.projects.kinase.id],
    })
    const batches = idOf(
      record(await c.writer.post(`${c.main}/batches/query`, { async: true, format: 'csv' })),
    )
    sim.clock.advance(3000)
    for (const id of [csv, sdf, collections]) await untilStatus(c.writer, id, 'finished')
    // The fourth export waited for a running slot: it started when the first three finished.
    expect((await progressOf(c.writer, batches)).status).toBe('started')
    sim.clock.advance(2000)
    await untilStatus(c.writer, batches, 'finished')
    const table = (await download(c.writer, csv)).text.split('\r\n')
    expect(table[0]).toContain('name')
    expect(table[0]).toContain('smiles')
    expect(table.filter((line) => line !== '')).toHaveLength(4)
    const sdfText = (await download(c.writer, sdf)).text
    expect(sdfText.split('$$$$\n').filter((entry) => entry.trim() !== '')).toHaveLength(3)
    expect(sdfText).toContain('M  END')
    expect(sdfText).toContain('> <name>\nethanol')
    expect(JSON.parse((await download(c.writer, collections)).text)).toEqual({
      count: 1,
      objects: [expect.objectContaining({ name: 'All three', molecules: [1, 2, 3] })],
    })
    expect((await download(c.writer, batches)).text).toContain('molecule.name')
  })

  it('answers 422 for a format the export kind cannot write', async () => {
    const answer = await c.writer.post(`${c.main}/collections/query`, {
      async: true,
      format: 'sdf',
    })
    expect(answer.status).toBe(422)
    expect(record(answer).error).toContain('format')
  })
})

describe('GET /vaults/{vault_id}/exports', () => {
  it('lists the active exports of the key across vaults, not those of another key of the same user', async () => {
    const own = idOf(record(await c.writer.post(`${c.main}/molecules/query`, { async: true })))
    const elsewhere = idOf(record(await c.writer.post(`${c.ai}/molecules/query`, { async: true })))
    const listed = list(await c.writer.get(`${c.ai}/exports`)).map(idOf)
    expect(listed).toEqual(expect.arrayContaining([own, elsewhere]))
    const otherKey = client(sim.baseUrl, sim.cast.users.writer.tokens[1])
    expect(list(await otherKey.get(`${c.main}/exports`)).map(idOf)).not.toContain(own)
    sim.clock.advance(3000)
    await untilStatus(c.writer, own, 'finished')
    // Finished exports are no longer active (spec: "all active exports of the API key").
    const after = list(await c.writer.get(`${c.main}/exports`)).map(idOf)
    expect(after).not.toContain(own)
  })
})

describe('DELETE /vaults/{vault_id}/exports/{export_id}', () => {
  it('cancels an export under way, then answers 405 with the unchanged record', async () => {
    const id = idOf(record(await c.writer.post(`${c.main}/molecules/query`, { async: true })))
    const canceled = record(await c.writer.delete(`${c.main}/exports/${id}`))
    expect(canceled).toMatchObject({ id, status: 'canceled' })
    const again = await c.writer.delete(`${c.main}/exports/${id}`)
    expect(again.status).toBe(405)
    expect(record(again)).toMatchObject({ id, status: 'canceled' })
    expect((await c.writer.get(`${c.main}/exports/${id}`)).status).toBe(403)
  })

  it('answers 405 for a finished export and 404 for unknown exports or another user’s', async () => {
    const id = idOf(record(await c.writer.post(`${c.main}/molecules/query`, { async: true })))
    sim.clock.advance(3000)
    await untilStatus(c.writer, id, 'finished')
    expect((await c.writer.delete(`${c.main}/exports/${id}`)).status).toBe(405)
    expect((await c.writer.delete(`${c.main}/exports/999999`)).status).toBe(404)
    expect((await c.admin.get(`${c.main}/export_progress/${id}`)).status).toBe(404)
    expect((await c.admin.get(`${c.main}/exports/${id}`)).status).toBe(404)
    expect((await c.writer.get(`${c.main}/export_progress/999999`)).status).toBe(404)
  })
})

describe('export limits', () => {
  it('runs 3 exports per user, queues 30 more, answers 429 beyond, and starts queued ones as slots free', async () => {
    sim.resetStats()
    const reader = c.reader
    const ids: number[] = []
    for (let index = 0; index < 33; index++)
      ids.push(idOf(record(await reader.post(`${c.main}/molecules/query`, { async: true }))))
    sim.clock.advance(1000)
    const statuses = await Promise.all(
      ids.slice(0, 5).map(async (id) => (await progressOf(reader, id)).status),
    )
    expect(statuses).toEqual(['started', 'started', 'started', 'new', 'new'])
    expect((await progressOf(reader, ids[3]!)).queued_job_position).toBe(1)
    const refused = await reader.post(`${c.main}/molecules/query`, { async: true })
    expect(refused.status).toBe(429)
    expect(record(refused)).toMatchObject({
      code: 429,
      error: expect.stringContaining('Too many exports'),
    })
    expect(sim.stats.exportQueueRejections).toBe(1)
    expect((await c.writer.post(`${c.main}/molecules/query`, { async: true })).status).toBe(200)
    sim.clock.advance(2000)
    await untilStatus(reader, ids[0]!, 'finished')
    expect((await progressOf(reader, ids[3]!)).status).toBe('started')
    expect((await reader.post(`${c.main}/molecules/query`, { async: true })).status).toBe(200)
    for (const id of ids) await reader.delete(`${c.main}/exports/${id}`)
  })
})
