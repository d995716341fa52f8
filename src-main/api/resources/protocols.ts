import type { KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import type { Page } from '../envelope.ts'
import type { ExportOptions, FinishedExport } from '../export-runner.ts'
import type { Paginated, PageWindow } from '../paginated.ts'
import type { QueryParams } from '../params.ts'
import {
  fetchPage,
  listRequest,
  paginate,
  queryRequest,
  runExport,
  withoutForm,
  type ListCallOptions,
  type ListOptions,
} from '../resource-kit.ts'
import { integer } from '../shape.ts'
import type { CallOptions } from '../transport.ts'
import { protocol, readoutRow, type Protocol, type ReadoutRow } from './assay-records.ts'
import type { ProjectRef } from './common.ts'

export type { Protocol } from './assay-records.ts'

export interface ProtocolListParams {
  no_runs?: boolean
  names?: string[]
  protocols?: number[]
  projects?: number[]
}

/** Readout definitions cannot be changed through the API. */
export interface ProtocolUpdate {
  name?: string
  projects?: ProjectRef[]
  protocol_fields?: Record<string, unknown>
}

export interface ProtocolDataParams {
  molecules?: number[]
  runs?: number[]
  plates?: number[]
  projects?: number[]
}

export interface ProtocolDataExportOptions extends ExportOptions {
  format?: 'json' | 'csv'
}

export interface PlotParams {
  /** A size multiplier, such as "2". */
  size?: string
  runs?: number[]
}

/**
 * Protocols, their data (detail rows with the matching aggregates merged in) and their plots.
 */
export class ProtocolsApi {
  /** How sync reads protocols (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    protocols: {
      getForm: true,
      page: (vaultId, window, _since, call, form) =>
        this.list(vaultId, window, { ...call, ...(form ? { form } : {}) }),
    },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  list(
    vaultId: number,
    params: ProtocolListParams & Partial<PageWindow> = {},
    options: ListCallOptions = {},
  ): Promise<Page<Protocol>> {
    const operation = 'protocols.list'
    return fetchPage(this.#context, protocol, {
      ...withoutForm(options),
      ...listRequest(operation, vaultPath(operation, vaultId, 'protocols'), params, options.form),
    })
  }

  listAll(
    vaultId: number,
    params: ProtocolListParams = {},
    options: ListOptions = {},
  ): Paginated<Protocol> {
    const operation = 'protocols.list'
    const path = vaultPath(operation, vaultId, 'protocols')
    return paginate(
      this.#context,
      protocol,
      operation,
      (window) => queryRequest(operation, path, { ...params, ...window }),
      options,
    )
  }

  listIds(
    vaultId: number,
    params: ProtocolListParams = {},
    options: ListOptions = {},
  ): Paginated<number> {
    const operation = 'protocols.listIds'
    const path = vaultPath(operation, vaultId, 'protocols')
    return paginate(
      this.#context,
      integer,
      operation,
      (window) => queryRequest(operation, path, { ...params, ...window, only_ids: true }),
      options,
    )
  }

  export(
    vaultId: number,
    params: ProtocolListParams = {},
    options: ExportOptions = {},
  ): Promise<FinishedExport<Protocol>> {
    const operation = 'protocols.export'
    return runExport(
      this.#context,
      protocol,
      vaultId,
      queryRequest(operation, vaultPath(operation, vaultId, 'protocols'), {
        ...params,
        async: true,
      }),
      options,
    )
  }

  get(
    vaultId: number,
    id: number,
    params: { no_runs?: boolean } = {},
    options: CallOptions = {},
  ): Promise<Protocol> {
    const operation = 'protocols.get'
    return call(this.#context.transport, protocol, {
      ...options,
      ...this.#read(operation, vaultPath(operation, vaultId, 'protocols', id), { ...params }),
    })
  }

  /** Needs write permission. */
  update(
    vaultId: number,
    id: number,
    body: ProtocolUpdate,
    options: CallOptions = {},
  ): Promise<Protocol> {
    const operation = 'protocols.update'
    return call(this.#context.transport, protocol, {
      ...options,
      operation,
      method: 'PUT',
      path: vaultPath(operation, vaultId, 'protocols', id),
      json: body,
    })
  }

  data(
    vaultId: number,
    protocolId: number,
    params: ProtocolDataParams & Partial<PageWindow> = {},
    options: ListCallOptions = {},
  ): Promise<Page<ReadoutRow>> {
    const operation = 'protocols.data'
    return fetchPage(this.#context, readoutRow, {
      ...withoutForm(options),
      ...listRequest(
        operation,
        vaultPath(operation, vaultId, 'protocols', protocolId, 'data'),
        params,
        options.form,
      ),
    })
  }

  dataAll(
    vaultId: number,
    protocolId: number,
    params: ProtocolDataParams = {},
    options: ListOptions = {},
  ): Paginated<ReadoutRow> {
    const operation = 'protocols.data'
    const path = vaultPath(operation, vaultId, 'protocols', protocolId, 'data')
    return paginate(
      this.#context,
      readoutRow,
      operation,
      (window) => queryRequest(operation, path, { ...params, ...window }),
      options,
    )
  }

  /** The protocol's data as an export: JSON records, or CSV to save with `saveTo()`. */
  exportData(
    vaultId: number,
    protocolId: number,
    params: ProtocolDataParams = {},
    options: ProtocolDataExportOptions = {},
  ): Promise<FinishedExport<ReadoutRow>> {
    const operation = 'protocols.exportData'
    const { format, ...exportOptions } = options
    return runExport(
      this.#context,
      readoutRow,
      vaultId,
      queryRequest(operation, vaultPath(operation, vaultId, 'protocols', protocolId, 'data'), {
        ...params,
        async: true,
        ...(format ? { format } : {}),
      }),
      exportOptions,
    )
  }

  /**
   * The dose response plot of a batch: one PNG, or a ZIP of PNGs when the protocol has several
   * calculations (see contentType). 404 when there is no data.
   */
  plot(
    vaultId: number,
    batchId: number,
    protocolId: number,
    params: PlotParams = {},
    options: CallOptions = {},
  ): Promise<{ contentType: string; bytes: Uint8Array }> {
    const operation = 'protocols.plot'
    return this.#context.transport.bytes({
      ...options,
      ...this.#read(
        operation,
        vaultPath(operation, vaultId, 'batches', batchId, 'protocols', protocolId, 'plot'),
        { ...params },
      ),
      accept: 'image/png, application/zip, application/octet-stream',
    })
  }

  #read(operation: string, path: string, query: QueryParams) {
    return { operation, method: 'GET' as const, path, query }
  }
}
