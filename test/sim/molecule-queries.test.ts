import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim } from '../../src-sim/index.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { cast, createMolecule, idOf, objectsOf } from './fixtures.ts'
import { record } from './http.ts'

let sim: VaultSim
let c: ReturnType<typeof cast>
const ids: Record<string, number> = {}

const structures: [string, string, Record<string, unknown>][] = [
  ['benzene', 'c1ccccc1', { Series: 'Biaryls', Priority: 1, 'First Synthesized': '2025-01-15' }],
  ['toluene', 'Cc1ccccc1', { Series: 'Biaryls', Priority: 2 }],
  ['phenol', 'Oc1ccccc1', { Series: 'Azoles', Priority: 2 }],
  ['pyridine', 'c1ccncc1', { Series: 'Azoles' }],
  ['cyclohexane', 'C1CCCCC1', {}],
  [
    'imatinib',
    'Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1',
    { Series: 'Aminoquinazolines', Priority: 5 },
  ],
]

beforeAll(async () => {
  sim = await startVaultSim({ seed: 'empty' })
  c = cast(sim)
  for (const [name, smiles, udfs] of structures) {
    ids[name] = idOf(
      await createMolecule(c.writer, c.main, {
        name,
        smiles,
        udfs,
        projects: [c.projects.kinase.id],
      }),
    )
  }
})
afterAll(() => sim.stop())

const query = async (body: Record<string, unknown>, api = c.writer) => {
  const answer = await api.post(`${c.main}/molecules/query`, body)
  if (answer.status !== 200) throw new Error(`${answer.status} ${JSON.stringify(answer.json)}`)
  return record(answer)
}
const names = async (body: Record<string, unknown>, api = c.writer) =>
  objectsOf(await query({ ...body, no_structures: true }, api)).map((molecule) => molecule.name)
const expect422 = async (body: Record<string, unknown>, field: string) => {
  const answer = await c.writer.post(`${c.main}/molecules/query`, body)
  expect(answer.status, JSON.stringify(body)).toBe(422)
  expect(record(answer).error).toContain(field)
}

describe('collection_criteria', () => {
  it('combines collections with AND, OR and XOR from left to right, and not_in', async () => {
    const aromatic = idOf(
      record(
        await c.writer.post(`${c.main}/collections`, {
          name: 'Aromatic',
          molecules: [ids.benzene, ids.toluene, ids.phenol, ids.pyridine],
        }),
      ),
    )
    const carbocycles = idOf(
      record(
        await c.writer.post(`${c.main}/collections`, {
          name: 'Carbocycles',
          molecules: [ids.benzene, ids.toluene, ids.cyclohexane],
        }),
      ),
    )
    const criteria = (second: Record<string, unknown>) => ({
      collection_criteria: [
        { collection_id: aromatic, junction: 'XOR' },
        { collection_id: carbocycles, ...second },
      ],
    })
    expect(await names(criteria({ junction: 'AND' }))).toEqual(['benzene', 'toluene'])
    expect(await names(criteria({ junction: 'OR' }))).toEqual([
      'benzene',
      'toluene',
      'phenol',
      'pyridine',
      'cyclohexane',
    ])
    expect(await names(criteria({ junction: 'XOR' }))).toEqual([
      'phenol',
      'pyridine',
      'cyclohexane',
    ])
    expect(await names(criteria({ junction: 'AND', not_in: true }))).toEqual(['phenol', 'pyridine'])
    expect(
      await names({ collection_criteria: [{ collection_id: aromatic, not_in: true }] }),
    ).toEqual(['cyclohexane', 'imatinib'])
  })

  it('answers 404 for a collection the user cannot see and 422 for a bad junction', async () => {
    const private_ = idOf(
      record(await c.admin.post(`${c.main}/collections`, { name: 'Admin only', molecules: [] })),
    )
    expect(
      (
        await c.writer.post(`${c.main}/molecules/query`, {
          collection_criteria: [{ collection_id: private_ }],
        })
      ).status,
    ).toBe(404)
    await expect422(
      { collection_criteria: [{ collection_id: private_, junction: 'NAND' }] },
      'collection_criteria[0].junction',
    )
    await expect422(
      { collection_criteria: [{ junction: 'AND' }] },
      'collection_criteria[0].collection_id',
    )
  })
})

describe('fields_search and structure_criterion', () => {
  it('matches text (contained, any case), number and date values of molecule fields, and internal names', async () => {
    expect(await names({ fields_search: [{ name: 'Series', text_value: 'biaRYL' }] })).toEqual([
      'benzene',
      'toluene',
    ])
    expect(await names({ fields_search: [{ name: 'Priority', number_value: 2 }] })).toEqual([
      'toluene',
      'phenol',
    ])
    expect(
      await names({ fields_search: [{ name: 'First Synthesized', date_value: '2025-01-15' }] }),
    ).toEqual(['benzene'])
    expect(
      await names({
        fields_search: [
          { name: 'Molecule Name', text_value: 'ene' },
          { name: 'Series', text_value: 'Biaryls' },
        ],
      }),
    ).toEqual(['benzene', 'toluene'])
  })

  it('answers 422 for an unknown field or a search with no or two values', async () => {
    await expect422(
      { fields_search: [{ name: 'Colour', text_value: 'red' }] },
      'fields_search[0].name',
    )
    await expect422({ fields_search: [{ name: 'Series' }] }, 'fields_search[0].name')
    await expect422(
      { fields_search: [{ name: 'Priority', number_value: 1, text_value: '1' }] },
      'exactly one',
    )
    await expect422(
      { fields_search: [{ name: 'Priority', number_value: 'high' }] },
      'fields_search[0].number_value',
    )
  })

  it('filters on property ranges and rejects unknown properties and inverted ranges', async () => {
    expect(
      await names({
        structure_criterion: { heavy_atom_count_minimum: 7, heavy_atom_count_maximum: 7 },
      }),
    ).toEqual(['toluene', 'phenol'])
    expect(await names({ structure_criterion: { cd_molweight_minimum: 300 } })).toEqual([
      'imatinib',
    ])
    expect(await names({ structure_criterion: { num_aromatic_rings_maximum: 0 } })).toEqual([
      'cyclohexane',
    ])
    expect(
      await names({ structure_criterion: { num_h_bond_donors_minimum: 1, log_p_maximum: 2 } }),
    ).toEqual(['phenol'])
    await expect422(
      { structure_criterion: { colour_minimum: 1 } },
      'structure_criterion.colour_minimum',
    )
    await expect422(
      { structure_criterion: { log_p_minimum: 3, log_p_maximum: 1 } },
      'log_p_minimum',
    )
    await expect422(
      { structure_criterion: { heavy_atom_count_minimum: 2.5 } },
      'structure_criterion.heavy_atom_count_minimum',
    )
  })
})

describe('structure search', () => {
  it('finds exact matches whatever the input SMILES, substructures, and similar structures above a threshold', async () => {
    expect(await names({ structure: 'C1=CC=CC=C1C', structure_search_type: 'exact' })).toEqual([
      'toluene',
    ])
    expect(await names({ structure: 'c1ccccc1' })).toEqual([
      'benzene',
      'toluene',
      'phenol',
      'imatinib',
    ])
    expect(await names({ structure: 'c1ccncc1', structure_search_type: 'substructure' })).toEqual([
      'pyridine',
      'imatinib',
    ])
    const similar = objectsOf(
      await query({
        structure: 'Cc1ccccc1',
        structure_search_type: 'similarity',
        structure_similarity_threshold: 0.3,
      }),
    )
    expect(similar[0]).toMatchObject({ name: 'toluene', similarity: 1 })
    const scores = similar.map((molecule) => molecule.similarity as number)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
    expect(scores.every((score) => score >= 0.3)).toBe(true)
    expect(similar.map((molecule) => molecule.name)).not.toContain('cyclohexane')
  })

  it('combines structure search with other members and answers 422 for bad structures or thresholds', async () => {
    expect(
      await names({
        structure: 'c1ccccc1',
        fields_search: [{ name: 'Priority', number_value: 2 }],
      }),
    ).toEqual(['toluene', 'phenol'])
    await expect422({ structure: 'C1CC(', structure_search_type: 'exact' }, 'structure')
    await expect422(
      { structure: 'CC', structure_similarity_threshold: 1.5 },
      'structure_similarity_threshold',
    )
    await expect422({ structure: 'CC', structure_search_type: 'fuzzy' }, 'structure_search_type')
    await expect422({ structure_search_type: 'exact' }, 'structure')
  })

  it('looks molecules up by name, synonym and InChIKey', async () => {
    await c.writer.put(`${c.main}/molecules/${ids.phenol}`, { synonyms: ['carbolic acid'] })
    expect(await names({ names: ['BENZENE', 'carbolic acid'] })).toEqual(['benzene', 'phenol'])
    expect(await names({ inchikey: 'ISWSIDIOOBJBQZ-UHFFFAOYSA-N' })).toEqual(['phenol'])
  })
})

describe('dates', () => {
  it('accepts plain dates, local date-times in the user’s time zone and explicit offsets, to the second', async () => {
    sim.clock.freeze()
    try {
      const made: string[] = []
      for (const [name, moment] of [
        ['d1', '2025-06-01T10:00:00Z'],
        ['d2', '2025-06-01T10:00:05Z'],
        ['d3', '2025-06-02T03:30:00Z'],
      ] as const) {
        sim.clock.set(new Date(moment))
        await createMolecule(c.writer, c.main, {
          name,
          smiles: 'CC',
          projects: [c.projects.kinase.id],
        })
        made.push(name)
      }
      const only = { names: made }
      // Fractions of a second are ignored: 10:00:05.900 filters as 10:00:05, and `after` includes it.
      expect(await names({ ...only, created_after: '2025-06-01T10:00:05.900Z' })).toEqual([
        'd2',
        'd3',
      ])
      // Rosalind's account is in America/New_York (UTC-4 in June).
      expect(await names({ ...only, created_after: '2025-06-01T06:00:05' })).toEqual(['d2', 'd3'])
      expect(await names({ ...only, created_after: '2025-06-01T12:00:05+02:00' })).toEqual([
        'd2',
        'd3',
      ])
      expect(await names({ ...only, created_before: '2025-06-02' })).toEqual(['d1', 'd2', 'd3'])
      // Ada's account is in UTC, so the same plain date ends four hours earlier.
      expect(await names({ ...only, created_before: '2025-06-02' }, c.admin)).toEqual(['d1', 'd2'])
      expect(
        await names({
          ...only,
          modified_after: '2025-06-01T10:00:01Z',
          modified_before: '2025-06-02T00:00:00Z',
        }),
      ).toEqual(['d2'])
      await expect422({ created_after: '2025-13-01' }, 'created_after')
      await expect422({ modified_before: 'yesterday' }, 'modified_before')
    } finally {
      sim.clock.resume()
      sim.clock.set(Date.now())
    }
  })
})

describe('result shape members and paging', () => {
  it('answers only ids, leaves structures out, adds owner ids, limits fields and lists batch ids', async () => {
    const onlyIds = await query({ only_ids: true, names: ['benzene', 'toluene'] })
    expect(onlyIds.objects).toEqual([ids.benzene, ids.toluene])
    await c.writer.post(`${c.main}/batches`, {
      molecule: { id: ids.benzene },
      projects: [c.projects.kinase.id],
    })
    const [benzene] = objectsOf(
      await query({
        names: ['benzene'],
        no_structures: true,
        owner_id: true,
        molecule_fields: ['Priority'],
        only_batch_ids: true,
      }),
    )
    expect(benzene!.smiles).toBeUndefined()
    expect(benzene!.owner_id).toEqual({
      id: sim.cast.users.writer.id,
      first_name: 'Rosalind',
      last_name: 'Franklin',
    })
    expect(benzene!.molecule_fields).toEqual({ Priority: 1 })
    expect(benzene!.batches).toEqual([expect.any(Number)])
  })

  it('defaults page_size to 50, refuses more than 1000, and pages with offset', async () => {
    const first = await query({ page_size: 3 })
    const second = await query({ page_size: 3, offset: 3 })
    expect(first.count).toBe(second.count)
    const allIds = (await query({ only_ids: true })).objects as number[]
    expect(allIds.length).toBe(first.count)
    expect([...objectsOf(first), ...objectsOf(second)].map(idOf)).toEqual(allIds.slice(0, 6))
    expect((await query({})).page_size).toBe(50)
    await expect422({ page_size: 1001 }, 'page_size')
    await expect422({ offset: -1 }, 'offset')
    await expect422({ pagesize: 10 }, "'pagesize'")
  })

  it('answers the molecules-only form and 404 listing missing ids, hiding molecules of other projects', async () => {
    const hidden = idOf(
      await createMolecule(c.admin, c.main, {
        name: 'secret',
        smiles: 'CCCl',
        projects: [c.projects.confidential.id],
      }),
    )
    expect(objectsOf(await query({ molecules: [ids.phenol, ids.benzene] })).map(idOf)).toEqual([
      ids.phenol,
      ids.benzene,
    ])
    const missing = await c.writer.post(`${c.main}/molecules/query`, {
      molecules: [ids.phenol, hidden],
    })
    expect(missing.status).toBe(404)
    expect(record(missing).error).toContain(String(hidden))
    await expect422({ molecules: [ids.phenol], no_structures: true }, 'molecules')
    expect(await names({})).not.toContain('secret')
    expect(await names({}, c.admin)).toContain('secret')
    const outsideProject = await c.writer.post(`${c.main}/molecules/query`, {
      projects: [c.projects.confidential.id],
    })
    expect(outsideProject.status).toBe(404)
  })

  it('answers the deprecated GET form like the POST form', async () => {
    const body = { names: ['benzene', 'toluene'], page_size: 1, offset: 1, no_structures: true }
    const posted = await query(body)
    const got = record(
      await c.writer.get(`${c.main}/molecules`, {
        names: 'benzene,toluene',
        page_size: 1,
        offset: 1,
        no_structures: true,
      }),
    )
    expect(got).toEqual(posted)
  })

  it('shows the reader only the projects it reaches', async () => {
    const shared = idOf(
      await createMolecule(c.admin, c.main, {
        name: 'shared',
        smiles: 'CCCBr',
        projects: [c.projects.kinase.id, c.projects.confidential.id],
      }),
    )
    const [seen] = objectsOf(await query({ molecules: [shared] }, c.reader))
    expect(seen!.projects).toEqual([{ id: c.projects.kinase.id, name: 'Kinase Inhibitors' }])
  })
})
