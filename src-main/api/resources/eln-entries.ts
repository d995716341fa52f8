import type { KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import type { DateInput } from '../dates.ts'
import { list } from '../envelope.ts'
import type { ExportOptions, FinishedExport } from '../export-runner.ts'
import { runExport } from '../resource-kit.ts'
import {
  anything,
  integer,
  mapOf,
  object,
  optional,
  string,
  timestamp,
  type Infer,
} from '../shape.ts'
import type { CallOptions } from '../transport.ts'
import { person, reference, type ProjectRef } from './common.ts'

/** Statuses: open, submitted, finalized, discarded. Summaries carry id to url only. */
const elnEntry = object({
  id: integer,
  name: optional(string),
  status: optional(string),
  author: optional(person),
  url: optional(string),
  project: optional(reference),
  eln_fields: optional(mapOf(anything)),
  witness: optional(person),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
})
export type ElnEntry = Infer<typeof elnEntry>

export type ElnBodyItem =
  | { type: 'text'; text: string }
  | { type: 'link'; url: string; label?: string }
  | { type: 'file'; file: number }

/** One body for create and update; on update only supplied members change. */
export interface ElnEntryWrite {
  title?: string
  /** A project id or name. */
  project?: ProjectRef
  eln_fields?: Record<string, unknown>
  /** Appended to the entry's existing body. */
  append_to_body?: ElnBodyItem[]
}

/** The administrators' query; the spec does not show its members, these are the usual ones. */
export interface ElnEntryQuery {
  projects?: number[]
  statuses?: ('open' | 'submitted' | 'finalized' | 'discarded')[]
  authors?: number[]
  created_after?: DateInput
  created_before?: DateInput
  modified_after?: DateInput
  modified_before?: DateInput
}

/**
 * With witnessing: submit (needs witness), approve, reject (needs reason), cancel, reopen (needs
 * reason), discard. Without: finalize, reopen, discard. A move the status does not allow is 409.
 */
export type ElnStatusAction =
  | { status_action: 'submit'; witness: number | string }
  | { status_action: 'reject' | 'reopen'; reason: string }
  | { status_action: 'approve' | 'cancel' | 'finalize' | 'discard' }

export class ElnEntriesApi {
  /** How sync reads notebook entries (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    eln_entries: { fetch: (vaultId, call) => this.query(vaultId, {}, call) },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  create(vaultId: number, body: ElnEntryWrite, options: CallOptions = {}): Promise<ElnEntry> {
    const operation = 'elnEntries.create'
    return call(this.#context.transport, elnEntry, {
      ...options,
      operation,
      method: 'POST',
      path: vaultPath(operation, vaultId, 'eln', 'entries'),
      json: body,
    })
  }

  /** A summary of every entry available; vault administrators only. */
  query(vaultId: number, body: ElnEntryQuery = {}, options: CallOptions = {}): Promise<ElnEntry[]> {
    const operation = 'elnEntries.query'
    return call(this.#context.transport, list(elnEntry), {
      ...options,
      operation,
      method: 'POST',
      path: vaultPath(operation, vaultId, 'eln', 'entries', 'query'),
      json: body,
      retry: 'idempotent',
    })
  }

  /** The entries with their files as a ZIP export; save it with `saveTo()`. Administrators only. */
  export(
    vaultId: number,
    body: ElnEntryQuery = {},
    options: ExportOptions = {},
  ): Promise<FinishedExport<unknown>> {
    const operation = 'elnEntries.export'
    return runExport(
      this.#context,
      anything,
      vaultId,
      {
        operation,
        method: 'POST',
        path: vaultPath(operation, vaultId, 'eln', 'entries', 'query'),
        json: { ...body, async: true },
      },
      options,
    )
  }

  /**
   * Changes the title, project or fields, and appends to the body. Setting values is idempotent
   * and retried like a read; an append is not (sent twice, it appears twice, and the API cannot
   * show a body to tell), so a body with `append_to_body` is never sent again by the client: a
   * failure after it may have arrived is the caller's to settle.
   */
  update(
    vaultId: number,
    id: number,
    body: ElnEntryWrite,
    options: CallOptions = {},
  ): Promise<ElnEntry> {
    const operation = 'elnEntries.update'
    return call(this.#context.transport, elnEntry, {
      ...options,
      operation,
      method: 'PUT',
      path: vaultPath(operation, vaultId, 'eln', 'entries', id),
      json: body,
      retry: body.append_to_body === undefined ? 'idempotent' : 'never',
    })
  }

  /** Appends text, links and files to the entry's body; never retried (see `update`). */
  appendToBody(
    vaultId: number,
    id: number,
    items: ElnBodyItem[],
    options: CallOptions = {},
  ): Promise<ElnEntry> {
    return this.update(vaultId, id, { append_to_body: items }, options)
  }

  /** Moves the entry's status; vault administrators with write permission only. */
  changeStatus(
    vaultId: number,
    id: number,
    action: ElnStatusAction,
    options: CallOptions = {},
  ): Promise<ElnEntry> {
    const operation = 'elnEntries.changeStatus'
    return call(this.#context.transport, elnEntry, {
      ...options,
      operation,
      method: 'POST',
      path: vaultPath(operation, vaultId, 'eln', 'entries', id, 'status'),
      json: action,
    })
  }
}
