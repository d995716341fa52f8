import { describe, expect, it } from 'vitest'
import { collect, expectApiError, useSim } from './support/sim.ts'

const harness = useSim()

describe('saved searches', () => {
  it('lists saved searches with their criteria', async () => {
    const searches = await harness.client().searches.list(harness.vaults.main)
    expect(searches.length).toBeGreaterThan(0)
    expect(searches[0]).toMatchObject({
      saved_search_session_id: expect.any(Number),
      search_id: expect.any(Number),
      search_criteria: expect.any(Object),
    })
  })

  it('creates a search, runs it as an export and deletes it', async () => {
    const client = harness.client('writer')
    const vault = harness.vaults.main
    const created = await client.searches.create(vault, {
      name: 'Pyridines',
      projects: [harness.projects.kinase],
      search_criteria: { structure: 'c1ccncc1', structure_search_type: 'substructure' },
    })
    expect(created).toMatchObject({
      name: 'Pyridines',
      projects: [{ id: harness.projects.kinase }],
    })
    const molecules = await collect(
      (await client.searches.run(vault, created.search_id!)).records(),
    )
    expect(molecules.every((molecule) => typeof molecule.id === 'number')).toBe(true)
    const deleted = await client.searches.deleteSavedSession(
      vault,
      created.search_id!,
      created.saved_search_session_id!,
    )
    expect(deleted.name).toBe('Pyridines')
    await expectApiError(
      client.searches.deleteSavedSession(
        vault,
        created.search_id!,
        created.saved_search_session_id!,
      ),
      'not_found',
      404,
    )
  })

  it('answers 422 for a duplicate name, several projects or an unknown search type', async () => {
    const searches = harness.client('writer').searches
    const vault = harness.vaults.main
    const [existing] = await searches.list(vault)
    const criteria = { structure: 'c1ccccc1', structure_search_type: 'substructure' }
    await expectApiError(
      searches.create(vault, {
        name: existing!.name!,
        projects: [harness.projects.kinase],
        search_criteria: criteria,
      }),
      'validation',
      422,
    )
    await expectApiError(
      searches.create(vault, {
        name: 'Two projects',
        projects: [harness.projects.kinase, harness.projects.gpcr] as unknown as [number],
        search_criteria: criteria,
      }),
      'validation',
      422,
    )
    await expectApiError(
      searches.create(vault, {
        name: 'Odd type',
        projects: [harness.projects.kinase],
        search_criteria: { structure: 'c1ccccc1', structure_search_type: 'fuzzy' },
      }),
      'validation',
      422,
    )
  })

  it('answers 404 for a search that does not exist', async () => {
    await expectApiError(
      harness.client().searches.run(harness.vaults.main, 999_999),
      'not_found',
      404,
    )
  })
})

describe('import parsers, mapping templates and registration', () => {
  it('lists import parsers and reads one with its template', async () => {
    const parsers = harness.client().importParsers
    const [first] = await parsers.list(harness.vaults.main)
    expect(first).toMatchObject({ id: expect.any(Number), name: expect.any(String) })
    const parser = await parsers.get(harness.vaults.main, first!.id)
    expect(parser.template_json).toBeDefined()
    await expectApiError(parsers.get(harness.vaults.main, 999_999), 'not_found', 404)
  })

  it('lists mapping templates and reads one with its header mappings', async () => {
    const templates = harness.client().mappingTemplates
    const [first] = await templates.list(harness.vaults.main)
    const template = await templates.get(harness.vaults.main, first!.id)
    expect(template.header_mappings?.[0]?.header?.name).toEqual(expect.any(String))
    await expectApiError(templates.get(harness.vaults.main, 999_999), 'not_found', 404)
  })

  it('lists and reads registration forms and systems', async () => {
    const registration = harness.client().registration
    const vault = harness.vaults.ai
    const [system] = await registration.systems(vault)
    expect((await registration.system(vault, system!.id)).id).toBe(system!.id)
    const [form] = await registration.forms(vault)
    expect((await registration.form(vault, form!.id)).id).toBe(form!.id)
    await expectApiError(registration.system(vault, 999_999), 'not_found', 404)
    await expectApiError(registration.form(vault, 999_999), 'not_found', 404)
  })
})
