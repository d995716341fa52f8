import type { KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import type { Page } from '../envelope.ts'
import type { ExportOptions, FinishedExport } from '../export-runner.ts'
import type { Paginated, PageWindow } from '../paginated.ts'
import {
  fetchPage,
  listRequest,
  paginate,
  runExport,
  withoutForm,
  type ListCallOptions,
  type ListForm,
  type ListOptions,
} from '../resource-kit.ts'
import {
  anything,
  arrayOf,
  idOr,
  integer,
  number,
  object,
  optional,
  string,
  timestamp,
  type Infer,
} from '../shape.ts'
import type { CallOptions } from '../transport.ts'
import { reference, type ProjectRef } from './common.ts'

const plateWell = object({
  row: optional(integer),
  col: optional(integer),
  pos: optional(string),
  batch: optional(idOr(anything)),
  sample: optional(idOr(anything)),
})
export type PlateWell = Infer<typeof plateWell>

export const plate = object({
  id: integer,
  class: optional(string),
  name: optional(string),
  location: optional(anything),
  concentration: optional(number),
  volume: optional(number),
  size: optional(integer),
  projects: optional(arrayOf(idOr(reference))),
  wells: optional(arrayOf(plateWell)),
  statistics: optional(anything),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
})
export type Plate = Infer<typeof plate>

/** A well by its label (A01) or by row and column, with what it holds. */
export type PlateWellWrite = ({ pos: string } | { row: number; col: number }) & {
  batch?: number
  sample?: number
}

export interface PlateWrite {
  name?: string
  /** Wells: one of the standard formats (src-common/plates.ts). */
  size?: number
  projects?: ProjectRef[]
  location?: string
  concentration?: number
  volume?: number
  /** Replaces every well of the plate. */
  wells?: PlateWellWrite[]
}

export interface PlateQuery {
  plates?: number[]
  projects?: number[]
  names?: string[]
}

export class PlatesApi {
  /** How sync reads plates (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    plates: {
      getForm: true,
      page: (vaultId, window, _since, call, form) =>
        this.query(vaultId, window, { ...call, ...(form ? { form } : {}) }),
    },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  query(
    vaultId: number,
    body: PlateQuery & Partial<PageWindow> = {},
    options: ListCallOptions = {},
  ): Promise<Page<Plate>> {
    const operation = 'plates.query'
    return fetchPage(this.#context, plate, {
      ...withoutForm(options),
      ...this.#querySpec(operation, vaultId, body, options.form),
    })
  }

  queryAll(vaultId: number, body: PlateQuery = {}, options: ListOptions = {}): Paginated<Plate> {
    const operation = 'plates.query'
    return paginate(
      this.#context,
      plate,
      operation,
      (window) => this.#querySpec(operation, vaultId, { ...body, ...window }),
      options,
    )
  }

  queryIds(vaultId: number, body: PlateQuery = {}, options: ListOptions = {}): Paginated<number> {
    const operation = 'plates.queryIds'
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
    body: PlateQuery = {},
    options: ExportOptions = {},
  ): Promise<FinishedExport<Plate>> {
    const operation = 'plates.export'
    return runExport(
      this.#context,
      plate,
      vaultId,
      this.#querySpec(operation, vaultId, { ...body, async: true }),
      options,
    )
  }

  /** Needs a name and projects, and write permission. */
  create(
    vaultId: number,
    body: PlateWrite & { name: string; projects: ProjectRef[] },
    options: CallOptions = {},
  ): Promise<Plate> {
    const operation = 'plates.create'
    return call(this.#context.transport, plate, {
      ...options,
      operation,
      method: 'POST',
      path: vaultPath(operation, vaultId, 'plates'),
      json: body,
    })
  }

  get(vaultId: number, id: number, options: CallOptions = {}): Promise<Plate> {
    const operation = 'plates.get'
    return call(this.#context.transport, plate, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'plates', id),
    })
  }

  update(vaultId: number, id: number, body: PlateWrite, options: CallOptions = {}): Promise<Plate> {
    const operation = 'plates.update'
    return call(this.#context.transport, plate, {
      ...options,
      operation,
      method: 'PUT',
      path: vaultPath(operation, vaultId, 'plates', id),
      json: body,
    })
  }

  /** Refused with 422 while the plate has run data. */
  delete(vaultId: number, id: number, options: CallOptions = {}): Promise<unknown> {
    const operation = 'plates.delete'
    return call(this.#context.transport, anything, {
      ...options,
      operation,
      method: 'DELETE',
      path: vaultPath(operation, vaultId, 'plates', id),
    })
  }

  /** Names are filtered only in the query form (spec); the GET form is for sync's fallback. */
  #querySpec(operation: string, vaultId: number, body: object, form?: ListForm) {
    return listRequest(operation, vaultPath(operation, vaultId, 'plates'), body, form)
  }
}
