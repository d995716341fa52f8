/**
 * A saved search read for the offline list: its criteria in words, and the question
 * `records.list` takes for the parts that translate to the local search. A part that does not
 * translate is named with the reason, never dropped quietly: the caller decides whether to run
 * the rest (the service refuses unless asked for the translatable part explicitly).
 *
 * The vault runs a saved search as a molecule query limited to the search's project (see
 * `src-sim/resources/saved-searches.ts`): `keyword` is contained in the molecule name,
 * `molecule_criteria` items compare a field (text contained, number and date equal),
 * `collection_criteria` and `protocol_criteria` are as in a molecule query. The offline list
 * compares fields by equality, searches text by word prefixes and has no collection criterion,
 * so keywords, text field values, batch fields and collections do not translate. The vault's
 * scope is the search's project and every public data set, whose molecules may belong to no
 * project: the offline list of a project cannot add those, so that part is named too.
 */
import type { Catalogue } from '../analysis/readouts/catalogue.ts'
import { formatCriterion } from '../analysis/readouts/criteria-text.ts'
import { fromServiceCriteria } from '../analysis/readouts/service-criteria.ts'
import { isObject, toId, toText } from '../values.ts'

/** What the reader needs from the vault's cache to name things and check them. */
export interface SavedSearchContext {
  catalogue: Catalogue
  projectName(id: number): string | null
  collectionName(id: number): string | null
  /**
   * Public data sets whose molecules belong to no project, by name (empty when there are none):
   * the vault searches them beside the saved search's project.
   */
  dataSetsOutsideProjects: readonly string[]
  /** The vault's field definition of that name: its owner (`molecule`, `batch`...) and type. */
  field(name: string): { owner: 'molecule' | 'batch' | 'other'; dataType: string | null } | null
}

/** The `records.list` criteria a saved search translates to (molecules, always). */
export interface SavedSearchQuestion {
  kind: 'molecules'
  projectId?: number
  fields?: Record<string, string>
  results?: string[]
  structure?:
    | { kind: 'substructure'; query: string }
    | { kind: 'exact'; query: string }
    | { kind: 'similarity'; smiles: string; threshold: number }
}

export interface UntranslatedPart {
  /** The member of `search_criteria` it comes from, e.g. `keyword` or `molecule_criteria[1]`. */
  part: string
  /** The part in words. */
  words: string
  /** Why the offline search cannot ask it. */
  reason: string
}

export interface SavedSearchReading {
  /** The whole search in words, untranslatable parts included. */
  words: string
  question: SavedSearchQuestion
  untranslated: UntranslatedPart[]
  /** Every part translates: the offline list is the vault's answer. */
  runsOffline: boolean
}

const structureTypes = ['substructure', 'exact', 'similarity'] as const
const knownMembers = new Set([
  'keyword',
  'structure',
  'structure_search_type',
  'structure_similarity_threshold',
  'molecule_criteria',
  'collection_criteria',
  'protocol_criteria',
])
const defaultSimilarityThreshold = 0.7

export function readSavedSearch(
  record: Record<string, unknown>,
  context: SavedSearchContext,
): SavedSearchReading {
  const criteria = isObject(record.search_criteria) ? record.search_criteria : {}
  const clauses: string[] = []
  const untranslated: UntranslatedPart[] = []
  const question: SavedSearchQuestion = { kind: 'molecules' }
  const refuse = (part: string, words: string, reason: string) => {
    clauses.push(words)
    untranslated.push({ part, words, reason })
  }

  const keyword = toText(criteria.keyword)
  if (keyword !== null && keyword !== '') {
    refuse(
      'keyword',
      `whose name contains ${quoted(keyword)}`,
      'the offline search matches words by their beginning across names, synonyms and field values; it cannot ask for a name containing a text',
    )
  }

  readStructure(criteria, question, clauses, refuse)
  readFieldCriteria(criteria.molecule_criteria, context, question, clauses, refuse)
  readCollections(criteria.collection_criteria, context, refuse)
  readProtocolCriteria(criteria.protocol_criteria, context, question, clauses, refuse)

  for (const member of Object.keys(criteria)) {
    if (!knownMembers.has(member)) {
      refuse(
        member,
        `${member} ${JSON.stringify(criteria[member])}`,
        `${member} is not a criterion this version knows`,
      )
    }
  }

  const projectId = projectOf(record)
  let scope = ''
  if (projectId !== null) {
    question.projectId = projectId
    const projectName = context.projectName(projectId)
    scope = ` in project ${quoted(projectName ?? `#${projectId}`)}`
    if (projectName === null) {
      untranslated.push({
        part: 'projects',
        words: scope.trim(),
        reason: `project #${projectId} is not among the vault's projects (any more): the offline list would be empty`,
      })
    }
    const dataSets = context.dataSetsOutsideProjects
    if (dataSets.length > 0) {
      const words = `or in the public data set${dataSets.length > 1 ? 's' : ''} ${dataSets.map(quoted).join(', ')}`
      scope += ` ${words}`
      untranslated.push({
        part: 'scope',
        words,
        reason:
          "the vault searches public data sets beside the search's project, and their molecules belong to no project; the offline list of a project cannot add them",
      })
    }
  }
  const words =
    clauses.length === 0 ? `All molecules${scope}` : `Molecules ${clauses.join(' and ')}${scope}`
  return { words, question, untranslated, runsOffline: untranslated.length === 0 }
}

type Refuse = (part: string, words: string, reason: string) => void

function readStructure(
  criteria: Record<string, unknown>,
  question: SavedSearchQuestion,
  clauses: string[],
  refuse: Refuse,
): void {
  const structure = toText(criteria.structure)
  const typeText = toText(criteria.structure_search_type)
  const thresholdValue = criteria.structure_similarity_threshold
  if (structure === null || structure.trim() === '') {
    if (typeText !== null || thresholdValue !== undefined) {
      refuse(
        'structure_search_type',
        `a ${typeText ?? 'structure'} search without a structure`,
        'the search names a structure search type or threshold but no structure',
      )
    }
    return
  }
  const shown = structure.includes('\n') ? 'the drawn structure' : structure.trim()
  const type = (typeText ?? 'substructure').trim().toLowerCase()
  if (!(structureTypes as readonly string[]).includes(type)) {
    refuse(
      'structure_search_type',
      `found by a ${quoted(typeText ?? '')} search for ${shown}`,
      `"${typeText}" is not a structure search type (exact, substructure or similarity)`,
    )
    return
  }
  if (type === 'substructure') {
    question.structure = { kind: 'substructure', query: structure }
    clauses.push(`containing the substructure ${shown}`)
  } else if (type === 'exact') {
    question.structure = { kind: 'exact', query: structure }
    clauses.push(`whose structure is exactly ${shown}`)
  } else {
    const threshold =
      thresholdValue === undefined || thresholdValue === null
        ? defaultSimilarityThreshold
        : Number(thresholdValue)
    if (!(threshold >= 0 && threshold <= 1)) {
      refuse(
        'structure_similarity_threshold',
        `similar to ${shown} above ${JSON.stringify(thresholdValue)}`,
        `the similarity threshold must be a number from 0 to 1, not ${JSON.stringify(thresholdValue)}`,
      )
      return
    }
    question.structure = { kind: 'similarity', smiles: structure, threshold }
    clauses.push(`similar to ${shown} (Tanimoto at least ${threshold})`)
  }
}

function readFieldCriteria(
  raw: unknown,
  context: SavedSearchContext,
  question: SavedSearchQuestion,
  clauses: string[],
  refuse: Refuse,
): void {
  if (raw === undefined || raw === null) return
  if (!Array.isArray(raw)) {
    refuse('molecule_criteria', 'with field criteria', 'molecule_criteria is not a list')
    return
  }
  raw.forEach((item, index) => {
    const part = `molecule_criteria[${index}]`
    if (!isObject(item) || toText(item.name) === null) {
      refuse(
        part,
        `with the field criterion ${JSON.stringify(item)}`,
        'a field criterion needs a name',
      )
      return
    }
    const name = toText(item.name)!
    const given = (['text_value', 'number_value', 'date_value'] as const).filter(
      (key) => item[key] !== undefined && item[key] !== null,
    )
    if (given.length !== 1) {
      refuse(
        part,
        `with a criterion on ${quoted(name)}`,
        'a field criterion needs exactly one of text_value, number_value or date_value',
      )
      return
    }
    const valueKind = given[0]!
    const value = item[valueKind]
    const words =
      valueKind === 'text_value'
        ? `whose ${quoted(name)} contains ${quoted(String(value))}`
        : valueKind === 'number_value'
          ? `whose ${quoted(name)} is ${String(value)}`
          : `whose ${quoted(name)} is on ${String(value)}`
    const field = context.field(name)
    if (valueKind === 'text_value') {
      refuse(
        part,
        words,
        'the offline search compares field values by equality; it cannot ask for a value containing a text',
      )
      return
    }
    if (!field) {
      refuse(part, words, `the vault has no field named ${quoted(name)} (any more)`)
      return
    }
    if (field.owner !== 'molecule') {
      refuse(
        part,
        words,
        `${quoted(name)} is a ${field.owner === 'batch' ? 'batch' : 'built-in'} field; the offline list of molecules compares molecule fields only`,
      )
      return
    }
    let written: string
    if (valueKind === 'number_value') {
      const number = typeof value === 'number' ? value : Number(toText(value))
      if (!Number.isFinite(number)) {
        refuse(part, words, `${JSON.stringify(value)} is not a number`)
        return
      }
      written = String(number)
    } else {
      const day = /^\d{4}-\d{2}-\d{2}$/.exec(String(value).trim().slice(0, 10))?.[0]
      if (day === undefined) {
        refuse(part, words, `${JSON.stringify(value)} is not a date (2024-03-05)`)
        return
      }
      written = day
    }
    const fields = (question.fields ??= {})
    if (fields[name] !== undefined && fields[name] !== written) {
      refuse(
        part,
        words,
        `${quoted(name)} is already compared with ${fields[name]}; the offline list compares a field once`,
      )
      return
    }
    fields[name] = written
    clauses.push(words)
  })
}

function readCollections(raw: unknown, context: SavedSearchContext, refuse: Refuse): void {
  if (raw === undefined || raw === null) return
  const items = Array.isArray(raw) ? raw : [raw]
  const words: string[] = []
  items.forEach((item, index) => {
    const id = isObject(item) ? toId(item.collection_id) : null
    const name = id === null ? null : context.collectionName(id)
    const collection =
      id === null
        ? 'an unnamed collection'
        : name === null
          ? `collection #${id} (not in this vault any more)`
          : `collection ${quoted(name)}`
    const junction =
      index === 0 || !isObject(item) ? '' : `${(toText(item.junction) ?? 'AND').toLowerCase()} `
    const not = isObject(item) && (item.not_in === true || item.not_in === 'true') ? 'not ' : ''
    words.push(`${junction}${not}in ${collection}`)
  })
  refuse('collection_criteria', words.join(' '), 'the offline search has no collection criterion')
}

function readProtocolCriteria(
  raw: unknown,
  context: SavedSearchContext,
  question: SavedSearchQuestion,
  clauses: string[],
  refuse: Refuse,
): void {
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) return
  const read = fromServiceCriteria(raw, context.catalogue)
  if (!read.ok) {
    for (const error of read.errors) {
      const part =
        error.index === undefined ? 'protocol_criteria' : `protocol_criteria[${error.index}]`
      refuse(part, `with results ${error.text}`, error.message)
    }
    return
  }
  const texts = read.criteria.map((criterion) => formatCriterion(criterion, context.catalogue))
  question.results = texts
  clauses.push(`with results ${texts.map((text) => `“${text}”`).join(' ')}`)
}

function projectOf(record: Record<string, unknown>): number | null {
  if (Array.isArray(record.projects)) {
    for (const project of record.projects) {
      const id = isObject(project) ? toId(project.id) : toId(project)
      if (id !== null) return id
    }
  }
  return toId(record.project_id)
}

function quoted(text: string): string {
  return `'${text}'`
}
