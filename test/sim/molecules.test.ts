import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim } from '../../src-sim/index.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { cast, createMolecule, idOf, objectsOf } from './fixtures.ts'
import { raw, record } from './http.ts'

let sim: VaultSim
let c: ReturnType<typeof cast>

beforeAll(async () => {
  sim = await startVaultSim({ seed: 'empty', exportTiming: { startDelayMs: 0, durationMs: 0 } })
  c = cast(sim)
})
afterAll(() => sim.stop())

describe('POST /vaults/{vault_id}/molecules', () => {
  it('creates a molecule with computed properties, synonyms, fields and projects by id or name', async () => {
    const molecule = await createMolecule(c.writer, c.main, {
      name: 'Paracetamol',
      smiles: 'CC(=O)Nc1ccc(O)cc1',
      synonyms: ['acetaminophen', 'APAP'],
      udfs: { Series: 'Benzamides', Priority: '2' },
      projects: [c.projects.kinase.id, 'GPCR Ligands'],
      description: 'analgesic',
    })
    expect(molecule).toMatchObject({
      class: 'molecule',
      name: 'Paracetamol',
      synonyms: ['acetaminophen', 'APAP'],
      registration_type: 'CHEMICAL_STRUCTURE',
      owner: 'Rosalind Franklin',
      smiles: 'CC(=O)Nc1ccc(O)cc1',
      inchi_key: 'RZVAJINKPMORJF-UHFFFAOYSA-N',
      formula: 'C8H9NO2',
      heavy_atom_count: 11,
      num_h_bond_donors: 2,
      molecule_fields: { Series: 'Benzamides', Priority: 2 },
      udfs: { Series: 'Benzamides', Priority: 2 },
      batches: [],
      projects: [
        { id: c.projects.kinase.id, name: 'Kinase Inhibitors' },
        { id: c.projects.gpcr.id, name: 'GPCR Ligands' },
      ],
    })
    expect(molecule.molecular_weight).toBeCloseTo(151.165, 2)
    expect(molecule.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/)
  })

  it('reads a molfile whose first (name) line is blank, as the molfile member of a record is', async () => {
    const ethanol = await createMolecule(c.writer, c.main, {
      name: 'Ethyl alcohol',
      smiles: 'CCO',
      projects: [c.projects.kinase.id],
    })
    const shown = record(await c.writer.get(`${c.main}/molecules/${idOf(ethanol)}`))
    const molfile = shown.molfile as string
    expect(molfile.split('\n')[0]).toBe('')
    const copy = await createMolecule(c.writer, c.main, {
      name: 'Ethanol from its molfile',
      molfile,
      projects: [c.projects.kinase.id],
    })
    expect(copy).toMatchObject({ smiles: 'CCO', formula: 'C2H6O' })
    const found = await c.writer.post(`${c.main}/molecules/query`, {
      structure: molfile,
      structure_search_type: 'exact',
    })
    expect(found.status).toBe(200)
    expect(objectsOf(record(found)).map(idOf)).toEqual([idOf(ethanol), idOf(copy)])
  })

  it('answers 422 naming the field for a bad structure, duplicate name, unknown field, missing or read-only project', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'Bad', smiles: 'C1CC(', projects: [c.projects.kinase.id] }, 'smiles'],
      [{ name: 'Paracetamol', smiles: 'CCO', projects: [c.projects.kinase.id] }, 'name'],
      [
        { name: 'Odd field', udfs: { Colour: 'red' }, projects: [c.projects.kinase.id] },
        'udfs.Colour',
      ],
      [
        { name: 'Odd pick', udfs: { Series: 'Nonsense' }, projects: [c.projects.kinase.id] },
        'udfs.Series',
      ],
      [{ name: 'No project', smiles: 'CCO' }, 'projects'],
      [
        { name: 'Hidden project', smiles: 'CCO', projects: [c.projects.confidential.id] },
        'projects[0]',
      ],
      [
        { name: 'Two structures', smiles: 'CCO', molfile: 'x', projects: [c.projects.kinase.id] },
        'molfile',
      ],
      [{ name: 'Typo', smile: 'CCO', projects: [c.projects.kinase.id] }, "'smile'"],
    ]
    for (const [body, field] of cases) {
      const answer = await c.writer.post(`${c.main}/molecules`, body)
      expect(answer.status, JSON.stringify(body)).toBe(422)
      expect(record(answer)).toEqual({ code: 422, error: expect.stringContaining(field) })
    }
    const reader = await c.reader.post(`${c.main}/molecules`, {
      name: 'Reader',
      smiles: 'CCO',
      projects: [c.projects.kinase.id],
    })
    expect(reader.status).toBe(422)
    expect(record(reader).error).toContain('may not add data')
  })

  it('answers 422 in a vault with a registration system, 401 without a key, 400 for malformed JSON', async () => {
    const registration = await c.admin.post(`${c.ai}/molecules`, {
      name: 'X',
      smiles: 'CCO',
      projects: [c.projects.aiExploration.id],
    })
    expect(registration.status).toBe(422)
    expect(record(registration).error).toContain('registration system')
    const anonymous = await raw(sim.baseUrl, 'POST', `${c.main}/molecules`, {
      body: { name: 'Anonymous' },
    })
    expect(anonymous.status).toBe(401)
    const malformed = await c.admin.call('POST', `${c.main}/molecules`, {
      rawBody: { bytes: '{"name": ', contentType: 'application/json' },
    })
    expect(malformed.status).toBe(400)
    expect(record(malformed).error).toContain('not valid JSON')
    const notObject = await c.admin.post(`${c.main}/molecules`, [1, 2])
    expect(notObject.status).toBe(400)
  })
})

describe('GET /vaults/{vault_id}/molecules/{id}', () => {
  it('shows a molecule with its molfile, and honours no_structures, only_batch_ids and owner_id', async () => {
    const created = await createMolecule(c.admin, c.main, {
      name: 'Aspirin',
      smiles: 'CC(=O)Oc1ccccc1C(=O)O',
      projects: [c.projects.kinase.id],
    })
    const batch = record(
      await c.admin.post(`${c.main}/batches`, {
        molecule: { id: idOf(created) },
        projects: [c.projects.kinase.id],
      }),
    )
    const shown = record(await c.reader.get(`${c.main}/molecules/${idOf(created)}`))
    expect(shown.molfile).toContain('M  END')
    expect(shown.smiles).toBe('CC(=O)Oc1ccccc1C(=O)O')
    const lean = record(
      await c.reader.get(`${c.main}/molecules/${idOf(created)}`, {
        no_structures: true,
        only_batch_ids: true,
        owner_id: true,
      }),
    )
    expect(lean.smiles).toBeUndefined()
    expect(lean.molfile).toBeUndefined()
    expect(lean.batches).toEqual([idOf(batch)])
    expect(lean.owner_id).toEqual({
      id: sim.cast.users.admin.id,
      first_name: 'Ada',
      last_name: 'Lovelace',
    })
    const original = record(
      await c.admin.get(`${c.main}/molecules/${idOf(created)}`, {
        include_original_structures: true,
      }),
    )
    expect(original.original_structure).toBe('CC(=O)Oc1ccccc1C(=O)O')
  })

  it('answers 404 for an unknown molecule and for one outside the user’s projects', async () => {
    const hidden = await createMolecule(c.admin, c.main, {
      name: 'Secret',
      smiles: 'CCCN',
      projects: [c.projects.confidential.id],
    })
    expect((await c.admin.get(`${c.main}/molecules/${idOf(hidden)}`)).status).toBe(200)
    const forWriter = await c.writer.get(`${c.main}/molecules/${idOf(hidden)}`)
    expect(forWriter.status).toBe(404)
    expect(record(forWriter)).toEqual({ code: 404, error: `Molecule ${idOf(hidden)} not found` })
    expect((await c.admin.get(`${c.main}/molecules/999999`)).status).toBe(404)
  })
})

describe('PUT /vaults/{vault_id}/molecules/{id}', () => {
  it('changes supplied fields only (null or empty clears a field value), replaces synonyms, projects and collections, keeps an old name as synonym', async () => {
    const molecule = await createMolecule(c.writer, c.main, {
      name: 'Caffeine',
      smiles: 'Cn1c(=O)c2c(ncn2C)n(C)c1=O',
      synonyms: ['guaranine'],
      udfs: { Priority: 3, Series: 'Azoles' },
      projects: [c.projects.kinase.id],
    })
    const id = idOf(molecule)
    const collection = record(
      await c.writer.post(`${c.main}/collections`, { name: 'Stimulants', molecules: [id] }),
    )
    const other = record(
      await c.writer.post(`${c.main}/collections`, { name: 'Alkaloids', molecules: [] }),
    )
    const updated = record(
      await c.writer.put(`${c.main}/molecules/${id}`, {
        id,
        name: 'Caffeine (anhydrous)',
        synonyms: ['theine'],
        udfs: { Priority: 1 },
        projects: [c.projects.gpcr.id],
        collections: [idOf(other)],
        class: 'molecule',
        formula: 'ignored echo',
      }),
    )
    expect(updated).toMatchObject({
      name: 'Caffeine (anhydrous)',
      synonyms: ['theine', 'Caffeine'],
      molecule_fields: { Priority: 1, Series: 'Azoles' },
      projects: [{ id: c.projects.gpcr.id, name: 'GPCR Ligands' }],
      collections: [{ id: idOf(other), name: 'Alkaloids' }],
      formula: 'C8H10N4O2',
    })
    expect(
      record(await c.writer.get(`${c.main}/collections/${idOf(collection)}`)).molecules,
    ).toEqual([])
    const restructured = record(
      await c.writer.put(`${c.main}/molecules/${id}`, { smiles: 'Cn1cnc2c1c(=O)[nH]c(=O)n2C' }),
    )
    expect(restructured.formula).toBe('C7H8N4O2')
    expect(restructured.name).toBe('Caffeine (anhydrous)')
    const cleared = record(
      await c.writer.put(`${c.main}/molecules/${id}`, { udfs: { Series: null, Priority: '' } }),
    )
    expect(cleared.molecule_fields).toEqual({})
  })

  it('answers 422 for a body id other than the path id or bad values, 404 for unknown, 401 without write permission', async () => {
    const molecule = await createMolecule(c.writer, c.main, {
      name: 'Ethanol',
      smiles: 'CCO',
      projects: [c.projects.kinase.id],
    })
    const id = idOf(molecule)
    const mismatch = await c.writer.put(`${c.main}/molecules/${id}`, { id: id + 1, name: 'x' })
    expect(mismatch.status).toBe(422)
    expect(record(mismatch).error).toContain('id must equal the id in the path')
    expect(
      (await c.writer.put(`${c.main}/molecules/${id}`, { smiles: 'not a smiles' })).status,
    ).toBe(422)
    expect((await c.writer.put(`${c.main}/molecules/${id}`, { projects: [] })).status).toBe(422)
    expect((await c.writer.put(`${c.main}/molecules/999999`, { name: 'x' })).status).toBe(404)
    expect((await c.reader.put(`${c.main}/molecules/${id}`, { name: 'x' })).status).toBe(401)
  })
})

describe('GET /vaults/{vault_id}/molecules/{id}/image', () => {
  it('answers an export that finishes into a PNG or an SVG on the download origin', async () => {
    const molecule = await createMolecule(c.admin, c.main, {
      name: 'Benzoic acid',
      smiles: 'OC(=O)c1ccccc1',
      projects: [c.projects.kinase.id],
    })
    for (const format of ['png', 'svg']) {
      const started = record(
        await c.admin.get(`${c.main}/molecules/${idOf(molecule)}/image`, {
          width: 200,
          height: 150,
          format,
        }),
      )
      expect(started).toMatchObject({
        id: expect.any(Number),
        status: expect.stringMatching(/new|started|finished/),
      })
      const bytes = await downloadWhenFinished(idOf(started))
      if (format === 'png')
        expect([...bytes.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10])
      else expect(new TextDecoder().decode(bytes)).toContain('<svg')
    }
  })

  it('answers 404 for an unknown molecule and 422 for a bad size or format', async () => {
    expect((await c.admin.get(`${c.main}/molecules/999999/image`)).status).toBe(404)
    const molecule = await createMolecule(c.admin, c.main, {
      name: 'Toluene',
      smiles: 'Cc1ccccc1',
      projects: [c.projects.kinase.id],
    })
    expect(
      (await c.admin.get(`${c.main}/molecules/${idOf(molecule)}/image`, { width: 5 })).status,
    ).toBe(422)
    expect(
      (await c.admin.get(`${c.main}/molecules/${idOf(molecule)}/image`, { format: 'gif' })).status,
    ).toBe(422)
  })
})

async function downloadWhenFinished(exportId: number): Promise<Uint8Array> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const progress = record(await c.admin.get(`${c.main}/export_progress/${exportId}`))
    if (progress.status === 'finished') {
      const redirect = await c.admin.get(`${c.main}/exports/${exportId}`)
      expect(redirect.status).toBe(302)
      const location = redirect.headers.get('location')!
      expect(location.startsWith(sim.downloadBaseUrl)).toBe(true)
      const file = await fetch(location)
      expect(file.status).toBe(200)
      return new Uint8Array(await file.arrayBuffer())
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`Export ${exportId} did not finish`)
}

describe('POST /vaults/{vault_id}/molecules/query (basic)', () => {
  it('pages with count, offset and page_size', async () => {
    const page = record(
      await c.admin.post(`${c.main}/molecules/query`, { page_size: 2, offset: 1 }),
    )
    expect(page).toMatchObject({ offset: 1, page_size: 2 })
    expect(objectsOf(page)).toHaveLength(2)
    expect(page.count).toBeGreaterThanOrEqual(6)
  })
})

describe('repeated queries', () => {
  it('answer the same page again, and show a change as soon as it is written', async () => {
    const molecule = await createMolecule(c.writer, c.main, {
      name: 'Menthol',
      smiles: 'CC(C)C1CCC(C)CC1O',
      projects: [c.projects.kinase.id],
    })
    const body = { names: ['Menthol', 'Menthol (renamed)'], page_size: 10 }
    const first = record(await c.writer.post(`${c.main}/molecules/query`, body))
    expect(record(await c.writer.post(`${c.main}/molecules/query`, body))).toEqual(first)
    await c.writer.put(`${c.main}/molecules/${idOf(molecule)}`, { name: 'Menthol (renamed)' })
    const after = objectsOf(record(await c.writer.post(`${c.main}/molecules/query`, body)))
    expect(after.map((item) => item.name)).toEqual(['Menthol (renamed)'])
    expect(after[0]!.synonyms).toEqual(['Menthol'])
  })
})
