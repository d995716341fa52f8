import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim } from '../../src-sim/index.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { cast, createMolecule, idOf, objectsOf } from './fixtures.ts'
import { record } from './http.ts'

let sim: VaultSim
let c: ReturnType<typeof cast>
let moleculeId: number

beforeAll(async () => {
  sim = await startVaultSim({ seed: 'empty' })
  c = cast(sim)
  moleculeId = idOf(
    await createMolecule(c.writer, c.main, {
      name: 'Ibuprofen',
      smiles: 'CC(C)Cc1ccc(C(C)C(=O)O)cc1',
      projects: [c.projects.kinase.id],
    }),
  )
})
afterAll(() => sim.stop())

describe('POST /vaults/{vault_id}/batches', () => {
  it('adds a batch to an existing molecule by id or by name, numbering batches and computing the formula weight', async () => {
    const first = record(
      await c.writer.post(`${c.main}/batches`, {
        molecule: { id: moleculeId },
        projects: ['Kinase Inhibitors'],
        salt_name: 'NA',
      }),
    )
    expect(first).toMatchObject({
      class: 'batch',
      name: '001',
      molecule_batch_identifier: 'Ibuprofen-001',
      salt_name: 'sodium',
      stoichiometry: { core_count: 1, salt_count: 1, solvent_of_crystallization_count: 0 },
      batch_fields: {},
      owner: 'Rosalind Franklin',
      projects: [{ id: c.projects.kinase.id, name: 'Kinase Inhibitors' }],
      molecule: {
        id: moleculeId,
        class: 'molecule',
        name: 'Ibuprofen',
        smiles: expect.any(String),
      },
    })
    expect(first.formula_weight).toBeCloseTo(206.285 + 22.99, 2)
    const second = record(
      await c.writer.post(`${c.main}/batches`, {
        molecule: { name: 'Ibuprofen' },
        projects: [c.projects.kinase.id],
      }),
    )
    expect(second.name).toBe('002')
  })

  it('registers a new molecule through a batch, asking for a duplicate resolution when the structure exists', async () => {
    const fresh = record(
      await c.admin.post(`${c.ai}/batches`, {
        molecule: { smiles: 'c1ccc2[nH]ccc2c1' },
        projects: [c.projects.aiExploration.id],
        batch_fields: { 'Purity (%)': 99, Chemist: 'A. Lovelace' },
        stoichiometry: { core_count: 1, salt_count: 0, solvent_of_crystallization_count: 1 },
        solvent_of_crystallization_name: 'water',
      }),
    )
    const molecule = fresh.molecule as Record<string, unknown>
    expect(molecule.name).toBe('AI-000001')
    expect(fresh.solvent_of_crystallization_name).toBe('water')
    const duplicate = await c.admin.post(`${c.ai}/batches`, {
      molecule: { smiles: 'C1=CC=C2NC=CC2=C1' },
      projects: [c.projects.aiExploration.id],
      batch_fields: { 'Purity (%)': 97, Chemist: 'A. Lovelace' },
    })
    expect(duplicate.status).toBe(422)
    expect(record(duplicate).error).toContain('duplicate_resolution')
    const existing = record(
      await c.admin.post(`${c.ai}/batches`, {
        molecule: { smiles: 'C1=CC=C2NC=CC2=C1', duplicate_resolution: 'existing' },
        projects: [c.projects.aiExploration.id],
        batch_fields: { 'Purity (%)': 97, Chemist: 'A. Lovelace' },
      }),
    )
    expect((existing.molecule as Record<string, unknown>).id).toBe(molecule.id)
    expect(existing.name).toBe('002')
    const separate = record(
      await c.admin.post(`${c.ai}/batches`, {
        molecule: { smiles: 'c1ccc2[nH]ccc2c1', duplicate_resolution: 'new' },
        projects: [c.projects.aiExploration.id],
        batch_fields: { 'Purity (%)': 97, Chemist: 'A. Lovelace' },
      }),
    )
    expect((separate.molecule as Record<string, unknown>).name).toBe('AI-000002')
  })

  it('answers 422 for missing required fields, stoichiometry outside registration vaults, bad salts and unknown molecules', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      [
        c.ai,
        { molecule: { smiles: 'CCN' }, projects: [c.projects.aiExploration.id] },
        'Purity (%), Chemist',
      ],
      [
        c.main,
        {
          molecule: { id: moleculeId },
          projects: [c.projects.kinase.id],
          stoichiometry: { core_count: 1 },
        },
        'stoichiometry',
      ],
      [
        c.main,
        { molecule: { id: moleculeId }, projects: [c.projects.kinase.id], salt_name: 'XX' },
        'salt_name',
      ],
      // Batch create body: batch_fields "registration vaults only".
      [
        c.main,
        {
          molecule: { id: moleculeId },
          projects: [c.projects.kinase.id],
          batch_fields: { Chemist: 'R. Franklin' },
        },
        'batch_fields can only be set in a vault with a registration system',
      ],
      [c.main, { molecule: { name: 'Nope' }, projects: [c.projects.kinase.id] }, 'molecule.name'],
      [c.main, { molecule: { smiles: 'CCCC' }, projects: [c.projects.kinase.id] }, 'molecule.name'],
      [c.main, { projects: [c.projects.kinase.id] }, 'molecule'],
      [c.main, { molecule: { id: moleculeId }, projects: [] }, 'projects'],
      [
        c.main,
        { molecule: { id: moleculeId, smiles: 'CC' }, projects: [c.projects.kinase.id] },
        'molecule.id',
      ],
    ]
    for (const [vault, body, field] of cases) {
      const answer = await c.admin.post(`${vault}/batches`, body)
      expect(answer.status, JSON.stringify(body)).toBe(422)
      expect(record(answer).error).toContain(field)
    }
    expect(
      (
        await c.admin.post(`${c.main}/batches`, {
          molecule: { id: 999999 },
          projects: [c.projects.kinase.id],
        })
      ).status,
    ).toBe(404)
  })
})

describe('GET and PUT /vaults/{vault_id}/batches/{batch_id}', () => {
  it('shows a batch with only_molecule_ids, no_structures and owner_id, and 404 outside the user’s projects', async () => {
    const batch = record(
      await c.writer.post(`${c.main}/batches`, {
        molecule: { id: moleculeId },
        projects: [c.projects.kinase.id],
      }),
    )
    const shown = record(
      await c.reader.get(`${c.main}/batches/${idOf(batch)}`, {
        only_molecule_ids: true,
        owner_id: true,
      }),
    )
    expect(shown.molecule).toBe(moleculeId)
    expect(shown.owner_id).toMatchObject({ first_name: 'Rosalind' })
    const lean = record(
      await c.reader.get(`${c.main}/batches/${idOf(batch)}`, { no_structures: true }),
    )
    expect((lean.molecule as Record<string, unknown>).smiles).toBeUndefined()
    const secret = await createMolecule(c.admin, c.main, {
      name: 'Hidden',
      smiles: 'CCCCO',
      projects: [c.projects.confidential.id],
    })
    const hiddenBatch = record(
      await c.admin.post(`${c.main}/batches`, {
        molecule: { id: idOf(secret) },
        projects: [c.projects.confidential.id],
      }),
    )
    expect((await c.writer.get(`${c.main}/batches/${idOf(hiddenBatch)}`)).status).toBe(404)
    expect((await c.writer.get(`${c.main}/batches/999999`)).status).toBe(404)
  })

  it('updates supplied members, merges batch fields (null clears one), and accepts the unchanged molecule echoed back', async () => {
    const batch = record(
      await c.admin.post(`${c.ai}/batches`, {
        molecule: { smiles: 'CC(=O)Nc1ccc(O)cc1' },
        projects: [c.projects.aiExploration.id],
        batch_fields: { 'Purity (%)': 99, Chemist: 'P. Levi' },
      }),
    )
    const updated = record(
      await c.admin.put(`${c.ai}/batches/${idOf(batch)}`, {
        ...batch,
        name: 'lot-7',
        batch_fields: { 'Purity (%)': 91 },
        projects: [c.projects.aiExploration.id],
      }),
    )
    expect(updated).toMatchObject({
      name: 'lot-7',
      batch_fields: { Chemist: 'P. Levi', 'Purity (%)': 91 },
      projects: [{ id: c.projects.aiExploration.id }],
    })
    const cleared = record(
      await c.admin.put(`${c.ai}/batches/${idOf(batch)}`, { batch_fields: { Chemist: null } }),
    )
    expect(cleared.batch_fields).toEqual({ 'Purity (%)': 91 })
  })

  it('refuses batch field changes outside registration vaults, but takes a record echoed back', async () => {
    const batch = record(
      await c.writer.post(`${c.main}/batches`, {
        molecule: { id: moleculeId },
        projects: [c.projects.kinase.id],
      }),
    )
    // Fields a plain vault's batch got another way (an import).
    sim.core.db
      .prepare(`UPDATE batches SET fields = ? WHERE id = ?`)
      .run(JSON.stringify({ Chemist: 'P. Levi' }), idOf(batch))
    const shown = record(await c.writer.get(`${c.main}/batches/${idOf(batch)}`))
    const echoed = record(
      await c.writer.put(`${c.main}/batches/${idOf(batch)}`, {
        ...shown,
        name: 'lot-8',
        projects: [c.projects.kinase.id, c.projects.gpcr.id],
      }),
    )
    expect(echoed).toMatchObject({
      name: 'lot-8',
      batch_fields: { Chemist: 'P. Levi' },
      projects: [{ id: c.projects.kinase.id }, { id: c.projects.gpcr.id }],
    })
    for (const change of [{ Chemist: 'R. Franklin' }, { Chemist: null }, { 'Purity (%)': 90 }]) {
      const refused = await c.writer.put(`${c.main}/batches/${idOf(batch)}`, {
        batch_fields: change,
      })
      expect(refused.status, JSON.stringify(change)).toBe(422)
      expect(record(refused).error).toContain('registration system')
    }
    expect(record(await c.writer.get(`${c.main}/batches/${idOf(batch)}`)).batch_fields).toEqual({
      Chemist: 'P. Levi',
    })
  })

  it('refuses to change the parent structure, a body id other than the path id, and writes without permission', async () => {
    const batch = record(
      await c.writer.post(`${c.main}/batches`, {
        molecule: { id: moleculeId },
        projects: [c.projects.kinase.id],
      }),
    )
    const structure = await c.writer.put(`${c.main}/batches/${idOf(batch)}`, {
      molecule: { smiles: 'CCO' },
    })
    expect(structure.status).toBe(422)
    expect(record(structure).error).toContain('molecule update operation')
    const moved = await c.writer.put(`${c.main}/batches/${idOf(batch)}`, {
      molecule: { id: moleculeId + 100 },
    })
    expect(moved.status).toBe(422)
    const mismatch = await c.writer.put(`${c.main}/batches/${idOf(batch)}`, { id: idOf(batch) + 1 })
    expect(mismatch.status).toBe(422)
    expect(record(mismatch).error).toContain('must equal the id in the path')
    expect((await c.reader.put(`${c.main}/batches/${idOf(batch)}`, { name: 'x' })).status).toBe(401)
    expect((await c.writer.put(`${c.main}/batches/999999`, { name: 'x' })).status).toBe(404)
  })

  it('deletes a batch given an empty projects list, unless data refers to it', async () => {
    const batch = record(
      await c.writer.post(`${c.main}/batches`, {
        molecule: { id: moleculeId },
        projects: [c.projects.kinase.id],
      }),
    )
    const deleted = record(await c.writer.put(`${c.main}/batches/${idOf(batch)}`, { projects: [] }))
    expect(deleted).toMatchObject({ id: idOf(batch), projects: [] })
    expect((await c.writer.get(`${c.main}/batches/${idOf(batch)}`)).status).toBe(404)

    const kept = record(
      await c.writer.post(`${c.main}/batches`, {
        molecule: { id: moleculeId },
        projects: [c.projects.kinase.id],
      }),
    )
    const batchHooks = sim.core.dependentData
    sim.core.dependentData = (kind, id) =>
      kind === 'batch' && id === idOf(kept) ? ['2 readout rows'] : batchHooks(kind, id)
    try {
      const refused = await c.writer.put(`${c.main}/batches/${idOf(kept)}`, { projects: [] })
      expect(refused.status).toBe(422)
      expect(record(refused).error).toContain('2 readout rows')
    } finally {
      sim.core.dependentData = batchHooks
    }
    expect((await c.writer.get(`${c.main}/batches/${idOf(kept)}`)).status).toBe(200)
  })
})

describe('POST /vaults/{vault_id}/batches/query', () => {
  it('answers the batches-only form, refusing it with other members and listing missing ids in a 404', async () => {
    const all = record(await c.admin.post(`${c.main}/batches/query`, { only_ids: true }))
    const ids = (all.objects as number[]).slice(0, 2)
    const byIds = record(await c.admin.post(`${c.main}/batches/query`, { batches: ids }))
    expect(objectsOf(byIds).map(idOf)).toEqual(ids)
    const combined = await c.admin.post(`${c.main}/batches/query`, { batches: ids, page_size: 5 })
    expect(combined.status).toBe(422)
    const missing = await c.admin.post(`${c.main}/batches/query`, {
      batches: [ids[0], 999998, 999999],
    })
    expect(missing.status).toBe(404)
    expect(record(missing).error).toContain('999998, 999999')
  })

  it('filters by dates, batch fields and projects and limits returned fields; the deprecated GET form agrees', async () => {
    sim.clock.advance(86_400_000)
    const late = record(
      await c.writer.post(`${c.main}/batches`, {
        molecule: { id: moleculeId },
        projects: [c.projects.gpcr.id],
      }),
    )
    // A plain vault's batch fields come from imports, not from the batch API.
    sim.core.db
      .prepare(`UPDATE batches SET fields = ? WHERE id = ?`)
      .run(JSON.stringify({ 'Lot Number': 'LATE-1', Chemist: 'K. Lonsdale' }), idOf(late))
    const after = new Date((sim.clock.nowSeconds() - 60) * 1000).toISOString().slice(0, 19) + 'Z'
    const body = {
      created_after: after,
      batch_fields: ['Lot Number'],
      projects: [c.projects.gpcr.id],
    }
    const posted = record(await c.writer.post(`${c.main}/batches/query`, body))
    expect(objectsOf(posted).map(idOf)).toEqual([idOf(late)])
    expect(objectsOf(posted)[0]!.batch_fields).toEqual({ 'Lot Number': 'LATE-1' })
    const deprecated = record(
      await c.writer.get(`${c.main}/batches`, {
        created_after: after,
        batch_fields: 'Lot Number',
        projects: String(c.projects.gpcr.id),
      }),
    )
    expect(deprecated).toEqual(posted)
    const byField = record(
      await c.writer.post(`${c.main}/batches/query`, {
        fields_search: [{ name: 'Chemist', text_value: 'lonsdale' }],
      }),
    )
    expect(objectsOf(byField).map(idOf)).toEqual([idOf(late)])
  })
})
