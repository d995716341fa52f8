import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../../src-sim/index.ts'
import { cast, idOf } from '../fixtures.ts'
import { record } from '../http.ts'

let sim: VaultSim
let api: ReturnType<typeof cast>
const registered = new Map<string, number>()

interface Suggestion {
  smiles: string
  replacement: string
  score: number
  inchi_key?: string
  identifiers?: { collection: string; molecule: number; name: string }[]
}

interface Fragment {
  fragment_index: number
  group: string
  fragment_smiles: string
  atom_indices: number[]
  suggestions: Suggestion[]
}

beforeAll(async () => {
  sim = await startVaultSim({ seed: 'empty' })
  api = cast(sim)
  for (const smiles of [
    'OC(=O)c1ccc(Cl)cc1',
    'Clc1ccc(-c2nn[nH]n2)cc1',
    'OC(=O)c1ccc(Br)cc1',
    'CCCCCCCCCC',
  ]) {
    const answer = await api.admin.post(`${api.ai}/batches`, {
      projects: [api.projects.aiExploration.id],
      batch_fields: { 'Purity (%)': 99, Chemist: 'A. Lovelace' },
      molecule: { smiles },
    })
    expect(answer.status).toBe(200)
    registered.set(smiles, idOf(record(answer).molecule as Record<string, unknown>))
  }
})

afterAll(() => sim.stop())

const post = (operation: string, body: unknown) => api.admin.post(`${api.ai}/ai/${operation}`, body)

describe('POST /ai/bioisosteres', () => {
  it('answers suggestions grouped by fragment, best first, number_suggestions per fragment', async () => {
    const answer = record(
      await post('bioisosteres', { structure: 'OC(=O)c1ccc(Cl)cc1', number_suggestions: 2 }),
    )
    expect(answer.structure).toBe('O=C(O)c1ccc(Cl)cc1')
    const fragments = answer.fragments as Fragment[]
    expect(fragments.map((fragment) => [fragment.group, fragment.atom_indices])).toEqual([
      ['carboxylic acid', [0, 1, 2]],
      ['benzene ring', [3, 4, 5, 6, 8, 9]],
      ['aryl chloride', [7]],
    ])
    const acid = fragments[0]!
    expect(acid.suggestions).toHaveLength(2)
    expect(acid.suggestions[0]).toEqual({
      smiles: 'Clc1ccc(-c2nn[nH]n2)cc1',
      replacement: 'tetrazole',
      score: 0.9,
    })
    expect(fragments.every((fragment) => fragment.suggestions.length <= 2)).toBe(true)
  })

  it('looks suggestions up among the vault’s molecules and returns their InChIKeys', async () => {
    const answer = record(
      await post('bioisosteres', {
        structure: 'OC(=O)c1ccc(Cl)cc1',
        return_known_identifiers: true,
        lookup_internal_identifiers: true,
        filter_by_atom_indices: [1],
      }),
    )
    const [acid] = answer.fragments as Fragment[]
    expect((answer.fragments as Fragment[]).map((fragment) => fragment.group)).toEqual([
      'carboxylic acid',
    ])
    const tetrazole = acid!.suggestions[0]!
    expect(tetrazole.inchi_key).toMatch(/^[A-Z]{14}-[A-Z]{10}-[A-Z]$/)
    expect(tetrazole.identifiers).toEqual([
      {
        collection: 'Internal',
        molecule: registered.get('Clc1ccc(-c2nn[nH]n2)cc1'),
        name: expect.any(String),
      },
    ])
    expect(acid!.suggestions[1]!.identifiers).toEqual([])
  })

  it('caps number_suggestions at 200 and filters structure alerts unless told not to', async () => {
    const capped = await post('bioisosteres', {
      structure: 'CC(=O)NCc1ccccc1',
      number_suggestions: 5000,
    })
    expect(capped.status).toBe(200)
    const amide = (record(capped).fragments as Fragment[]).find(
      (fragment) => fragment.group === 'secondary amide',
    )!
    expect(amide.suggestions.map((suggestion) => suggestion.replacement)).not.toContain('thioamide')
    const unfiltered = record(
      await post('bioisosteres', {
        structure: 'CC(=O)NCc1ccccc1',
        number_suggestions: 200,
        filter_structure_alerts: false,
      }),
    )
    const all = (unfiltered.fragments as Fragment[]).find(
      (fragment) => fragment.group === 'secondary amide',
    )!
    expect(all.suggestions.map((suggestion) => suggestion.replacement)).toContain('thioamide')
  })

  it('answers 400 for missing or invalid parameters', async () => {
    const cases: [unknown, string][] = [
      [{}, 'structure is required'],
      [{ structure: 'C1CC(' }, 'structure:'],
      [{ structure: 'CCO', number_suggestions: 0 }, 'number_suggestions'],
      [{ structure: 'CCO', number_suggestions: 'many' }, 'number_suggestions'],
      [{ structure: 'CCO', filter_by_atom_indices: ['a'] }, 'filter_by_atom_indices'],
      [{ structure: 'CCO', lookup_internal_identifiers: 'perhaps' }, 'lookup_internal_identifiers'],
      [{ structure: 'CCO', temperature: 1 }, "'temperature'"],
    ]
    for (const [body, message] of cases) {
      const answer = await post('bioisosteres', body)
      expect(answer.status, JSON.stringify(body)).toBe(400)
      expect(record(answer).error).toContain(message)
    }
  })
})

describe('POST /ai/bioisosteres/flat and /get_fragmentation', () => {
  it('answers every suggestion in one list, best score first', async () => {
    const answer = record(await post('bioisosteres/flat', { structure: 'OC(=O)c1ccc(Cl)cc1' }))
    const suggestions = answer.suggestions as (Suggestion & {
      group: string
      fragment_index: number
    })[]
    expect(suggestions[0]).toMatchObject({
      group: 'carboxylic acid',
      replacement: 'tetrazole',
      fragment_index: 0,
    })
    const scores = suggestions.map((suggestion) => suggestion.score)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
    expect(new Set(suggestions.map((suggestion) => suggestion.group))).toEqual(
      new Set(['carboxylic acid', 'benzene ring', 'aryl chloride']),
    )
  })

  it('answers the fragmentation only, from SMILES or a molfile', async () => {
    const molfile = String(
      record(await api.admin.get(`${api.ai}/molecules/${registered.get('OC(=O)c1ccc(Cl)cc1')}`))
        .molfile,
    )
    const fromSmiles = record(
      await post('bioisosteres/get_fragmentation', { structure: 'OC(=O)c1ccc(Cl)cc1' }),
    )
    const fromMolfile = record(await post('bioisosteres/get_fragmentation', { structure: molfile }))
    expect(fromMolfile.fragments).toHaveLength(3)
    expect((fromSmiles.fragments as Fragment[])[0]).toEqual({
      fragment_index: 0,
      group: 'carboxylic acid',
      fragment_smiles: '*C(=O)O',
      atom_indices: [0, 1, 2],
    })
    expect((fromSmiles.fragments as Fragment[])[0]).not.toHaveProperty('suggestions')
    const filtered = record(
      await post('bioisosteres/get_fragmentation', {
        structure: 'OC(=O)c1ccc(Cl)cc1',
        filter_by_atom_indices: [7],
      }),
    )
    expect((filtered.fragments as Fragment[]).map((fragment) => fragment.group)).toEqual([
      'aryl chloride',
    ])
    expect((await post('bioisosteres/get_fragmentation', {})).status).toBe(400)
  })
})

describe('POST /ai/similarity', () => {
  it('ranks the vault’s molecules by Tanimoto similarity', async () => {
    const answer = record(await post('similarity', { structure: 'OC(=O)c1ccc(Cl)cc1' }))
    const results = answer.results as { molecule: number; similarity: number }[]
    expect(results[0]).toMatchObject({
      molecule: registered.get('OC(=O)c1ccc(Cl)cc1'),
      similarity: 1,
    })
    expect(results[1]!.molecule).toBe(registered.get('OC(=O)c1ccc(Br)cc1'))
    expect(results.at(-1)!.molecule).toBe(registered.get('CCCCCCCCCC'))
    const similarities = results.map((result) => result.similarity)
    expect(similarities).toEqual([...similarities].sort((a, b) => b - a))
    const limited = record(
      await post('similarity', { structure: 'OC(=O)c1ccc(Cl)cc1', number_results: 1 }),
    )
    expect(limited.results).toHaveLength(1)
    const close = record(
      await post('similarity', { structure: 'OC(=O)c1ccc(Cl)cc1', threshold: 0.5 }),
    )
    expect((close.results as unknown[]).length).toBeLessThan(results.length)
    expect((await post('similarity', { structure: 'CCO', threshold: 2 })).status).toBe(400)
    expect((await post('similarity', {})).status).toBe(400)
  })
})

describe('a vault without deep learning', () => {
  it('answers 401 to every deep-learning operation', async () => {
    for (const operation of [
      'bioisosteres',
      'bioisosteres/flat',
      'bioisosteres/get_fragmentation',
      'similarity',
    ]) {
      const answer = await api.admin.post(`${api.main}/ai/${operation}`, { structure: 'CCO' })
      expect(answer.status, operation).toBe(401)
      expect(record(answer).error).toContain('Deep learning is not enabled')
    }
  })
})
