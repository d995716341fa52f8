import { describe, expect, it } from 'vitest'
import { protocolEntryOf, type Catalogue } from '../analysis/readouts/catalogue.ts'
import { newSavedSearch } from '../outbox/payloads/saved-searches.ts'
import { draftSavedSearch } from './saved-search-draft.ts'
import { readSavedSearch, type SavedSearchContext } from './saved-search-reading.ts'

const catalogue: Catalogue = [
  protocolEntryOf({
    id: 7,
    name: 'Kinase IC50',
    readout_definitions: [{ id: 70, name: 'IC50', data_type: 'Number', unit_label: 'nM' }],
  })!,
]

const fields: Record<string, { owner: 'molecule' | 'batch' | 'other'; dataType: string }> = {
  Priority: { owner: 'molecule', dataType: 'Number' },
  'First Synthesized': { owner: 'molecule', dataType: 'Date' },
  Series: { owner: 'molecule', dataType: 'Pick List' },
  'Purity (%)': { owner: 'batch', dataType: 'Number' },
}

const context: SavedSearchContext = {
  catalogue,
  dataSetsOutsideProjects: [],
  projectName: (id) => (id === 3 ? 'Kinase' : null),
  collectionName: () => null,
  field: (name) => fields[name] ?? null,
}

describe('draftSavedSearch', () => {
  it('writes structure, number and date fields and results so that reading it back gives the list', () => {
    const search = {
      kind: 'molecules',
      structure: { kind: 'similarity' as const, smiles: 'c1ccccc1O', threshold: 0.55 },
      fields: { Priority: '2', 'First Synthesized': '2024-03-05' },
      results: ['Kinase IC50: IC50 < 1000 nM'],
    }
    const draft = draftSavedSearch(search, context)
    expect(draft.unsaveable).toEqual([])
    expect(draft.notes).toEqual([])
    expect(draft.criteria).toMatchObject({
      structure: 'c1ccccc1O',
      structure_search_type: 'similarity',
      structure_similarity_threshold: 0.55,
      molecule_criteria: [
        { name: 'Priority', number_value: 2 },
        { name: 'First Synthesized', date_value: '2024-03-05' },
      ],
    })
    // What the outbox will queue: the create body the spec asks for.
    const body = { name: 'Phenols', projects: [3], search_criteria: draft.criteria }
    expect(newSavedSearch.safeParse(body).success).toBe(true)

    const reading = readSavedSearch({ ...body, projects: [{ id: 3 }] }, context)
    expect(reading.untranslated).toEqual([])
    expect(reading.question).toEqual({
      kind: 'molecules',
      projectId: 3,
      structure: { kind: 'similarity', smiles: 'c1ccccc1O', threshold: 0.55 },
      fields: { Priority: '2', 'First Synthesized': '2024-03-05' },
      results: ['Kinase IC50: IC50 < 1000 nM'],
    })
  })

  it('saves text the vault asks a little differently, and says how', () => {
    const draft = draftSavedSearch(
      { kind: 'molecules', text: ' quin ', fields: { Series: 'Quinazolines' } },
      context,
    )
    expect(draft.unsaveable).toEqual([])
    expect(draft.criteria).toEqual({
      keyword: 'quin',
      molecule_criteria: [{ name: 'Series', text_value: 'Quinazolines' }],
    })
    expect(draft.notes).toHaveLength(2)
    expect(draft.notes[0]).toContain('name contains “quin”')
    expect(draft.notes[1]).toContain('‘Series’ contains “Quinazolines”')
  })

  it('names every part a saved search cannot hold, and why', () => {
    const draft = draftSavedSearch(
      {
        kind: 'batches',
        filters: { registration_type: 'NUCLEOTIDE' },
        fields: {
          Gone: '1',
          'Purity (%)': '95',
          Priority: 'high',
          'First Synthesized': 'last week',
        },
        results: ['No Such Protocol: IC50 < 1'],
        properties: { molecularWeight: { max: 500 } },
        structure: {
          kind: 'substructure',
          query: '[#6]1:[#6]:[#6]:[#6]:[#6]:[#6]:1',
          language: 'smarts',
        },
      },
      context,
    )
    const reasons = Object.fromEntries(draft.unsaveable.map((part) => [part.part, part.reason]))
    expect(Object.keys(reasons).sort()).toEqual([
      'fields.First Synthesized',
      'fields.Gone',
      'fields.Priority',
      'fields.Purity (%)',
      'filters.registration_type',
      'kind',
      'properties',
      'results[0]',
      'structure',
    ])
    expect(reasons['fields.Gone']).toContain('no field named ‘Gone’')
    expect(reasons['fields.Purity (%)']).toContain('not a molecule field')
    expect(reasons['fields.Priority']).toContain('not a number')
    expect(reasons['fields.First Synthesized']).toContain('not a date')
    expect(reasons['results[0]']).toContain('No Such Protocol')
    expect(reasons.structure).toContain('not SMARTS')
    expect(draft.criteria).toEqual({})
  })

  it('refuses an exact search by InChIKey and a similarity search by number of hits', () => {
    const inchiKey = draftSavedSearch(
      { kind: 'molecules', structure: { kind: 'exact', query: 'BSYNRYMUTXBXSQ-UHFFFAOYSA-N' } },
      context,
    )
    expect(inchiKey.unsaveable[0]?.reason).toContain('not an InChIKey')
    const top = draftSavedSearch(
      { kind: 'molecules', structure: { kind: 'similarity', smiles: 'c1ccccc1', top: 10 } },
      context,
    )
    expect(top.unsaveable[0]?.reason).toContain('not a number of best hits')
    const exact = draftSavedSearch(
      { kind: 'molecules', structure: { kind: 'exact', query: 'CC(=O)Oc1ccccc1C(=O)O' } },
      context,
    )
    expect(exact.criteria).toEqual({
      structure: 'CC(=O)Oc1ccccc1C(=O)O',
      structure_search_type: 'exact',
    })
  })
})
