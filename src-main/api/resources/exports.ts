import { call, vaultPath } from '../call.ts'
import { list } from '../envelope.ts'
import { ApiError } from '../errors.ts'
import { integer, object, optional, readAnswer, string, timestamp, type Infer } from '../shape.ts'
import type { CallOptions, OpenResponse, Transport } from '../transport.ts'

/**
 * The details of an export: what creating one answers and what its progress answers. Servers
 * name the id `id` or `export_id`; `exportIdOf` reads either.
 */
const exportProgress = object({
  id: optional(integer),
  export_id: optional(integer),
  status: optional(string),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
  queued_job_position: optional(integer),
})
export type ExportProgress = Infer<typeof exportProgress>

/** new -> started -> finished; canceled, and any status not named here, means it failed. */
export type ExportState = 'waiting' | 'finished' | 'failed'

export function exportStateOf(status: string | null | undefined): ExportState {
  const normalized = status?.trim().toLowerCase()
  if (normalized === 'finished') return 'finished'
  if (normalized === 'new' || normalized === 'started') return 'waiting'
  return 'failed'
}

export function exportIdOf(operation: string, details: ExportProgress): number {
  const id = details.export_id ?? details.id
  if (id === undefined || id === null) {
    throw new ApiError({
      kind: 'bad_response',
      operation,
      message: `the answer names no export id: ${JSON.stringify(details).slice(0, 200)}.`,
    })
  }
  return id
}

/** Reads the answer of a request that started an export. */
export function readExportTicket(operation: string, answer: unknown): ExportProgress {
  return readAnswer(operation, exportProgress, answer)
}

export class ExportsApi {
  readonly #transport: Transport

  constructor(transport: Transport) {
    this.#transport = transport
  }

  progress(vaultId: number, exportId: number, options: CallOptions = {}): Promise<ExportProgress> {
    const operation = 'exports.progress'
    return call(this.#transport, exportProgress, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'export_progress', exportId),
    })
  }

  /** Every active export of this token, in all vaults, including those started on the web. */
  active(vaultId: number, options: CallOptions = {}): Promise<ExportProgress[]> {
    const operation = 'exports.active'
    return call(this.#transport, list(exportProgress), {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'exports'),
    })
  }

  /**
   * Opens the export's file. The service may answer with the file or redirect to another origin;
   * the transport follows and sends the token to the service's origin only. A 403 means the
   * export is not finished yet (its details carry the progress).
   */
  download(vaultId: number, exportId: number, options: CallOptions = {}): Promise<OpenResponse> {
    const operation = 'exports.download'
    return this.#transport.open({
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'exports', exportId),
      accept: '*/*',
    })
  }

  /** Cancels a running export; a 405 (finished or already canceled) carries its current state. */
  cancel(vaultId: number, exportId: number, options: CallOptions = {}): Promise<ExportProgress> {
    const operation = 'exports.cancel'
    return call(this.#transport, exportProgress, {
      ...options,
      operation,
      method: 'DELETE',
      path: vaultPath(operation, vaultId, 'exports', exportId),
    })
  }
}
