import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import { list } from '../envelope.ts'
import {
  anything,
  integer,
  object,
  optional,
  readAnswer,
  string,
  timestamp,
  type Infer,
} from '../shape.ts'
import type { CallOptions } from '../transport.ts'
import { upload, type UploadOptions } from '../upload.ts'
import type { ProjectRef } from './common.ts'

/**
 * A data import. States: mapping -> processing -> processed -> committing -> committed; rejected,
 * invalid and canceled end it without data.
 */
export const slurp = object({
  id: integer,
  state: optional(string),
  project: optional(anything),
  owner: optional(anything),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
})
export type Slurp = Infer<typeof slurp>

export interface SlurpRun {
  run_date?: string
  place?: string
  person?: string
  conditions?: string
}

/** The `json` part of an import: what to import into and how to resolve what it finds. */
export interface SlurpMetadata {
  project: ProjectRef
  /** A template id or name, or an inline template with its header mappings. */
  mapping_template?: number | string | { header_mappings: unknown[]; [member: string]: unknown }
  runs?: SlurpRun | SlurpRun[]
  autoreject?: boolean
  ambiguous_events_resolution?: 'none' | 'reject' | 'new_molecule' | 'new_batch'
  suspicious_events_resolution?: 'none' | 'reject' | 'accept'
  ignore_errors?: boolean
}

export interface SlurpCreate {
  /** The SDF, CSV, XLSX or ZIP file on disk; streamed, never read whole. */
  file: string
  filename?: string
  metadata: SlurpMetadata
}

export class SlurpsApi {
  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  /** Active imports; with show_events also their ambiguous and suspicious events and errors. */
  list(
    vaultId: number,
    params: { show_events?: boolean } = {},
    options: CallOptions = {},
  ): Promise<Slurp[]> {
    const operation = 'slurps.list'
    return call(this.#context.transport, list(slurp), {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'slurps'),
      query: { ...params },
    })
  }

  /** Starts an import; 429 (kind rate_limited) while the user has too many imports running. */
  async create(vaultId: number, body: SlurpCreate, options: UploadOptions = {}): Promise<Slurp> {
    const operation = 'slurps.create'
    const answer = await upload(
      this.#context.transport,
      { operation, method: 'POST', path: vaultPath(operation, vaultId, 'slurps') },
      [
        { name: 'json', value: JSON.stringify(body.metadata) },
        { name: 'file', file: body.file, ...(body.filename ? { filename: body.filename } : {}) },
      ],
      options,
    )
    return readAnswer(operation, slurp, answer)
  }

  get(
    vaultId: number,
    id: number,
    params: { show_events?: boolean } = {},
    options: CallOptions = {},
  ): Promise<Slurp> {
    const operation = 'slurps.get'
    return call(this.#context.transport, slurp, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'slurps', id),
      query: { ...params },
    })
  }
}
