import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim } from '../../src-sim/index.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { cast, createMolecule, idOf, objectsOf } from './fixtures.ts'
import { raw, record } from './http.ts'
import type { Client } from './http.ts'

/**
 * Molecule and batch pages are joined from stored record documents wherever the reader's view is
 * the stored one; a display that picks fields is always built from the tables. Picking every
 * field changes nothing in the answer, so it gives the built answer to compare with.
 */
let sim: VaultSim
let c: ReturnType<typeof cast>
let everyField: { molecule_fields: string[]; batch_fields: string[] }

beforeAll(async () => {
  sim = await startVaultSim({ seed: 'demo', exportTiming: { startDelayMs: 0, durationMs: 0 } })
  c = cast(sim)
  const fields = record(await c.admin.get(`${c.main}/fields`)) as Record<string, { name: string }[]>
  everyField = {
    molecule_fields: fields.molecule!.map((field) => field.name),
    batch_fields: fields.batch!.map((field) => field.name),
  }
})
afterAll(() => sim.stop())

async function page(
  api: Client,
  target: 'molecules' | 'batches',
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const answer = await api.post(`${c.main}/${target}/query`, body)
  if (answer.status !== 200) throw new Error(`${answer.status} ${JSON.stringify(answer.json)}`)
  return record(answer)
}

/** The stored answer to a query, after checking that it equals the answer built from tables. */
async function storedAndBuilt(
  api: Client,
  target: 'molecules' | 'batches',
  body: Record<string, unknown>,
): Promise<Record<string, unknown>[]> {
  const stored = await page(api, target, body)
  expect(stored).toEqual(await page(api, target, { ...body, ...everyField }))
  return objectsOf(stored)
}

const moleculeNamed = async (name: string, api = c.admin) => {
  const [molecule] = await storedAndBuilt(api, 'molecules', { names: [name] })
  return molecule!
}

describe('stored record documents', () => {
  it('answer every display of molecule and batch queries, for every member, as built from the tables', async () => {
    await createMolecule(c.writer, c.main, {
      name: 'Shared aspirin',
      molfile: record(
        await c.admin.get(`${c.main}/molecules/${idOf(await moleculeNamed('VD-000001'))}`),
      ).molfile,
      description: 'two projects, one of them hidden from the reader',
      synonyms: ['ASA'],
      udfs: { Priority: 4 },
      projects: [c.projects.kinase.id, c.projects.gpcr.id],
    })
    const sharedId = idOf(await moleculeNamed('Shared aspirin'))
    await c.admin.post(`${c.main}/batches`, {
      molecule: { id: sharedId },
      projects: [c.projects.confidential.id],
    })
    await c.reader.post(`${c.main}/collections`, { name: 'Reader picks', molecules: [sharedId] })
    const displays = [
      {},
      { no_structures: true },
      { include_original_structures: true },
      { include_original_structures: true, no_structures: true },
      { only_batch_ids: true },
    ]
    for (const api of [c.admin, c.writer, c.reader]) {
      for (const display of displays)
        await storedAndBuilt(api, 'molecules', { page_size: 1000, offset: 1001, ...display })
      await storedAndBuilt(api, 'molecules', { page_size: 1000 })
      await storedAndBuilt(api, 'molecules', {
        structure: 'c1ccccc1',
        structure_search_type: 'similarity',
        structure_similarity_threshold: 0.1,
        only_batch_ids: true,
      })
      for (const display of [{}, { only_molecule_ids: true }, { no_structures: true }])
        await storedAndBuilt(api, 'batches', { page_size: 1000, offset: 1001, ...display })
    }
    const asReader = await moleculeNamed('Shared aspirin', c.reader)
    expect(asReader).toMatchObject({
      projects: [{ id: c.projects.kinase.id, name: 'Kinase Inhibitors' }],
      collections: [{ name: 'Reader picks' }],
    })
    expect(asReader.batches).toEqual([])
    expect((await moleculeNamed('Shared aspirin')).batches).toHaveLength(1)
  })

  it('keep the order of the ids-only forms and of similarity results', async () => {
    const ids = (await page(c.admin, 'molecules', { only_ids: true })).objects as number[]
    const reversed = ids.slice(0, 5).reverse()
    const byIds = objectsOf(await page(c.admin, 'molecules', { molecules: reversed }))
    expect(byIds.map(idOf)).toEqual(reversed)
    const inOrder = await storedAndBuilt(c.admin, 'molecules', { page_size: 5 })
    expect(byIds).toEqual([...inOrder].reverse())
    const similar = await storedAndBuilt(c.admin, 'molecules', {
      structure: 'Cc1ccc(NC(=O)c2ccccc2)cc1',
      structure_search_type: 'similarity',
      structure_similarity_threshold: 0.3,
    })
    const scores = similar.map((molecule) => molecule.similarity as number)
    expect(scores.length).toBeGreaterThan(1)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
  })

  it('show every kind of write at once', async () => {
    const molecule = await createMolecule(c.writer, c.main, {
      name: 'Theobromine',
      smiles: 'Cn1cnc2c1c(=O)[nH]c(=O)n2C',
      projects: [c.projects.kinase.id],
    })
    const id = idOf(molecule)
    const batch = record(
      await c.writer.post(`${c.main}/batches`, {
        molecule: { id },
        projects: [c.projects.kinase.id],
      }),
    )
    expect((await moleculeNamed('Theobromine')).batches).toMatchObject([{ id: idOf(batch) }])

    await c.writer.put(`${c.main}/molecules/${id}`, {
      synonyms: ['xantheose'],
      description: 'cocoa',
      udfs: { Priority: 2 },
      projects: [c.projects.kinase.id, c.projects.gpcr.id],
    })
    expect(await moleculeNamed('Theobromine')).toMatchObject({
      synonyms: ['xantheose'],
      description: 'cocoa',
      molecule_fields: { Priority: 2 },
      projects: [{ id: c.projects.kinase.id }, { id: c.projects.gpcr.id }],
    })

    await c.writer.put(`${c.main}/batches/${idOf(batch)}`, {
      name: 'cocoa-1',
      projects: [c.projects.gpcr.id],
    })
    // A plain vault's batch fields come from imports, not from the batch API: whoever writes.
    sim.core.db
      .prepare(`UPDATE batches SET fields = ? WHERE id = ?`)
      .run(JSON.stringify({ Chemist: 'P. Levi', 'Purity (%)': 97.5 }), idOf(batch))
    const renamedBatch = {
      name: 'cocoa-1',
      molecule_batch_identifier: 'Theobromine-cocoa-1',
      batch_fields: { Chemist: 'P. Levi', 'Purity (%)': 97.5 },
      projects: [{ id: c.projects.gpcr.id, name: 'GPCR Ligands' }],
    }
    expect((await moleculeNamed('Theobromine')).batches).toMatchObject([renamedBatch])
    const [asBatch] = await storedAndBuilt(c.writer, 'batches', {
      molecule_batch_identifier: 'Theobromine-cocoa-1',
    })
    expect(asBatch).toMatchObject({ ...renamedBatch, molecule: { synonyms: ['xantheose'] } })

    const shared = record(
      await c.writer.post(`${c.main}/collections`, {
        name: 'Methylxanthines',
        class: 'vault collection',
        molecules: [id],
      }),
    )
    expect((await moleculeNamed('Theobromine')).collections).toEqual([
      { id: idOf(shared), name: 'Methylxanthines' },
    ])
    await c.writer.delete(`${c.main}/collections/${idOf(shared)}`)
    expect((await moleculeNamed('Theobromine')).collections).toEqual([])

    await c.admin.put(`${c.main}/projects/${c.projects.gpcr.id}`, { name: 'GPCR Ligands II' })
    expect(await moleculeNamed('Theobromine')).toMatchObject({
      projects: [{ name: 'Kinase Inhibitors' }, { name: 'GPCR Ligands II' }],
      batches: [{ projects: [{ name: 'GPCR Ligands II' }] }],
    })
    const [renamedProject] = await storedAndBuilt(c.writer, 'batches', {
      molecule_batch_identifier: 'Theobromine-cocoa-1',
    })
    expect(renamedProject!.projects).toEqual([{ id: c.projects.gpcr.id, name: 'GPCR Ligands II' }])

    await c.writer.put(`${c.main}/batches/${idOf(batch)}`, { projects: [] })
    expect((await moleculeNamed('Theobromine')).batches).toEqual([])
  })

  it('show identifiers as soon as a bulk-seeded molecule receives them', async () => {
    const seeded = await moleculeNamed('VD-000002')
    expect(seeded.inchi_key).toBeUndefined()
    const shown = record(await c.admin.get(`${c.main}/molecules/${idOf(seeded)}`))
    const identified = await moleculeNamed('VD-000002')
    expect(identified).toMatchObject({
      smiles: shown.smiles,
      inchi: shown.inchi,
      inchi_key: shown.inchi_key,
      molfile: shown.molfile,
    })
  })

  it('serve the JSON export of molecules from the same documents', async () => {
    const progress = record(
      await c.admin.post(`${c.main}/molecules/query`, { async: true, names: ['Theobromine'] }),
    )
    const redirect = await c.admin.get(`${c.main}/exports/${idOf(progress)}`)
    expect(redirect.status).toBe(302)
    const download = await raw(redirect.headers.get('location')!, 'GET', '')
    const exported = JSON.parse(new TextDecoder().decode(download.bytes)) as unknown
    expect(exported).toEqual({ count: 1, objects: [await moleculeNamed('Theobromine')] })
  })
})
