import { modifiedAfter, allOf, type KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import type { DateInput } from '../dates.ts'
import type { Page } from '../envelope.ts'
import type { ExportOptions, FinishedExport } from '../export-runner.ts'
import type { Paginated, PageWindow } from '../paginated.ts'
import { fetchPage, paginate, queryRequest, runExport, type ListOptions } from '../resource-kit.ts'
import { anything, integer } from '../shape.ts'
import type { CallOptions } from '../transport.ts'
import { readoutRow, type ReadoutRow } from './assay-records.ts'
import type { ExportFormat } from './common.ts'

export type { ReadoutCell, ReadoutRow } from './assay-records.ts'

/** Which rows a readout row query matches; the server answers 422 naming a member it refuses. */
export interface ReadoutRowQuery {
  readout_rows?: number[]
  protocols?: number[]
  runs?: number[]
  molecules?: number[]
  batches?: number[]
  plates?: number[]
  projects?: number[]
  /** Only the readouts of these definitions. */
  readout_definitions?: number[]
  type?: 'detail' | 'aggregate' | 'all'
  created_after?: DateInput
  created_before?: DateInput
  modified_after?: DateInput
  modified_before?: DateInput
}

/** Only `value` and `outlier` of a readout may change; anything else answers 400. */
export interface ReadoutRowUpdate {
  readouts: Record<string, { value?: number | string | null; outlier?: boolean }>
}

export interface ReadoutRowExportOptions extends ExportOptions {
  format?: ExportFormat
}

export class ReadoutRowsApi {
  /** How sync reads readout rows (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    readout_rows: {
      page: (vaultId, window, since, call) =>
        this.query(vaultId, { ...window, ...modifiedAfter(since) }, call),
      ids: (vaultId, call) => allOf(this.queryIds(vaultId, {}, call)),
      exportAll: (vaultId, call) => this.export(vaultId, {}, call),
    },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  query(
    vaultId: number,
    body: ReadoutRowQuery & Partial<PageWindow> = {},
    options: CallOptions = {},
  ): Promise<Page<ReadoutRow>> {
    const operation = 'readoutRows.query'
    return fetchPage(this.#context, readoutRow, {
      ...options,
      ...this.#querySpec(operation, vaultId, body),
    })
  }

  queryAll(
    vaultId: number,
    body: ReadoutRowQuery = {},
    options: ListOptions = {},
  ): Paginated<ReadoutRow> {
    const operation = 'readoutRows.query'
    return paginate(
      this.#context,
      readoutRow,
      operation,
      (window) => this.#querySpec(operation, vaultId, { ...body, ...window }),
      options,
    )
  }

  queryIds(
    vaultId: number,
    body: ReadoutRowQuery = {},
    options: ListOptions = {},
  ): Paginated<number> {
    const operation = 'readoutRows.queryIds'
    return paginate(
      this.#context,
      integer,
      operation,
      (window) => this.#querySpec(operation, vaultId, { ...body, ...window, only_ids: true }),
      options,
    )
  }

  export(
    vaultId: number,
    body: ReadoutRowQuery = {},
    options: ReadoutRowExportOptions = {},
  ): Promise<FinishedExport<ReadoutRow>> {
    const operation = 'readoutRows.export'
    const { format, ...exportOptions } = options
    return runExport(
      this.#context,
      readoutRow,
      vaultId,
      this.#querySpec(operation, vaultId, { ...body, async: true, ...(format ? { format } : {}) }),
      exportOptions,
    )
  }

  get(vaultId: number, id: number, options: CallOptions = {}): Promise<ReadoutRow> {
    const operation = 'readoutRows.get'
    return call(this.#context.transport, readoutRow, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'readout_rows', id),
    })
  }

  /** Aggregate rows cannot be changed (403). */
  update(
    vaultId: number,
    id: number,
    body: ReadoutRowUpdate,
    options: CallOptions = {},
  ): Promise<ReadoutRow> {
    const operation = 'readoutRows.update'
    return call(this.#context.transport, readoutRow, {
      ...options,
      operation,
      method: 'PUT',
      path: vaultPath(operation, vaultId, 'readout_rows', id),
      json: body,
    })
  }

  /** Detail rows only; aggregate rows answer 403. */
  delete(vaultId: number, id: number, options: CallOptions = {}): Promise<unknown> {
    const operation = 'readoutRows.delete'
    return call(this.#context.transport, anything, {
      ...options,
      operation,
      method: 'DELETE',
      path: vaultPath(operation, vaultId, 'readout_rows', id),
    })
  }

  #querySpec(operation: string, vaultId: number, body: object) {
    return queryRequest(operation, vaultPath(operation, vaultId, 'readout_rows'), body)
  }
}
