/**
 * The vault's saved searches from the cache: listed with their criteria in words, and turned into
 * the question of an offline list (`records.list`, `vault-desk find`). A search with a part the
 * local search cannot ask is refused, naming the parts, unless the caller asks for the
 * translatable part explicitly: a partial search is never run silently.
 */
import type { Catalogue } from '../../src-common/analysis/readouts/catalogue.ts'
import {
  readSavedSearch,
  type SavedSearchContext,
  type SavedSearchQuestion,
  type UntranslatedPart,
} from '../../src-common/searches/saved-search-reading.ts'
import { isObject, toId, toText, type JsonObject } from '../../src-common/values.ts'
import { AppError } from '../shared/app-error.ts'
import type { VaultCache } from '../store/vault-cache.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'

export type { SavedSearchQuestion, UntranslatedPart }

export interface SavedSearchSummary {
  /** The saved search's id (its `saved_search_session_id`). */
  id: number
  name: string
  project: { id: number; name: string | null } | null
  owner: string | null
  /** The criteria in words, untranslatable parts included. */
  words: string
  /** Every part translates: run offline, the list is the vault's answer. */
  runsOffline: boolean
  /** The parts the offline search cannot ask, each with why. */
  untranslated: UntranslatedPart[]
}

export interface SavedSearchRunRequest {
  /** The saved search by id or by name (names are unique in a vault; case is ignored). */
  search: number | string
  /** Run only the translatable part of a search that has untranslatable ones. */
  translatablePart?: boolean
}

export interface SavedSearchRun {
  search: SavedSearchSummary
  /** The list to show: `records.list` takes it with the connection and vault. */
  question: SavedSearchQuestion
  /** True when `untranslated` parts were left out because the caller asked for it. */
  partial: boolean
}

const pageSize = 1000

export class SavedSearchesService {
  readonly #runtimes: ConnectionRuntimes

  constructor(runtimes: ConnectionRuntimes) {
    this.#runtimes = runtimes
  }

  list(connectionId: string, vaultId: number): SavedSearchSummary[] {
    const cache = this.#runtimes.get(connectionId).cache
    const context = readingContext(cache, vaultId)
    return allRecords(cache, 'saved_searches', vaultId)
      .map((record) => summaryOf(record, context))
      .filter((summary): summary is SavedSearchSummary => summary !== null)
  }

  run(connectionId: string, vaultId: number, request: SavedSearchRunRequest): SavedSearchRun {
    const cache = this.#runtimes.get(connectionId).cache
    const context = readingContext(cache, vaultId)
    const records = allRecords(cache, 'saved_searches', vaultId)
    const record = findSearch(records, request.search)
    const summary = record ? summaryOf(record, context) : null
    if (!record || !summary) {
      const names = records.map((item) => `'${toText(item.name) ?? '?'}'`)
      throw new AppError(
        'not_found',
        `Vault ${vaultId} has no saved search ${typeof request.search === 'number' ? request.search : `'${request.search}'`} in the cache. Saved searches: ${names.length > 0 ? names.join(', ') : 'none (sync the vault?)'}.`,
      )
    }
    const reading = readSavedSearch(record, context)
    if (!reading.runsOffline && request.translatablePart !== true) {
      const parts = reading.untranslated
        .map((part) => `${part.part} (${part.words}): ${part.reason}`)
        .join('; ')
      throw new AppError(
        'validation',
        `Saved search '${summary.name}' cannot run offline as saved: ${parts}. Ask for its translatable part explicitly to run the rest.`,
      )
    }
    return { search: summary, question: reading.question, partial: !reading.runsOffline }
  }
}

function summaryOf(record: JsonObject, context: SavedSearchContext): SavedSearchSummary | null {
  const id = toId(record.saved_search_session_id) ?? toId(record.id)
  if (id === null) return null
  const reading = readSavedSearch(record, context)
  const projectId = reading.question.projectId
  return {
    id,
    name: toText(record.name) ?? `Saved search ${id}`,
    project:
      projectId === undefined ? null : { id: projectId, name: context.projectName(projectId) },
    owner: toText(record.owner),
    words: reading.words,
    runsOffline: reading.runsOffline,
    untranslated: reading.untranslated,
  }
}

function findSearch(records: JsonObject[], search: number | string): JsonObject | undefined {
  if (typeof search === 'number') {
    return records.find(
      (record) => toId(record.saved_search_session_id) === search || toId(record.id) === search,
    )
  }
  const wanted = search.trim().toLocaleLowerCase()
  return records.find((record) => toText(record.name)?.trim().toLocaleLowerCase() === wanted)
}

function readingContext(cache: VaultCache, vaultId: number): SavedSearchContext {
  const catalogue: Catalogue = cache.results().catalogue(vaultId)
  const names = (kind: string) =>
    new Map(
      allRecords(cache, kind, vaultId).flatMap((record) => {
        const id = toId(record.id)
        return id === null ? [] : [[id, toText(record.name)] as const]
      }),
    )
  const projects = names('projects')
  const collections = names('collections')
  const fields = new Map(
    allRecords(cache, 'fields', vaultId).flatMap((record) => {
      const name = toText(record.name)
      if (name === null) return []
      const type = toText(record.type) ?? ''
      const owner = type.startsWith('Molecule')
        ? ('molecule' as const)
        : type.startsWith('Batch')
          ? ('batch' as const)
          : ('other' as const)
      return [[name, { owner, dataType: toText(record.data_type_name) }] as const]
    }),
  )
  return {
    catalogue,
    dataSetsOutsideProjects: dataSetsOutsideProjects(cache, vaultId),
    projectName: (id) => projects.get(id) ?? null,
    collectionName: (id) => collections.get(id) ?? null,
    field: (name) => fields.get(name) ?? null,
  }
}

/**
 * The public data sets when the cache holds molecules of no project (which only data sets reach),
 * else none. A molecule's `projects` is an empty list then: the list's JSON equality sees `[]`.
 */
function dataSetsOutsideProjects(cache: VaultCache, vaultId: number): string[] {
  const outside = cache.list('molecules', vaultId, { fields: { projects: '[]' }, limit: 1 })
  if (outside.total === 0) return []
  return allRecords(cache, 'data_sets', vaultId).map(
    (record) => toText(record.name) ?? `data set #${String(record.id)}`,
  )
}

function allRecords(cache: VaultCache, kind: string, vaultId: number): JsonObject[] {
  const records: JsonObject[] = []
  for (let offset = 0; ; offset += pageSize) {
    const page = cache.list(kind, vaultId, { limit: pageSize, offset, sort: 'name' })
    records.push(...page.records.filter(isObject))
    if (page.records.length < pageSize) return records
  }
}
