import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim } from '../../src-sim/index.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { cast, createMolecule, idOf, objectsOf } from './fixtures.ts'
import { list, record } from './http.ts'

let sim: VaultSim
let c: ReturnType<typeof cast>

beforeAll(async () => {
  sim = await startVaultSim({ seed: 'empty' })
  c = cast(sim)
})
afterAll(() => sim.stop())

describe('projects', () => {
  it('lists only the projects the key reaches, as {id, name}', async () => {
    expect(list(await c.reader.get(`${c.main}/projects`))).toEqual([
      { id: c.projects.kinase.id, name: 'Kinase Inhibitors' },
    ])
    expect(list(await c.admin.get(`${c.main}/projects`)).map(idOf)).toEqual([
      c.projects.kinase.id,
      c.projects.gpcr.id,
      c.projects.confidential.id,
    ])
  })

  it('creates a project with members, shows it with description and members, and updates it', async () => {
    const created = record(
      await c.writer.post(`${c.main}/projects`, {
        name: 'Antivirals',
        description: 'Protease inhibitors',
        members: [{ user_id: sim.cast.users.reader.id, can_edit_data: false }],
      }),
    )
    expect(created).toEqual({ id: expect.any(Number), name: 'Antivirals' })
    const shown = record(await c.writer.get(`${c.main}/projects/${idOf(created)}`))
    expect(shown).toMatchObject({
      name: 'Antivirals',
      description: 'Protease inhibitors',
      members: [
        {
          id: sim.cast.users.writer.id,
          first_name: 'Rosalind',
          last_name: 'Franklin',
          email: 'rosalind.franklin@example.org',
          can_manage_project: true,
          can_edit_data: true,
        },
        { id: sim.cast.users.reader.id, can_manage_project: false, can_edit_data: false },
      ],
    })
    expect(list(await c.reader.get(`${c.main}/projects`)).map(idOf)).toContain(idOf(created))
    const updated = record(
      await c.writer.put(`${c.main}/projects/${idOf(created)}`, {
        description: 'Viral protease inhibitors',
        members: [
          { user_id: sim.cast.users.writer.id, can_manage_project: true, can_edit_data: true },
        ],
      }),
    )
    expect(updated).toMatchObject({
      name: 'Antivirals',
      description: 'Viral protease inhibitors',
      members: [{ id: sim.cast.users.writer.id }],
    })
    expect((await c.reader.get(`${c.main}/projects/${idOf(created)}`)).status).toBe(404)
  })

  it('answers 422 for a duplicate or missing name and foreign members, 401 without permission to manage projects', async () => {
    expect((await c.writer.post(`${c.main}/projects`, { name: 'Kinase Inhibitors' })).status).toBe(
      422,
    )
    expect((await c.writer.post(`${c.main}/projects`, { description: 'nameless' })).status).toBe(
      422,
    )
    const foreign = await c.writer.post(`${c.main}/projects`, {
      name: 'With outsider',
      members: [{ user_id: sim.cast.users.outsider.id }],
    })
    expect(foreign.status).toBe(422)
    expect(record(foreign).error).toContain('members[0].user_id')
    expect((await c.reader.post(`${c.main}/projects`, { name: 'Reader project' })).status).toBe(401)
    expect(
      (await c.writer.put(`${c.main}/projects/${c.projects.gpcr.id}`, { name: 'Renamed' })).status,
    ).toBe(401)
    expect(
      (
        await c.writer.put(`${c.main}/projects/${c.projects.kinase.id}`, {
          id: 1 + c.projects.kinase.id * 1000,
        })
      ).status,
    ).toBe(422)
    expect((await c.writer.get(`${c.main}/projects/${c.projects.confidential.id}`)).status).toBe(
      404,
    )
    expect((await c.admin.get(`${c.main}/projects/999999`)).status).toBe(404)
  })

  it('deletes an empty project and answers 422 while data remains, naming it', async () => {
    const empty = idOf(record(await c.admin.post(`${c.main}/projects`, { name: 'Short-lived' })))
    expect(record(await c.admin.delete(`${c.main}/projects/${empty}`))).toEqual({
      id: empty,
      name: 'Short-lived',
    })
    expect((await c.admin.get(`${c.main}/projects/${empty}`)).status).toBe(404)
    const busy = idOf(record(await c.admin.post(`${c.main}/projects`, { name: 'Busy' })))
    await createMolecule(c.admin, c.main, {
      name: 'busy molecule',
      smiles: 'CCN',
      projects: [busy],
    })
    const refused = await c.admin.delete(`${c.main}/projects/${busy}`)
    expect(refused.status).toBe(422)
    expect(record(refused).error).toContain('1 molecules')
    expect((await c.admin.delete(`${c.main}/projects/999999`)).status).toBe(404)
    expect((await c.reader.delete(`${c.main}/projects/${c.projects.kinase.id}`)).status).toBe(401)
  })
})

describe('users', () => {
  it('lists vault members for administrators, with roles and, on request, project memberships', async () => {
    const members = list(await c.admin.get(`${c.main}/users`))
    expect(members.map((member) => member.role_name)).toEqual([
      'Vault Administrator',
      'Member',
      'Read-only Member',
    ])
    expect(members[0]).toEqual({
      id: sim.cast.users.admin.id,
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada.lovelace@example.org',
      role_name: 'Vault Administrator',
      can_witness_eln: true,
    })
    const detailed = list(await c.admin.get(`${c.main}/users`, { include_projects: true }))
    expect(detailed.find((member) => member.id === sim.cast.users.reader.id)!.projects).toEqual([
      {
        id: c.projects.kinase.id,
        name: 'Kinase Inhibitors',
        can_manage_project: false,
        can_edit_data: false,
      },
    ])
  })

  it('answers 401 to members who are not vault administrators', async () => {
    const refused = await c.writer.get(`${c.main}/users`)
    expect(refused.status).toBe(401)
    expect(record(refused).error).toContain('vault administrators')
  })
})

describe('fields and pick list values', () => {
  it('answers the field definitions by category', async () => {
    const fields = record(await c.reader.get(`${c.main}/fields`))
    // Inventory sample fields are listed where inventory is enabled, as in the main vault.
    expect(Object.keys(fields)).toEqual([
      'internal',
      'molecule',
      'batch',
      'protocol',
      'inventory_sample',
    ])
    expect(fields.molecule).toContainEqual({
      id: expect.any(Number),
      type: 'MoleculeFieldDefinition',
      name: 'Series',
      data_type_name: 'Pick List',
      unique_value: false,
      required_group_number: null,
      overwritable: true,
    })
    expect((fields.internal as Record<string, unknown>[])[0]!.type).toBe(
      'InternalFieldDefinition::MoleculeName',
    )
  })

  it('lists, creates, shows, updates and deletes pick list values (administrators write)', async () => {
    const fields = record(await c.admin.get(`${c.main}/fields`))
    const series = (fields.molecule as Record<string, unknown>[]).find(
      (field) => field.name === 'Series',
    )!
    const base = `${c.main}/fields/${idOf(series)}/pick_list_values`
    const page = record(await c.reader.get(base, { page_size: 3 }))
    expect(page).toMatchObject({ count: 8, offset: 0, page_size: 3 })
    expect(objectsOf(page)[0]).toMatchObject({ value: 'Aminoquinazolines', hidden: false })
    const created = await c.admin.post(base, { value: 'Macrocycles' })
    expect(created.status).toBe(201)
    const id = idOf(record(created))
    expect(record(await c.reader.get(`${base}/${id}`)).value).toBe('Macrocycles')
    expect(
      record(
        await c.admin.put(`${base}/${id}`, {
          value: 'Macrocycles (cyclic peptides)',
          hidden: true,
        }),
      ).hidden,
    ).toBe(true)
    expect(record(await c.admin.delete(`${base}/${id}`))).toEqual({
      message: `Pick list value ${id} has been destroyed`,
    })
    expect((await c.reader.get(`${base}/${id}`)).status).toBe(404)
  })

  it('answers 422 for a duplicate or empty value, 404 for unknown values or non-pick-list fields, 401 for members', async () => {
    const fields = record(await c.admin.get(`${c.main}/fields`))
    const series = idOf(
      (fields.molecule as Record<string, unknown>[]).find((field) => field.name === 'Series')!,
    )
    const priority = idOf(
      (fields.molecule as Record<string, unknown>[]).find((field) => field.name === 'Priority')!,
    )
    const base = `${c.main}/fields/${series}/pick_list_values`
    expect((await c.admin.post(base, { value: 'Ureas' })).status).toBe(422)
    expect((await c.admin.post(base, { value: '' })).status).toBe(422)
    expect((await c.admin.put(`${base}/999999`, { value: 'x' })).status).toBe(404)
    expect((await c.admin.delete(`${base}/999999`)).status).toBe(404)
    expect((await c.admin.get(`${c.main}/fields/${priority}/pick_list_values`)).status).toBe(404)
    expect((await c.writer.post(base, { value: 'Writers cannot' })).status).toBe(401)
    const first = idOf(objectsOf(record(await c.admin.get(base)))[0]!)
    expect((await c.writer.put(`${base}/${first}`, { value: 'x' })).status).toBe(401)
    expect((await c.writer.delete(`${base}/${first}`)).status).toBe(401)
    expect((await c.admin.put(`${base}/${first}`, { id: first + 1 })).status).toBe(422)
  })
})

describe('data sets, api_executions, registration, mapping templates, import parsers', () => {
  it('lists the public data sets, and answers 404 when unauthorized or not found', async () => {
    expect(list(await c.reader.get(`${c.main}/data_sets`))).toEqual([
      { id: sim.cast.referenceDataSetId, name: 'Reference Compounds' },
    ])
    // The spec's Datasets table and Errors table: "404 when unauthorized or not found".
    for (const vault of [c.closed, c.ai, '/vaults/9999']) {
      const refused = await c.reader.get(`${vault}/data_sets`)
      expect(refused.status).toBe(404)
      expect(record(refused)).toEqual({ code: 404, error: expect.stringContaining('not found') })
    }
    // Other operations in such a vault keep the 401 of Authentication, rule 8.
    expect((await c.reader.get(`${c.ai}/projects`)).status).toBe(401)
  })

  it('sums the API time of the current key, keyed by the key name, within after and before', async () => {
    await c.writer.get('/vaults')
    const usage = record(await c.writer.get(`${c.main}/api_executions`))
    expect(Object.keys(usage)).toEqual(['Rosalind desktop'])
    const entry = usage['Rosalind desktop'] as Record<string, unknown>
    expect(entry.seconds).toBeGreaterThan(0)
    expect(entry.before).toBeUndefined()
    const past = record(
      await c.writer.get(`${c.main}/api_executions`, {
        after: '2020-01-01T00:00:00+00:00',
        before: '2020-02-01T00:00:00+00:00',
      }),
    )
    expect(past['Rosalind desktop']).toEqual({
      after: '2020-01-01T00:00:00.000Z',
      before: '2020-02-01T00:00:00.000Z',
      seconds: 0,
    })
    expect((await c.writer.get(`${c.main}/api_executions`, { after: 'last week' })).status).toBe(
      422,
    )
  })

  it('shows registration systems and forms in a registration vault, 404 for unknown ones', async () => {
    const systems = list(await c.admin.get(`${c.ai}/registration_systems`))
    expect(systems).toEqual([
      expect.objectContaining({ prefix: 'AI', next_identifier: 'AI-000001' }),
    ])
    expect(
      record(await c.admin.get(`${c.ai}/registration_systems/${idOf(systems[0]!)}`)).name,
    ).toBe('Discovery AI Registration')
    const forms = list(await c.admin.get(`${c.ai}/registration_forms`))
    expect(forms).toHaveLength(2)
    expect(
      record(await c.admin.get(`${c.ai}/registration_forms/${idOf(forms[0]!)}`)).sections,
    ).toEqual(expect.any(Array))
    expect(list(await c.admin.get(`${c.main}/registration_systems`))).toEqual([])
    expect((await c.admin.get(`${c.main}/registration_systems/${idOf(systems[0]!)}`)).status).toBe(
      404,
    )
    expect((await c.admin.get(`${c.ai}/registration_forms/999999`)).status).toBe(404)
  })

  it('lists mapping template summaries and shows header mappings', async () => {
    const templates = list(await c.reader.get(`${c.main}/mapping_templates`))
    expect(templates[0]).toEqual({
      id: expect.any(Number),
      name: 'Compound registration (SDF)',
      owner: 'Ada Lovelace',
      created_at: expect.any(String),
      modified_at: expect.any(String),
    })
    const detail = record(await c.reader.get(`${c.main}/mapping_templates/${idOf(templates[0]!)}`))
    expect((detail.header_mappings as unknown[])[0]).toEqual({
      header: { name: 'Name', position: 0 },
      definition: {
        id: expect.any(Number),
        type: 'InternalFieldDefinition::MoleculeName',
        name: 'Molecule Name',
        data_type_name: 'Text',
      },
    })
    expect((await c.reader.get(`${c.main}/mapping_templates/999999`)).status).toBe(404)
  })

  it('lists import parser summaries and shows one with its template_json', async () => {
    const parsers = list(await c.reader.get(`${c.main}/import_parsers`))
    expect(parsers[0]).not.toHaveProperty('template_json')
    const parser = record(await c.reader.get(`${c.main}/import_parsers/${idOf(parsers[0]!)}`))
    expect(JSON.parse(parser.template_json as string)).toMatchObject({ plate_format: 384 })
    expect((await c.reader.get(`${c.main}/import_parsers/999999`)).status).toBe(404)
  })
})
