import { describe, expect, it } from 'vitest'
import { recordHref } from '../records/browse-kinds.ts'
import { matchedMoleculeHref } from '../records/structure-match.ts'
import { emptyQuestion, resultsHref } from '../results/results-address.ts'
import { sectionById } from '../sections.ts'
import {
  parseRoute,
  savedSearchesHref,
  sectionHref,
  sectionListHref,
  sectionOf,
  sectionTabs,
} from './router.svelte.ts'

describe('parseRoute', () => {
  it('opens molecules when there is no hash', () => {
    const molecules = { kind: 'section', section: 'molecules', list: 'molecules' }
    expect(parseRoute('')).toEqual(molecules)
    expect(parseRoute('#/')).toEqual(molecules)
  })

  it('reads sections with their first list, and the component gallery', () => {
    expect(parseRoute('#/outbox')).toEqual({ kind: 'section', section: 'outbox', list: null })
    expect(parseRoute(sectionHref('plates'))).toEqual({
      kind: 'section',
      section: 'plates',
      list: 'plates',
    })
    expect(parseRoute('#/assays')).toEqual({
      kind: 'section',
      section: 'assays',
      list: 'protocols',
    })
    expect(parseRoute('#/gallery')).toEqual({ kind: 'gallery' })
  })

  it('reads the address of a notebook entry written offline, by the item creating it', () => {
    expect(parseRoute('#/entries/new/12')).toEqual({ kind: 'draft', item: 12 })
    expect(sectionOf(parseRoute('#/entries/new/12'))).toBe('notebook')
    expect(parseRoute('#/entries/new/')).toEqual({ kind: 'unknown', hash: '#/entries/new/' })
    expect(parseRoute('#/entries/new/x')).toEqual({ kind: 'unknown', hash: '#/entries/new/x' })
  })

  it('reads the other lists of a section by their kind', () => {
    expect(parseRoute('#/runs')).toEqual({ kind: 'section', section: 'assays', list: 'runs' })
    expect(parseRoute('#/entries')).toEqual({
      kind: 'section',
      section: 'notebook',
      list: 'eln_entries',
    })
    // Locations are browsed in the inventory's tree, not as a list of their own.
    expect(parseRoute('#/locations')).toEqual({
      kind: 'section',
      section: 'inventory',
      list: 'inventory_samples',
    })
  })

  it('reads the address of one record', () => {
    expect(parseRoute(recordHref('molecules', 12))).toEqual({
      kind: 'record',
      record: 'molecules',
      id: 12,
    })
    expect(parseRoute('#/readout-rows/44')).toEqual({
      kind: 'record',
      record: 'readout_rows',
      id: 44,
    })
  })

  it('keeps an unknown address so the page can say what was not found', () => {
    expect(parseRoute('#/reactions')).toEqual({ kind: 'unknown', hash: '#/reactions' })
    expect(parseRoute('#/molecules/twelve')).toEqual({
      kind: 'unknown',
      hash: '#/molecules/twelve',
    })
    expect(parseRoute('#/molecules/12/extra')).toEqual({
      kind: 'unknown',
      hash: '#/molecules/12/extra',
    })
  })
})

describe('section addresses', () => {
  it('gives a section first list its own address and the others their kind', () => {
    expect(sectionListHref('assays', 'protocols')).toBe('#/assays')
    expect(sectionListHref('assays', 'runs')).toBe('#/runs')
  })

  it('marks the section a record belongs to', () => {
    expect(sectionOf(parseRoute('#/runs/3'))).toBe('assays')
    expect(sectionOf(parseRoute('#/samples/3'))).toBe('inventory')
    expect(sectionOf(parseRoute('#/gallery'))).toBeNull()
  })
})

describe('the results table', () => {
  it('lives at its own address, with its question in the query, in the assays section', () => {
    expect(parseRoute('#/results')).toEqual({ kind: 'results', question: emptyQuestion })
    const question = {
      ...emptyQuestion,
      columns: [{ protocolId: 3, definitionId: 12 }],
      sort: { column: '3:12', direction: 'desc' },
      criteria: ['Kinase IC50 (ADP-Glo): IC50 < 1 uM'],
    } as const
    const route = parseRoute(resultsHref(question))
    expect(route).toEqual({ kind: 'results', question })
    expect(sectionOf(route)).toBe('assays')
    expect(parseRoute('#/results/3')).toEqual({ kind: 'unknown', hash: '#/results/3' })
  })

  it('is a tab of the assays section, after its lists', () => {
    expect(sectionTabs(sectionById('assays'))).toEqual([
      { id: 'protocols', label: 'Protocols', href: '#/assays' },
      { id: 'runs', label: 'Runs', href: '#/runs' },
      { id: 'readout_rows', label: 'Readout rows', href: '#/readout-rows' },
      { id: 'results', label: 'Results', href: '#/results' },
    ])
    expect(sectionTabs(sectionById('plates')).map((tab) => tab.id)).toEqual(['plates'])
  })
})

describe('a molecule reached from a substructure search', () => {
  it('carries the query in its address, for the page to highlight', () => {
    const href = matchedMoleculeHref(12, { query: 'c1ccccc1[N+](=O)[O-]', language: 'smarts' })
    expect(href).toBe(
      '#/molecules/12?substructure=c1ccccc1%5BN%2B%5D%28%3DO%29%5BO-%5D&language=smarts',
    )
    expect(parseRoute(href)).toEqual({
      kind: 'record',
      record: 'molecules',
      id: 12,
      match: { query: 'c1ccccc1[N+](=O)[O-]', language: 'smarts' },
    })
    expect(parseRoute(matchedMoleculeHref(3, { query: 'CCO' }))).toEqual({
      kind: 'record',
      record: 'molecules',
      id: 3,
      match: { query: 'CCO' },
    })
  })

  it('ignores a query elsewhere, or one without a structure', () => {
    expect(parseRoute('#/molecules/12?language=smarts')).toEqual({
      kind: 'record',
      record: 'molecules',
      id: 12,
    })
    expect(parseRoute('#/batches/4?substructure=CCO')).toEqual({
      kind: 'record',
      record: 'batches',
      id: 4,
    })
    expect(parseRoute('#/plates?x=1')).toEqual({
      kind: 'section',
      section: 'plates',
      list: 'plates',
    })
  })
})

describe('saved searches', () => {
  it('is a tab of the molecules section, and runs one offline by its name in the address', () => {
    expect(sectionTabs(sectionById('molecules')).at(-1)).toEqual({
      id: 'saved-searches',
      label: 'Saved searches',
      href: '#/saved-searches',
    })
    expect(parseRoute(savedSearchesHref())).toEqual({ kind: 'savedSearches', run: null })
    const name = 'Hits & misses: 50% +/- ÜNï 化合物?'
    const route = parseRoute(savedSearchesHref(name))
    expect(route).toEqual({ kind: 'savedSearches', run: name })
    expect(sectionOf(route)).toBe('molecules')
    expect(parseRoute('#/saved-searches?run=%E0%A4%A')).toEqual({
      kind: 'savedSearches',
      run: null,
    })
    expect(parseRoute('#/saved-searches?run=')).toEqual({ kind: 'savedSearches', run: null })
  })
})
