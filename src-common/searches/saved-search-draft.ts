/**
 * The current search of a list written as a saved search's `search_criteria`, the vault's form
 * (spec: "Saved search"), so that it can be saved in the vault. A part the vault's saved search
 * cannot hold (property ranges, list filters, a SMARTS query...) is named with the reason, never
 * dropped: nothing is saved while one remains. Parts the vault asks a little differently from
 * the local list (a keyword is contained in the name; a text field value is contained in the
 * field) are saved, and said in `notes`.
 *
 * Read back with `readSavedSearch`, a saved draft gives the list question it came from, for the
 * parts that translate both ways (structure, molecule fields of numbers and dates, results).
 */
import type { Catalogue } from '../analysis/readouts/catalogue.ts'
import { parseCriteria } from '../analysis/readouts/criteria-text.ts'
import { toServiceCriteria } from '../analysis/readouts/service-criteria.ts'
import type { SavedSearchCriteria } from '../outbox/payloads/saved-searches.ts'
import type { SavedSearchContext, UntranslatedPart } from './saved-search-reading.ts'

/** A list's current search, as `records.list` takes it (paging and order aside). */
export interface SearchToSave {
  kind: string
  text?: string
  filters?: Record<string, string | number | null>
  fields?: Record<string, string>
  results?: string[]
  structure?:
    | { kind: 'substructure'; query: string; language?: string }
    | { kind: 'exact'; query: string }
    | { kind: 'similarity'; smiles: string; threshold?: number; top?: number }
  properties?: Record<string, unknown>
}

export interface SavedSearchDraft {
  criteria: SavedSearchCriteria
  /** Parts the vault's saved search cannot hold: nothing is saved while there is one. */
  unsaveable: UntranslatedPart[]
  /** Where the vault will answer a little differently from the list here, in words. */
  notes: string[]
}

const inchiKeyPattern = /^[A-Z]{14}-[A-Z]{10}-[A-Z]$/
const defaultSimilarityThreshold = 0.7

export function draftSavedSearch(
  search: SearchToSave,
  context: Pick<SavedSearchContext, 'catalogue' | 'field'>,
): SavedSearchDraft {
  const criteria: SavedSearchCriteria = {}
  const unsaveable: UntranslatedPart[] = []
  const notes: string[] = []
  const refuse = (part: string, words: string, reason: string) =>
    unsaveable.push({ part, words, reason })

  if (search.kind !== 'molecules') {
    refuse(
      'kind',
      `a list of ${search.kind.replace(/_/g, ' ')}`,
      "the vault's saved searches find molecules only",
    )
  }
  const text = search.text?.trim() ?? ''
  if (text !== '') {
    criteria.keyword = text
    notes.push(
      `The vault finds molecules whose name contains “${text}”; the list here also matched the beginnings of words in synonyms, batch identifiers and field values.`,
    )
  }
  for (const [column, value] of Object.entries(search.filters ?? {})) {
    refuse(
      `filters.${column}`,
      `${column.replace(/_/g, ' ')} is ${value === null ? 'empty' : String(value)}`,
      'a saved search has no criterion on this column: clear the filter to save the search',
    )
  }
  writeFields(search.fields ?? {}, context, criteria, refuse, notes)
  writeResults(search.results ?? [], context.catalogue, criteria, refuse)
  writeStructure(search.structure, criteria, refuse)
  const ranges = Object.keys(search.properties ?? {})
  if (ranges.length > 0) {
    refuse(
      'properties',
      `property ranges on ${ranges.join(', ')}`,
      'a saved search has no property ranges: clear them to save the search',
    )
  }
  return { criteria, unsaveable, notes }
}

type Refuse = (part: string, words: string, reason: string) => void

function writeFields(
  fields: Record<string, string>,
  context: Pick<SavedSearchContext, 'field'>,
  criteria: SavedSearchCriteria,
  refuse: Refuse,
  notes: string[],
): void {
  const written: NonNullable<SavedSearchCriteria['molecule_criteria']> = []
  for (const [name, value] of Object.entries(fields)) {
    const part = `fields.${name}`
    const words = `${name} is ${value}`
    const field = context.field(name)
    if (!field) {
      refuse(part, words, `the vault has no field named ‘${name}’ (any more)`)
      continue
    }
    if (field.owner !== 'molecule') {
      refuse(
        part,
        words,
        `‘${name}’ is not a molecule field; a saved search compares molecule fields`,
      )
      continue
    }
    const type = (field.dataType ?? '').toLowerCase()
    if (type === 'number') {
      const number = Number(value)
      if (value.trim() === '' || !Number.isFinite(number)) {
        refuse(part, words, `‘${value}’ is not a number, and ‘${name}’ holds numbers`)
        continue
      }
      written.push({ name, number_value: number })
    } else if (type === 'date') {
      const day = /^\d{4}-\d{2}-\d{2}$/.exec(value.trim())?.[0]
      if (day === undefined) {
        refuse(part, words, `‘${value}’ is not a date (2024-03-05), and ‘${name}’ holds dates`)
        continue
      }
      written.push({ name, date_value: day })
    } else {
      if (value.trim() === '') {
        refuse(part, `${name} is empty`, 'a saved search cannot ask for an empty field')
        continue
      }
      written.push({ name, text_value: value })
      notes.push(
        `The vault finds molecules whose ‘${name}’ contains “${value}”; the list here asked for exactly that value.`,
      )
    }
  }
  if (written.length > 0) criteria.molecule_criteria = written
}

function writeResults(
  texts: readonly string[],
  catalogue: Catalogue,
  criteria: SavedSearchCriteria,
  refuse: Refuse,
): void {
  if (texts.length === 0) return
  const parsed = parseCriteria(texts, catalogue)
  if (!parsed.ok) {
    for (const error of parsed.errors) {
      refuse(`results[${error.index ?? 0}]`, error.text, error.message)
    }
    return
  }
  const written = toServiceCriteria(parsed.criteria)
  if (!written.ok) {
    refuse('results', texts.join('; '), written.message)
    return
  }
  criteria.protocol_criteria = written.criteria
}

function writeStructure(
  structure: SearchToSave['structure'],
  criteria: SavedSearchCriteria,
  refuse: Refuse,
): void {
  if (!structure) return
  if (structure.kind === 'substructure') {
    if (structure.language === 'smarts') {
      refuse(
        'structure',
        `containing the SMARTS pattern ${structure.query}`,
        "the vault's structure search reads SMILES, CXSMILES or a molfile, not SMARTS",
      )
      return
    }
    criteria.structure = structure.query
    criteria.structure_search_type = 'substructure'
    return
  }
  if (structure.kind === 'exact') {
    if (inchiKeyPattern.test(structure.query.trim())) {
      refuse(
        'structure',
        `whose InChIKey is ${structure.query.trim()}`,
        "a saved search's exact search takes a structure, not an InChIKey",
      )
      return
    }
    criteria.structure = structure.query
    criteria.structure_search_type = 'exact'
    return
  }
  if (structure.top !== undefined) {
    refuse(
      'structure',
      `the ${structure.top} molecules most similar to ${structure.smiles}`,
      'a saved search keeps a similarity threshold, not a number of best hits',
    )
    return
  }
  criteria.structure = structure.smiles
  criteria.structure_search_type = 'similarity'
  criteria.structure_similarity_threshold = structure.threshold ?? defaultSimilarityThreshold
}
