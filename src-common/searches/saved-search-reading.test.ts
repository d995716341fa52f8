import { describe, expect, it } from 'vitest'
import { protocolEntryOf, type Catalogue } from '../analysis/readouts/catalogue.ts'
import { parseCriteria } from '../analysis/readouts/criteria-text.ts'
import { readSavedSearch, type SavedSearchContext } from './saved-search-reading.ts'

const catalogue: Catalogue = [
  protocolEntryOf({
    id: 7,
    name: 'Kinase IC50',
    readout_definitions: [{ id: 70, name: 'IC50', data_type: 'Number', unit_label: 'nM' }],
  })!,
]

function context(overrides: Partial<SavedSearchContext> = {}): SavedSearchContext {
  const fields: Record<string, { owner: 'molecule' | 'batch' | 'other'; dataType: string }> = {
    Priority: { owner: 'molecule', dataType: 'Number' },
    'First Synthesized': { owner: 'molecule', dataType: 'Date' },
    'Purity (%)': { owner: 'batch', dataType: 'Number' },
  }
  return {
    catalogue,
    dataSetsOutsideProjects: [],
    projectName: (id) => (id === 3 ? 'Kinase' : null),
    collectionName: (id) => (id === 5 ? 'Favourites' : null),
    field: (name) => fields[name] ?? null,
    ...overrides,
  }
}

const search = (criteria: Record<string, unknown>) => ({
  name: 'S',
  projects: [{ id: 3, name: 'Kinase' }],
  search_criteria: criteria,
})

describe('readSavedSearch', () => {
  it('translates structure, field and protocol criteria into the list question and words', () => {
    const reading = readSavedSearch(
      search({
        structure: 'c1ccccc1',
        structure_search_type: 'similarity',
        structure_similarity_threshold: 0.55,
        molecule_criteria: [
          { name: 'Priority', number_value: 1 },
          { name: 'First Synthesized', date_value: '2024-03-05' },
        ],
        protocol_criteria: [
          { protocol_id: 7, readout_definition_id: 70, operator: '<', readout_value: '1000' },
        ],
      }),
      context(),
    )
    expect(reading.untranslated).toEqual([])
    expect(reading.runsOffline).toBe(true)
    expect(reading.question).toEqual({
      kind: 'molecules',
      projectId: 3,
      structure: { kind: 'similarity', smiles: 'c1ccccc1', threshold: 0.55 },
      fields: { Priority: '1', 'First Synthesized': '2024-03-05' },
      results: ['Kinase IC50: IC50 < 1000 nM'],
    })
    expect(reading.words).toBe(
      "Molecules similar to c1ccccc1 (Tanimoto at least 0.55) and whose 'Priority' is 1 and whose 'First Synthesized' is on 2024-03-05 and with results “Kinase IC50: IC50 < 1000 nM” in project 'Kinase'",
    )
    // The results text is one the list's own parser reads back.
    expect(parseCriteria(reading.question.results!, catalogue).ok).toBe(true)
  })

  it('names every part that does not translate, with why, and keeps the rest', () => {
    const reading = readSavedSearch(
      search({
        keyword: 'QZ',
        structure: 'c1ccccc1',
        molecule_criteria: [
          { name: 'Supplier ID', text_value: 'SUP' },
          { name: 'Purity (%)', number_value: 99 },
          { name: 'Retired Field', number_value: 2 },
        ],
        collection_criteria: [
          { collection_id: 5 },
          { collection_id: 9, junction: 'OR', not_in: true },
        ],
        protocol_criteria: [
          { protocol_id: 404, readout_definition_id: 1, operator: '<', readout_value: '1' },
        ],
        favourite_colour: 'blue',
      }),
      context({ dataSetsOutsideProjects: ['Reference Compounds'] }),
    )
    expect(reading.runsOffline).toBe(false)
    const parts = Object.fromEntries(reading.untranslated.map((part) => [part.part, part]))
    expect(Object.keys(parts).sort()).toEqual([
      'collection_criteria',
      'favourite_colour',
      'keyword',
      'molecule_criteria[0]',
      'molecule_criteria[1]',
      'molecule_criteria[2]',
      'protocol_criteria[0]',
      'scope',
    ])
    expect(parts['molecule_criteria[1]']!.reason).toContain("'Purity (%)' is a batch field")
    expect(parts['molecule_criteria[2]']!.reason).toContain("no field named 'Retired Field'")
    expect(parts['protocol_criteria[0]']!.reason).toContain(
      'protocol 404 is not among the protocols',
    )
    expect(parts.collection_criteria!.words).toBe(
      "in collection 'Favourites' or not in collection #9 (not in this vault any more)",
    )
    expect(reading.question).toEqual({
      kind: 'molecules',
      projectId: 3,
      structure: { kind: 'substructure', query: 'c1ccccc1' },
    })
    expect(reading.words).toContain(
      " in project 'Kinase' or in the public data set 'Reference Compounds'",
    )
  })

  it('reads an empty search as every molecule of its project, and refuses a bad structure type', () => {
    expect(readSavedSearch(search({}), context()).words).toBe("All molecules in project 'Kinase'")
    const bad = readSavedSearch(
      search({ structure: 'C', structure_search_type: 'superstructure' }),
      context(),
    )
    expect(bad.untranslated).toMatchObject([
      { part: 'structure_search_type', reason: expect.stringContaining('"superstructure" is not') },
    ])
    expect(bad.question.structure).toBeUndefined()
    const gone = readSavedSearch({ name: 'Old', projects: [{ id: 99 }] }, context())
    expect(gone.untranslated).toMatchObject([
      { part: 'projects', words: "in project '#99'", reason: expect.stringContaining('#99') },
    ])
  })
})
