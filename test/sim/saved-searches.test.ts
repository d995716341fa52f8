import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim } from '../../src-sim/index.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { cast, createMolecule, idOf } from './fixtures.ts'
import { list, record } from './http.ts'

let sim: VaultSim
let c: ReturnType<typeof cast>

beforeAll(async () => {
  sim = await startVaultSim({ seed: 'empty', exportTiming: { startDelayMs: 0, durationMs: 0 } })
  c = cast(sim)
  for (const [name, smiles, priority] of [
    ['pyridine', 'c1ccncc1', 1],
    ['benzene', 'c1ccccc1', 2],
    ['aniline', 'Nc1ccccc1', 1],
  ] as const) {
    await createMolecule(c.writer, c.main, {
      name,
      smiles,
      udfs: { Priority: priority },
      projects: [c.projects.kinase.id],
    })
  }
})
afterAll(() => sim.stop())

async function finishedFile(exportId: number): Promise<string> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const progress = record(await c.writer.get(`${c.main}/export_progress/${exportId}`))
    if (progress.status === 'finished') {
      const redirect = await c.writer.get(`${c.main}/exports/${exportId}`)
      return Buffer.from(
        await (await fetch(redirect.headers.get('location')!)).arrayBuffer(),
      ).toString('latin1')
    }
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`Export ${exportId} did not finish`)
}

describe('saved searches', () => {
  it('creates a search in one project, lists it without empty members, and runs it as an export', async () => {
    const created = record(
      await c.writer.post(`${c.main}/searches`, {
        name: 'Aromatic priority 1',
        projects: [c.projects.kinase.id],
        search_criteria: {
          structure: 'c1ccccc1',
          structure_search_type: 'substructure',
          molecule_criteria: [{ name: 'Priority', number_value: 1 }],
          keyword: '',
        },
        display_criteria: { columns: ['Molecule Name'] },
      }),
    )
    expect(created).toMatchObject({
      name: 'Aromatic priority 1',
      saved_search_session_id: expect.any(Number),
      search_id: expect.any(Number),
      search_criteria: { structure: 'c1ccccc1', structure_search_type: 'substructure' },
      display_criteria: { columns: ['Molecule Name'] },
    })
    expect(created.search_criteria).not.toHaveProperty('keyword')
    expect(list(await c.reader.get(`${c.main}/searches`)).map((item) => item.name)).toContain(
      'Aromatic priority 1',
    )
    const started = record(await c.writer.get(`${c.main}/searches/${created.search_id}`))
    expect(started.status).toMatch(/new|started|finished/)
    const found = JSON.parse(await finishedFile(idOf(started))) as {
      count: number
      objects: Record<string, unknown>[]
    }
    expect(found.count).toBe(1)
    expect(found.objects.map((molecule) => molecule.name)).toEqual(['aniline'])
    const zipped = record(
      await c.writer.get(`${c.main}/searches/${created.search_id}`, { zip: true, format: 'csv' }),
    )
    const archive = await finishedFile(idOf(zipped))
    expect(archive.startsWith('PK')).toBe(true)
    expect(archive).toContain('.csv')
  })

  it('answers 422 for a used name, no or several projects, an unknown structure search type or criterion', async () => {
    const base = {
      name: 'Valid',
      projects: [c.projects.kinase.id],
      search_criteria: { keyword: 'ene' },
    }
    expect((await c.writer.post(`${c.main}/searches`, base)).status).toBe(200)
    const cases: [Record<string, unknown>, string][] = [
      [base, 'name'],
      [{ ...base, name: 'None', projects: [] }, 'projects'],
      [{ ...base, name: 'Two', projects: [c.projects.kinase.id, c.projects.gpcr.id] }, 'projects'],
      [
        {
          ...base,
          name: 'Fuzzy',
          search_criteria: { structure: 'CC', structure_search_type: 'fuzzy' },
        },
        'structure_search_type',
      ],
      [{ ...base, name: 'Odd', search_criteria: { colour: 'blue' } }, 'colour'],
      [
        {
          ...base,
          name: 'Bad field',
          search_criteria: { molecule_criteria: [{ name: 'Colour', text_value: 'x' }] },
        },
        'search_criteria',
      ],
    ]
    for (const [body, field] of cases) {
      const answer = await c.writer.post(`${c.main}/searches`, body)
      expect(answer.status, JSON.stringify(body)).toBe(422)
      expect(record(answer).error).toContain(field)
    }
  })

  it('deletes a saved session (and its search), 404 for unknown ones or another search id, 401 for others’ searches', async () => {
    const created = record(
      await c.writer.post(`${c.main}/searches`, {
        name: 'Temporary',
        projects: [c.projects.kinase.id],
        search_criteria: { keyword: 'x' },
      }),
    )
    const path = `${c.main}/searches/${created.search_id}/saved_sessions/${created.saved_search_session_id}`
    expect((await c.reader.delete(path)).status).toBe(401)
    expect(
      (
        await c.writer.delete(
          `${c.main}/searches/999999/saved_sessions/${created.saved_search_session_id}`,
        )
      ).status,
    ).toBe(404)
    expect(record(await c.writer.delete(path)).name).toBe('Temporary')
    expect((await c.writer.delete(path)).status).toBe(404)
    expect((await c.writer.get(`${c.main}/searches/${created.search_id}`)).status).toBe(404)
  })
})
