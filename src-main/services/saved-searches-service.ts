/**
 * The vault's saved searches: listed from the cache with their criteria in words (and those
 * waiting in the outbox), turned into the question of an offline list (`records.list`,
 * `vault-desk find`), run on the vault (an export, polled, then downloaded to a file), and a
 * list's current search saved as a new one (queued as `search.create`). A search with a part the
 * local search cannot ask is refused, naming the parts, unless the caller asks for the
 * translatable part explicitly: a partial search is never run silently; likewise a search with a
 * part a saved search cannot hold is never saved.
 */
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import type { Catalogue } from '../../src-common/analysis/readouts/catalogue.ts'
import type { OutboxState } from '../../src-common/outbox/states.ts'
import type { NewSavedSearch } from '../../src-common/outbox/payloads/saved-searches.ts'
import {
  draftSavedSearch,
  type SavedSearchDraft,
  type SearchToSave,
} from '../../src-common/searches/saved-search-draft.ts'
import {
  readSavedSearch,
  type SavedSearchContext,
  type SavedSearchQuestion,
  type UntranslatedPart,
} from '../../src-common/searches/saved-search-reading.ts'
import type { SavedSearchVaultRun, VaultRunFormat } from '../../src-common/searches/vault-run.ts'
import { isObject, toId, toText, type JsonObject } from '../../src-common/values.ts'
import type { VaultClient } from '../api/client.ts'
import { ApiError } from '../api/errors.ts'
import { TargetFile } from '../export/target-file.ts'
import { AppError, toErrorValue } from '../shared/app-error.ts'
import type { EventBus } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import type { VaultCache } from '../store/vault-cache.ts'
import type { Outbox } from '../sync/outbox/outbox.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'

export type { SavedSearchQuestion, SavedSearchVaultRun, SearchToSave, UntranslatedPart }

export interface SavedSearchSummary {
  /** The saved search's id (its `saved_search_session_id`); null while it waits in the outbox. */
  id: number | null
  name: string
  project: { id: number; name: string | null } | null
  owner: string | null
  /** The criteria in words, untranslatable parts included. */
  words: string
  /** Every part translates: run offline, the list is the vault's answer. */
  runsOffline: boolean
  /** The parts the offline search cannot ask, each with why. */
  untranslated: UntranslatedPart[]
  /** Whether the vault can run it (it has its underlying search id); not while queued. */
  runsOnVault: boolean
  /** Saved from this computer and not in the vault yet: the outbox item and its state. */
  pending: { itemId: number; state: OutboxState } | null
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

/** A list's current search, written as a saved search, before it is named and saved. */
export interface SavedSearchProposal extends SavedSearchDraft {
  /** The saved search in words, as the vault will run it. */
  words: string
  /** The projects it may be saved in (exactly one is chosen): those the cache holds. */
  projects: { id: number; name: string }[]
}

export interface SavedSearchSaveRequest {
  name: string
  /** The one project the saved search belongs to. */
  projectId: number
  search: SearchToSave
}

export interface SavedSearchSaved {
  /** The outbox item that creates it in the vault. */
  itemId: number
  name: string
  words: string
  notes: string[]
}

export interface VaultRunRequest {
  search: number | string
  format: VaultRunFormat
  /** A full path ending as the format does; the folder must exist and be writable. */
  path: string
}

export interface SavedSearchesOptions {
  runtimes: ConnectionRuntimes
  outbox: Outbox
  events: EventBus
  log: Logger
}

const pageSize = 1000
const nameLimit = 255
const formatEndings: Record<VaultRunFormat, string> = { csv: '.csv', sdf: '.sdf', json: '.json' }
const formatLabels: Record<VaultRunFormat, string> = {
  csv: 'CSV',
  sdf: 'SD file',
  json: 'JSON',
}

export class SavedSearchesService {
  readonly #runtimes: ConnectionRuntimes
  readonly #outbox: Outbox
  readonly #events: EventBus
  readonly #log: Logger
  readonly #vaultRuns = new Map<string, AbortController>()

  constructor(options: SavedSearchesOptions) {
    this.#runtimes = options.runtimes
    this.#outbox = options.outbox
    this.#events = options.events
    this.#log = options.log
  }

  /** The cached saved searches, then those waiting in the outbox, each by name. */
  list(connectionId: string, vaultId: number): SavedSearchSummary[] {
    const cache = this.#runtimes.get(connectionId).cache
    const context = readingContext(cache, vaultId)
    const cached = allRecords(cache, 'saved_searches', vaultId)
      .map((record) => summaryOf(record, context))
      .filter((summary): summary is SavedSearchSummary => summary !== null)
    const byId = new Map(cached.map((summary) => [summary.id, summary]))
    const waiting: SavedSearchSummary[] = []
    for (const pending of this.#outbox.pendingList(connectionId, vaultId, 'saved_searches')) {
      const itemId = pending.createdBy ?? pending.itemIds[0]
      if (itemId === undefined) continue
      const mark = { itemId, state: pending.state }
      const known = pending.id === null ? undefined : byId.get(pending.id)
      if (known) known.pending = mark
      else {
        const summary = summaryOf(pending.record, context, pending.id)
        if (summary) waiting.push({ ...summary, runsOnVault: false, pending: mark })
      }
    }
    return [...cached, ...waiting]
  }

  run(connectionId: string, vaultId: number, request: SavedSearchRunRequest): SavedSearchRun {
    const cache = this.#runtimes.get(connectionId).cache
    const context = readingContext(cache, vaultId)
    const { record, summary } = this.#find(connectionId, vaultId, request.search, context)
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

  /**
   * A list's current search written as a saved search: its criteria, in words as the vault will
   * run them, the parts a saved search cannot hold, and the projects to choose one from.
   */
  propose(connectionId: string, vaultId: number, search: SearchToSave): SavedSearchProposal {
    const cache = this.#runtimes.get(connectionId).cache
    const context = readingContext(cache, vaultId)
    const draft = draftSavedSearch(search, context)
    const projects = allRecords(cache, 'projects', vaultId).flatMap((record) => {
      const id = toId(record.id)
      return id === null ? [] : [{ id, name: toText(record.name) ?? `Project ${id}` }]
    })
    const words = readSavedSearch({ search_criteria: draft.criteria }, context).words
    return { ...draft, words, projects }
  }

  /**
   * Checks a new saved search against the cache (a name not used by a saved search there or
   * waiting in the outbox, one project this vault has, every part savable) and queues it as
   * `search.create`; nothing is queued while a problem remains, and each is named.
   */
  async save(
    connectionId: string,
    vaultId: number,
    request: SavedSearchSaveRequest,
  ): Promise<SavedSearchSaved> {
    const name = request.name.trim()
    const proposal = this.propose(connectionId, vaultId, request.search)
    const problems: string[] = []
    if (name === '') problems.push('the name is empty: give the saved search a name')
    else if (name.length > nameLimit) {
      problems.push(`the name is ${name.length} characters long; at most ${nameLimit} are allowed`)
    } else {
      const holder = this.#nameHolder(connectionId, vaultId, name)
      if (holder) problems.push(`the name '${name}' is already used by ${holder}: choose another`)
    }
    if (!proposal.projects.some((project) => project.id === request.projectId)) {
      problems.push(
        `project ${request.projectId} is not among this vault's projects (${proposal.projects.map((project) => `${project.id} '${project.name}'`).join(', ') || 'none in the cache: sync the vault'}): a saved search belongs to exactly one of them`,
      )
    }
    for (const part of proposal.unsaveable) {
      problems.push(`${part.words}: ${part.reason}`)
    }
    if (problems.length > 0) {
      throw new AppError('validation', `The search cannot be saved: ${problems.join('; ')}.`)
    }
    const payload: NewSavedSearch = {
      name,
      projects: [request.projectId],
      search_criteria: proposal.criteria,
    }
    const [item] = await this.#outbox.queue({
      connectionId,
      vaultId,
      operation: 'search.create',
      payload,
    })
    const words = readSavedSearch(
      { search_criteria: proposal.criteria, projects: [{ id: request.projectId }] },
      readingContext(this.#runtimes.get(connectionId).cache, vaultId),
    ).words
    return { itemId: item!.id, name, words, notes: proposal.notes }
  }

  /**
   * Runs a saved search on the vault, which answers with an export: waits for an export place,
   * polls the export at the spec's interval, then downloads the file to `path` (written under a
   * temporary name, renamed once complete). Answers once the file is checked and the run has
   * started; `searches.vaultRun` events follow it to its end. A folder that does not exist or
   * cannot be written, a path not ending as the format does, a search the vault cannot run (one
   * waiting in the outbox) or a vault known to be out of reach are refused here.
   */
  async startVaultRun(
    connectionId: string,
    vaultId: number,
    request: VaultRunRequest,
  ): Promise<SavedSearchVaultRun> {
    const runtime = this.#runtimes.get(connectionId)
    const context = readingContext(runtime.cache, vaultId)
    const { record, summary } = this.#find(connectionId, vaultId, request.search, context)
    const searchId = toId(record.search_id)
    if (summary.pending && summary.id === null) {
      throw new AppError(
        'conflict',
        `Saved search '${summary.name}' is waiting in the outbox (item ${summary.pending.itemId}): the vault can run it once it has been sent.`,
      )
    }
    if (searchId === null || summary.id === null) {
      throw new AppError(
        'validation',
        `Saved search '${summary.name}' names no underlying search (search_id), so the vault cannot be asked to run it. Sync the vault and try again.`,
      )
    }
    const ending = formatEndings[request.format]
    if (!request.path.toLowerCase().endsWith(ending) || request.path.length <= ending.length) {
      throw new AppError(
        'invalid_argument',
        `A ${formatLabels[request.format]} is saved in a ${ending} file, not ${request.path}.`,
      )
    }
    const monitor = runtime.monitor.state
    if (!monitor.online && monitor.lastContactAt !== null) {
      throw new AppError(
        'offline',
        `Saved search '${summary.name}' runs on the vault, and ${runtime.name} is out of reach: connect to run it there. Run offline answers from the copy on this computer${summary.runsOffline ? '' : ' (only its translatable part, for this search)'}.`,
      )
    }
    const target = await TargetFile.create(request.path)
    const controller = new AbortController()
    const progress: SavedSearchVaultRun = {
      runId: randomUUID(),
      connectionId,
      vaultId,
      searchId: summary.id,
      name: summary.name,
      format: request.format,
      path: target.path,
      state: 'waiting',
      exportId: null,
      queuePosition: null,
      bytes: 0,
      checkedAt: null,
    }
    this.#vaultRuns.set(progress.runId, controller)
    const emit = (change: Partial<SavedSearchVaultRun>) => {
      Object.assign(progress, change)
      this.#events.emit('searches.vaultRun', { ...progress })
    }
    emit({})
    void this.#vaultRun(
      runtime.client,
      vaultId,
      searchId,
      request.format,
      target,
      controller.signal,
      emit,
    ).finally(() => this.#vaultRuns.delete(progress.runId))
    return { ...progress }
  }

  /** Stops a run on the vault (its export is cancelled there) and removes its file. */
  cancelVaultRun(runId: string): boolean {
    const controller = this.#vaultRuns.get(runId)
    if (!controller) return false
    controller.abort()
    return true
  }

  /** Cancels every run on the vault (the services are closing). */
  close(): void {
    for (const controller of this.#vaultRuns.values()) controller.abort()
  }

  async #vaultRun(
    client: VaultClient,
    vaultId: number,
    searchId: number,
    format: VaultRunFormat,
    target: TargetFile,
    signal: AbortSignal,
    emit: (change: Partial<SavedSearchVaultRun>) => void,
  ): Promise<void> {
    try {
      const finished = await client.searches.run(
        vaultId,
        searchId,
        {},
        {
          format,
          signal,
          priority: 'interactive',
          onProgress: (answer) => {
            const status = answer.status?.trim().toLowerCase()
            emit({
              state: status === 'new' ? 'queued' : 'running',
              exportId: answer.export_id ?? answer.id ?? null,
              queuePosition: answer.queued_job_position ?? null,
              checkedAt: new Date().toISOString(),
            })
          },
        },
      )
      emit({ state: 'downloading', exportId: finished.exportId, queuePosition: null })
      const download = await finished.download({ signal })
      let bytes = 0
      let reported = 0
      try {
        for await (const chunk of download.chunks) {
          if (!target.stream.write(chunk)) await once(target.stream, 'drain', { signal })
          bytes += chunk.length
          if (bytes - reported >= progressStepBytes) {
            reported = bytes
            emit({ bytes })
          }
        }
      } finally {
        download.close()
      }
      const closed = once(target.stream, 'close')
      target.stream.end()
      await closed
      await target.complete()
      emit({ state: 'completed', bytes })
    } catch (error) {
      await target.discard()
      if (signal.aborted) {
        emit({ state: 'cancelled', queuePosition: null })
        return
      }
      this.#log.warn('a saved search run on the vault failed', { error })
      emit({ state: 'failed', queuePosition: null, error: vaultRunError(error) })
    }
  }

  /** The saved search (cached, or waiting in the outbox, by name) and its summary. */
  #find(
    connectionId: string,
    vaultId: number,
    search: number | string,
    context: SavedSearchContext,
  ): { record: JsonObject; summary: SavedSearchSummary } {
    const cache = this.#runtimes.get(connectionId).cache
    const records = allRecords(cache, 'saved_searches', vaultId)
    const cached = findSearch(records, search)
    const cachedSummary = cached ? summaryOf(cached, context) : null
    if (cached && cachedSummary) return { record: cached, summary: cachedSummary }
    if (typeof search === 'string') {
      const wanted = search.trim().toLocaleLowerCase()
      for (const pending of this.#outbox.pendingList(connectionId, vaultId, 'saved_searches')) {
        if (toText(pending.record.name)?.trim().toLocaleLowerCase() !== wanted) continue
        const summary = summaryOf(pending.record, context, pending.id)
        const itemId = pending.createdBy ?? pending.itemIds[0]
        if (summary && itemId !== undefined) {
          return {
            record: pending.record,
            summary: { ...summary, runsOnVault: false, pending: { itemId, state: pending.state } },
          }
        }
      }
    }
    const names = records.map((item) => `'${toText(item.name) ?? '?'}'`)
    throw new AppError(
      'not_found',
      `Vault ${vaultId} has no saved search ${typeof search === 'number' ? search : `'${search}'`} in the cache. Saved searches: ${names.length > 0 ? names.join(', ') : 'none (sync the vault?)'}.`,
    )
  }

  /** The saved search (cached, or waiting in the outbox) already named `name`, in words. */
  #nameHolder(connectionId: string, vaultId: number, name: string): string | null {
    const wanted = name.toLocaleLowerCase()
    const cache = this.#runtimes.get(connectionId).cache
    const cached = allRecords(cache, 'saved_searches', vaultId).find(
      (record) => toText(record.name)?.trim().toLocaleLowerCase() === wanted,
    )
    if (cached) return `saved search ${String(cached.id ?? cached.saved_search_session_id)}`
    const pending = this.#outbox
      .pendingList(connectionId, vaultId, 'saved_searches')
      .find((record) => toText(record.record.name)?.trim().toLocaleLowerCase() === wanted)
    if (!pending) return null
    return `the saved search queued by outbox item ${pending.createdBy ?? pending.itemIds[0]}`
  }
}

/** How often a download reports its bytes. */
const progressStepBytes = 256 * 1024

/** Why a run on the vault failed, in words a person can act on. */
function vaultRunError(error: unknown): { code: string; message: string } {
  if (error instanceof ApiError) {
    const why = error.serverMessage ?? error.message
    switch (error.kind) {
      case 'export_failed':
        return { code: error.code, message: `The vault could not run the search: ${why}` }
      case 'not_found':
        return {
          code: error.code,
          message: `The vault no longer has this saved search (or its export): ${why}. Sync the vault to see its saved searches now.`,
        }
      default:
        if (error.code === 'offline') {
          return {
            code: error.code,
            message: `The vault is out of reach, so the search could not run there: ${why}`,
          }
        }
    }
  }
  const value = toErrorValue(error)
  return { code: value.code, message: value.message }
}

/** A saved search's summary; `id` null for one waiting in the outbox (named by its item). */
function summaryOf(
  record: JsonObject,
  context: SavedSearchContext,
  pendingId?: number | null,
): SavedSearchSummary | null {
  const id =
    pendingId === undefined ? (toId(record.saved_search_session_id) ?? toId(record.id)) : pendingId
  if (id === null && pendingId === undefined) return null
  const reading = readSavedSearch(record, context)
  const projectId = reading.question.projectId
  return {
    id,
    name: toText(record.name) ?? `Saved search ${id ?? ''}`.trim(),
    project:
      projectId === undefined ? null : { id: projectId, name: context.projectName(projectId) },
    owner: toText(record.owner),
    words: reading.words,
    runsOffline: reading.runsOffline,
    untranslated: reading.untranslated,
    runsOnVault: toId(record.search_id) !== null,
    pending: null,
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
