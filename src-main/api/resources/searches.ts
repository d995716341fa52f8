import type { KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import { list } from '../envelope.ts'
import type { ExportOptions, FinishedExport } from '../export-runner.ts'
import { runExport } from '../resource-kit.ts'
import {
  anything,
  arrayOf,
  integer,
  mapOf,
  object,
  optional,
  string,
  timestamp,
  type Infer,
} from '../shape.ts'
import type { CallOptions } from '../transport.ts'
import { molecule, type Molecule } from './chemistry-records.ts'
import { reference, type ExportFormat } from './common.ts'

/**
 * A saved search. `saved_search_session_id` is the search a person saved, `search_id` the
 * search underneath; members with empty values are left out by the server.
 */
const savedSearch = object({
  id: optional(integer),
  name: optional(string),
  saved_search_session_id: optional(integer),
  search_id: optional(integer),
  projects: optional(arrayOf(reference)),
  owner: optional(string),
  search_criteria: optional(mapOf(anything)),
  display_criteria: optional(mapOf(anything)),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
})
export type SavedSearch = Infer<typeof savedSearch>

/** Mirrors a list item; exactly one project, and a name not yet used. */
export interface SavedSearchCreate {
  name: string
  projects: [number]
  /** Structure, keyword, molecule, collection and protocol criteria. */
  search_criteria: Record<string, unknown>
  display_criteria?: Record<string, unknown>
}

export interface SavedSearchRunParams {
  projects?: number[]
  data_sets?: number[]
  zip?: boolean
}

export interface SavedSearchRunOptions extends ExportOptions {
  format?: ExportFormat
}

export class SearchesApi {
  /** How sync reads saved searches (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    saved_searches: { fetch: (vaultId, call) => this.list(vaultId, call) },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  list(vaultId: number, options: CallOptions = {}): Promise<SavedSearch[]> {
    const operation = 'searches.list'
    return call(this.#context.transport, list(savedSearch), {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'searches'),
    })
  }

  /** 422 for a duplicate name, zero or several projects, or an unknown structure search type. */
  create(
    vaultId: number,
    body: SavedSearchCreate,
    options: CallOptions = {},
  ): Promise<SavedSearch> {
    const operation = 'searches.create'
    return call(this.#context.transport, savedSearch, {
      ...options,
      operation,
      method: 'POST',
      path: vaultPath(operation, vaultId, 'searches'),
      json: body,
    })
  }

  /** Runs a saved search: the molecules it finds, always as an export. */
  run(
    vaultId: number,
    searchId: number,
    params: SavedSearchRunParams = {},
    options: SavedSearchRunOptions = {},
  ): Promise<FinishedExport<Molecule>> {
    const operation = 'searches.run'
    const { format, ...exportOptions } = options
    return runExport(
      this.#context,
      molecule,
      vaultId,
      {
        operation,
        method: 'GET',
        path: vaultPath(operation, vaultId, 'searches', searchId),
        query: { ...params, ...(format ? { format } : {}) },
      },
      exportOptions,
    )
  }

  /** Only its owner or a vault administrator may delete a saved search. */
  deleteSavedSession(
    vaultId: number,
    searchId: number,
    sessionId: number,
    options: CallOptions = {},
  ): Promise<SavedSearch> {
    const operation = 'searches.deleteSavedSession'
    return call(this.#context.transport, savedSearch, {
      ...options,
      operation,
      method: 'DELETE',
      path: vaultPath(operation, vaultId, 'searches', searchId, 'saved_sessions', sessionId),
    })
  }
}
