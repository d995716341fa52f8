import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { collect, expectApiError, useSim } from './support/sim.ts'

const harness = useSim()

describe('molecules', () => {
  it('reads one page of a query and every record of it page by page', async () => {
    const molecules = harness.client('reader').molecules
    const vault = harness.vaults.main
    const page = await molecules.query(vault, { page_size: 25, offset: 5 })
    expect(page.objects).toHaveLength(25)
    expect(page.count).toBeGreaterThan(100)
    const [first] = page.objects
    expect(first).toMatchObject({ id: expect.any(Number), smiles: expect.any(String) })
    expect(first?.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
    const all = await collect(molecules.queryAll(vault, { no_structures: true }, { pageSize: 400 }))
    expect(all).toHaveLength(page.count!)
    expect(new Set(all.map((molecule) => molecule.id)).size).toBe(page.count)
    expect(all.every((molecule) => molecule.smiles === undefined)).toBe(true)
  })

  it('filters by structure and answers the ids alone', async () => {
    const molecules = harness.client().molecules
    const vault = harness.vaults.main
    const ids = await collect(
      molecules.queryIds(vault, { structure: 'c1ccccc1', structure_search_type: 'substructure' }),
    )
    expect(ids.length).toBeGreaterThan(0)
    expect(ids.every((id) => Number.isInteger(id))).toBe(true)
    const chosen = await molecules.query(vault, { molecules: ids.slice(0, 3) })
    expect(chosen.objects.map((molecule) => molecule.id).sort()).toEqual(ids.slice(0, 3).sort())
  })

  it('answers 422 for a query member the server refuses', async () => {
    await expectApiError(
      harness.client().molecules.query(harness.vaults.main, {
        structure: 'c1ccccc1',
        structure_similarity_threshold: 7,
        structure_search_type: 'similarity',
      }),
      'validation',
      422,
    )
  })

  it('exports a query and streams its records', async () => {
    const molecules = harness.client().molecules
    const vault = harness.vaults.main
    const expected = (
      await molecules.query(vault, { projects: [harness.projects.gpcr], page_size: 1 })
    ).count
    const finished = await molecules.export(vault, { projects: [harness.projects.gpcr] })
    const records = await collect(finished.records())
    expect(records).toHaveLength(expected!)
    expect(records[0]).toMatchObject({ id: expect.any(Number), projects: expect.any(Array) })
  })

  it('saves an SDF export to a file', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-api-sdf-'))
    try {
      const finished = await harness
        .client()
        .molecules.export(
          harness.vaults.main,
          { projects: [harness.projects.gpcr] },
          { format: 'sdf' },
        )
      const file = path.join(directory, 'gpcr.sdf')
      const { bytes } = await finished.saveTo(file)
      const text = fs.readFileSync(file, 'utf8')
      expect(bytes).toBe(Buffer.byteLength(text))
      expect(text).toContain('$$$$')
    } finally {
      fs.rmSync(directory, { recursive: true, force: true })
    }
  })

  it('creates, reads and changes a molecule', async () => {
    const molecules = harness.client('writer').molecules
    const vault = harness.vaults.main
    const created = await molecules.create(vault, {
      name: 'VD-API-1',
      smiles: 'CC(=O)Oc1ccccc1C(=O)O',
      projects: [harness.projects.kinase],
      synonyms: ['aspirin'],
    })
    expect(created).toMatchObject({ name: 'VD-API-1', synonyms: ['aspirin'] })
    const read = await molecules.get(vault, created.id, { only_batch_ids: true })
    expect(read.id).toBe(created.id)
    const renamed = await molecules.update(vault, created.id, { name: 'VD-API-1b' })
    expect(renamed.name).toBe('VD-API-1b')
    expect(renamed.synonyms).toContain('VD-API-1')
  })

  it('answers 422 for an invalid molecule and in a registration vault', async () => {
    const molecules = harness.client().molecules
    await expectApiError(
      molecules.create(harness.vaults.main, { name: 'no projects', smiles: 'CCO' }),
      'validation',
      422,
    )
    await expectApiError(
      molecules.create(harness.vaults.ai, {
        name: 'registered elsewhere',
        smiles: 'CCO',
        projects: [harness.projects.aiExploration],
      }),
      'validation',
      422,
    )
    const [first] = (await molecules.query(harness.vaults.main, { page_size: 1 })).objects
    await expectApiError(
      molecules.update(harness.vaults.main, first!.id, { projects: [] }),
      'validation',
      422,
    )
  })

  it('answers 404 for a molecule that does not exist', async () => {
    const molecules = harness.client().molecules
    await expectApiError(molecules.get(harness.vaults.main, 99_999_999), 'not_found', 404)
    await expectApiError(
      molecules.update(harness.vaults.main, 99_999_999, { name: 'x' }),
      'not_found',
      404,
    )
    await expectApiError(molecules.image(harness.vaults.main, 99_999_999), 'not_found', 404)
  })

  it('renders an image as an export to download', async () => {
    const molecules = harness.client().molecules
    const [first] = (await molecules.query(harness.vaults.main, { page_size: 1 })).objects
    const finished = await molecules.image(harness.vaults.main, first!.id, {
      width: 200,
      height: 150,
      format: 'svg',
    })
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-api-image-'))
    try {
      const file = path.join(directory, 'molecule.svg')
      await finished.saveTo(file)
      expect(fs.readFileSync(file, 'utf8')).toContain('<svg')
    } finally {
      fs.rmSync(directory, { recursive: true, force: true })
    }
  })
})

describe('batches', () => {
  it('reads a page, every record, the ids, and an export', async () => {
    const batches = harness.client('admin').batches
    const vault = harness.vaults.main
    const page = await batches.query(vault, { page_size: 10, only_molecule_ids: true })
    expect(page.objects[0]?.molecule).toEqual(expect.any(Number))
    const filter = { projects: [harness.projects.gpcr] }
    const all = await collect(batches.queryAll(vault, filter, { pageSize: 250 }))
    const ids = await collect(batches.queryIds(vault, filter))
    expect(ids.sort()).toEqual(all.map((batch) => batch.id).sort())
    const exported = await collect((await batches.export(vault, filter)).records())
    expect(exported.map((batch) => batch.id).sort()).toEqual(ids)
    const byIds = await batches.query(vault, { batches: ids.slice(0, 2) })
    expect(byIds.objects.map((batch) => batch.id).sort()).toEqual(ids.slice(0, 2))
  })

  it('creates a batch of a new molecule, reads it and renames it', async () => {
    const batches = harness.client('writer').batches
    const vault = harness.vaults.main
    const created = await batches.create(vault, {
      name: 'B-1',
      projects: [harness.projects.kinase],
      molecule: { name: 'VD-API-2', smiles: 'c1ccncc1' },
    })
    expect(created.molecule).toMatchObject({ name: 'VD-API-2' })
    const read = await batches.get(vault, created.id, { owner_id: true })
    expect(read.owner_id).toMatchObject({ id: harness.sim.cast.users.writer.id })
    const renamed = await batches.update(vault, created.id, { name: 'B-1-renamed' })
    expect(renamed.name).toBe('B-1-renamed')
  })

  it('answers 422 for a batch that cannot be created, and 404 for one that does not exist', async () => {
    const batches = harness.client('writer').batches
    await expectApiError(
      batches.create(harness.vaults.main, { name: 'orphan', projects: [harness.projects.kinase] }),
      'validation',
      422,
    )
    await expectApiError(batches.get(harness.vaults.main, 99_999_999), 'not_found', 404)
    await expectApiError(
      batches.update(harness.vaults.main, 99_999_999, { name: 'x' }),
      'not_found',
      404,
    )
  })
})

describe('collections', () => {
  it('creates a collection, adds molecules, queries, reads and deletes it', async () => {
    const client = harness.client('writer')
    const vault = harness.vaults.main
    const ids = (await client.molecules.query(vault, { page_size: 3 })).objects.map(
      (molecule) => molecule.id,
    )
    const created = await client.collections.create(vault, {
      name: 'API picks',
      molecules: [ids[0]!],
    })
    expect(created).toMatchObject({ name: 'API picks', molecules: [ids[0]] })
    const grown = await client.collections.addMolecules(vault, created.id, ids.slice(1))
    expect(grown.molecules?.sort()).toEqual([...ids].sort())
    const found = await collect(
      client.collections.queryAll(vault, { collections: [created.id], include_molecule_ids: true }),
    )
    expect(found.map((collection) => collection.id)).toEqual([created.id])
    expect(await collect(client.collections.queryIds(vault, {}))).toContain(created.id)
    const exported = await collect((await client.collections.export(vault, {})).records())
    expect(exported.map((collection) => collection.id)).toContain(created.id)
    expect((await client.collections.get(vault, created.id)).name).toBe('API picks')
    const deleted = await client.collections.delete(vault, created.id)
    expect(deleted?.message).toEqual(expect.any(String))
    await expectApiError(client.collections.get(vault, created.id), 'not_found', 404)
    await expectApiError(client.collections.delete(vault, created.id), 'not_found', 404)
  })

  it('answers 422 for a duplicate name unless overwriting', async () => {
    const collections = harness.client('writer').collections
    const vault = harness.vaults.main
    await collections.create(vault, { name: 'Twice' })
    await expectApiError(collections.create(vault, { name: 'Twice' }), 'validation', 422)
    expect((await collections.create(vault, { name: 'Twice', overwrite: true })).name).toBe('Twice')
  })
})
