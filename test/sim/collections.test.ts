import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim } from '../../src-sim/index.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { cast, createMolecule, idOf, objectsOf } from './fixtures.ts'
import { record } from './http.ts'

let sim: VaultSim
let c: ReturnType<typeof cast>
const molecules: number[] = []

beforeAll(async () => {
  sim = await startVaultSim({ seed: 'empty' })
  c = cast(sim)
  for (const [name, smiles] of [
    ['m1', 'CC'],
    ['m2', 'CCC'],
    ['m3', 'CCCC'],
  ]) {
    molecules.push(
      idOf(
        await createMolecule(c.writer, c.main, { name, smiles, projects: [c.projects.kinase.id] }),
      ),
    )
  }
})
afterAll(() => sim.stop())

describe('POST /vaults/{vault_id}/collections', () => {
  it('creates a private user collection by default and a shared vault collection on request', async () => {
    const mine = record(
      await c.writer.post(`${c.main}/collections`, {
        name: 'Mine',
        molecules: [molecules[0], molecules[1]],
        owner: 'ignored',
        created_at: 'ignored',
      }),
    )
    expect(mine).toEqual({
      id: expect.any(Number),
      class: 'user collection',
      name: 'Mine',
      owner: 'Rosalind Franklin',
      molecules: [molecules[0], molecules[1]],
      created_at: expect.any(String),
      modified_at: expect.any(String),
    })
    const shared = record(
      await c.writer.post(`${c.main}/collections`, {
        name: 'Shared',
        class: 'vault collection',
        molecules: [molecules[2]],
      }),
    )
    expect(shared.class).toBe('vault collection')
    expect((await c.reader.get(`${c.main}/collections/${idOf(mine)}`)).status).toBe(404)
    expect(record(await c.reader.get(`${c.main}/collections/${idOf(shared)}`)).molecules).toEqual([
      molecules[2],
    ])
  })

  it('answers 422 for a used name unless overwriting, unknown molecules, and vault collections by readers', async () => {
    await c.writer.post(`${c.main}/collections`, { name: 'Twice', molecules: [molecules[0]] })
    const duplicate = await c.writer.post(`${c.main}/collections`, { name: 'Twice', molecules: [] })
    expect(duplicate.status).toBe(422)
    expect(record(duplicate).error).toContain('overwrite')
    const overwritten = record(
      await c.writer.post(`${c.main}/collections`, {
        name: 'Twice',
        molecules: [molecules[1]],
        overwrite: true,
      }),
    )
    expect(overwritten.molecules).toEqual([molecules[1]])
    const unknown = await c.writer.post(`${c.main}/collections`, {
      name: 'Unknown',
      molecules: [999999],
    })
    expect(unknown.status).toBe(422)
    expect(record(unknown).error).toContain('999999')
    expect(
      (
        await c.reader.post(`${c.main}/collections`, {
          name: 'Reader shared',
          class: 'vault collection',
        })
      ).status,
    ).toBe(422)
    expect((await c.reader.post(`${c.main}/collections`, { name: 'Reader private' })).status).toBe(
      200,
    )
    expect((await c.writer.post(`${c.main}/collections`, { molecules: [] })).status).toBe(422)
  })
})

describe('PUT and DELETE /vaults/{vault_id}/collections/{collection_id}', () => {
  it('only grows: a PUT adds molecules and never removes any', async () => {
    const collection = idOf(
      record(
        await c.writer.post(`${c.main}/collections`, {
          name: 'Growing',
          molecules: [molecules[0]],
        }),
      ),
    )
    const grown = record(
      await c.writer.put(`${c.main}/collections/${collection}`, { molecules: [molecules[2]] }),
    )
    expect(grown.molecules).toEqual([molecules[0], molecules[2]])
    expect(
      (await c.writer.put(`${c.main}/collections/${collection}`, { name: 'Renamed' })).status,
    ).toBe(422)
    expect(
      (await c.writer.put(`${c.main}/collections/${collection}`, { id: collection + 1 })).status,
    ).toBe(422)
    expect(
      (await c.admin.put(`${c.main}/collections/${collection}`, { molecules: [] })).status,
    ).toBe(404)
    expect((await c.writer.put(`${c.main}/collections/999999`, { molecules: [] })).status).toBe(404)
  })

  it('deletes with a message, leaving the molecules, and 404 for unknown or invisible collections', async () => {
    const collection = idOf(
      record(
        await c.writer.post(`${c.main}/collections`, { name: 'Doomed', molecules: [molecules[0]] }),
      ),
    )
    expect(record(await c.writer.delete(`${c.main}/collections/${collection}`))).toEqual({
      message: `Collection ${collection} has been destroyed`,
    })
    expect((await c.writer.get(`${c.main}/collections/${collection}`)).status).toBe(404)
    expect((await c.writer.get(`${c.main}/molecules/${molecules[0]}`)).status).toBe(200)
    expect((await c.writer.delete(`${c.main}/collections/${collection}`)).status).toBe(404)
    const shared = idOf(
      record(
        await c.admin.post(`${c.main}/collections`, {
          name: 'Admin shared',
          class: 'vault collection',
        }),
      ),
    )
    expect((await c.reader.delete(`${c.main}/collections/${shared}`)).status).toBe(401)
  })
})

describe('POST /vaults/{vault_id}/collections/query', () => {
  it('filters by ids, type, dates and projects, pages, and answers only ids or molecule ids on request', async () => {
    const all = record(await c.writer.post(`${c.main}/collections/query`, {}))
    expect(all.count).toBe(objectsOf(all).length)
    expect(objectsOf(all)[0]).not.toHaveProperty('molecules')
    const shared = record(
      await c.writer.post(`${c.main}/collections/query`, {
        type: 'vault_collection',
        include_molecule_ids: true,
      }),
    )
    expect(
      objectsOf(shared).every(
        (collection) =>
          collection.class === 'vault collection' && Array.isArray(collection.molecules),
      ),
    ).toBe(true)
    const ids = record(await c.writer.post(`${c.main}/collections/query`, { only_ids: true }))
      .objects as number[]
    expect(ids).toEqual(objectsOf(all).map(idOf))
    const page = record(
      await c.writer.post(`${c.main}/collections/query`, { page_size: 1, offset: 1 }),
    )
    expect(objectsOf(page).map(idOf)).toEqual([ids[1]])
    const picked = record(
      await c.writer.post(`${c.main}/collections/query`, { collections: [ids[0]] }),
    )
    expect(objectsOf(picked).map(idOf)).toEqual([ids[0]])
    const future = record(
      await c.writer.post(`${c.main}/collections/query`, { created_after: '2100-01-01' }),
    )
    expect(future.count).toBe(0)
    const inGpcr = record(
      await c.writer.post(`${c.main}/collections/query`, { projects: [c.projects.gpcr.id] }),
    )
    expect(inGpcr.count).toBe(0)
    const viaGet = record(
      await c.writer.get(`${c.main}/collections`, {
        type: 'vault_collection',
        include_molecule_ids: true,
      }),
    )
    expect(viaGet).toEqual(shared)
  })

  it('answers 404 listing missing collections and 422 for a bad type', async () => {
    const missing = await c.writer.post(`${c.main}/collections/query`, {
      collections: [999998, 999999],
    })
    expect(missing.status).toBe(404)
    expect(record(missing).error).toContain('999998, 999999')
    expect((await c.writer.post(`${c.main}/collections/query`, { type: 'shared' })).status).toBe(
      422,
    )
  })
})
