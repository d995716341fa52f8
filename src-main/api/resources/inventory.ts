import { modifiedAfter, type KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import type { DateInput } from '../dates.ts'
import { list, type Page } from '../envelope.ts'
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
  integer,
  mapOf,
  number,
  object,
  optional,
  string,
  timestamp,
  type Infer,
} from '../shape.ts'
import type { CallOptions } from '../transport.ts'
import { person } from './common.ts'

/** A place samples are kept; locations form a tree through `parent_id`. */
const inventoryLocation = object({
  id: integer,
  value: optional(string),
  parent_id: optional(integer),
  num_rows: optional(integer),
  num_columns: optional(integer),
  position_limit: optional(integer),
  filled_position_count: optional(integer),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
})
export type InventoryLocation = Infer<typeof inventoryLocation>

const inventoryEvent = object({
  id: integer,
  event_type: optional(string),
  amount: optional(number),
  note: optional(string),
  owner: optional(string),
  owner_id: optional(person),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
})
export type InventoryEvent = Infer<typeof inventoryEvent>

/** A tracked amount of a batch. Its timestamps keep microseconds. */
const inventorySample = object({
  id: integer,
  batch_id: optional(integer),
  units: optional(string),
  current_amount: optional(number),
  location: optional(anything),
  fields: optional(mapOf(anything)),
  owner: optional(string),
  owner_id: optional(person),
  inventory_events: optional(arrayOf(inventoryEvent)),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
})
export type InventorySample = Infer<typeof inventorySample>

export interface InventoryEventWrite {
  /** Set to change an existing event rather than add one. */
  id?: number
  event_type?: 'Credit' | 'Debit'
  amount?: number
  note?: string
}

/** A create must carry a Credit event with the initial amount; an update adds or changes one. */
export interface InventorySampleWrite {
  batch_id?: number
  units?: 'g' | 'mg' | 'µg' | 'kg' | 'L' | 'mL' | 'µL' | 'M' | 'mM' | 'µM' | 'nM' | 'count'
  location_id?: number | null
  /** A grid position such as A01, on locations that have rows and columns. */
  position?: string | null
  fields?: Record<string, string | number | null>
  inventory_events?: [InventoryEventWrite]
}

export interface InventorySampleListParams {
  owner_id?: boolean
  batch_ids?: number[]
  inventory_sample_ids?: number[]
  projects?: number[]
  created_after?: DateInput
  created_before?: DateInput
  modified_after?: DateInput
  modified_before?: DateInput
}

/** Locations and samples; samples need inventory fields enabled for the vault. */
export class InventoryApi {
  /** How sync reads the location tree and samples (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    inventory_locations: { fetch: (vaultId, call) => this.locations(vaultId, call) },
    inventory_samples: {
      getForm: true,
      page: (vaultId, window, since, call, form) =>
        this.samples(
          vaultId,
          { ...window, ...modifiedAfter(since) },
          { ...call, ...(form ? { form } : {}) },
        ),
    },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  locations(vaultId: number, options: CallOptions = {}): Promise<InventoryLocation[]> {
    const operation = 'inventory.locations'
    return call(this.#context.transport, list(inventoryLocation), {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'inventory_locations'),
    })
  }

  samples(
    vaultId: number,
    params: InventorySampleListParams & Partial<PageWindow> = {},
    options: ListCallOptions = {},
  ): Promise<Page<InventorySample>> {
    const operation = 'inventory.samples'
    return fetchPage(this.#context, inventorySample, {
      ...withoutForm(options),
      ...this.#listSpec(operation, vaultId, { ...params }, options.form),
    })
  }

  samplesAll(
    vaultId: number,
    params: InventorySampleListParams = {},
    options: ListOptions = {},
  ): Paginated<InventorySample> {
    const operation = 'inventory.samples'
    return paginate(
      this.#context,
      inventorySample,
      operation,
      (window) => this.#listSpec(operation, vaultId, { ...params, ...window }),
      options,
    )
  }

  exportSamples(
    vaultId: number,
    params: InventorySampleListParams = {},
    options: ExportOptions = {},
  ): Promise<FinishedExport<InventorySample>> {
    const operation = 'inventory.exportSamples'
    return runExport(
      this.#context,
      inventorySample,
      vaultId,
      this.#listSpec(operation, vaultId, { ...params, async: true }),
      options,
    )
  }

  createSample(
    vaultId: number,
    body: InventorySampleWrite & { batch_id: number },
    options: CallOptions = {},
  ): Promise<InventorySample> {
    const operation = 'inventory.createSample'
    return call(this.#context.transport, inventorySample, {
      ...options,
      operation,
      method: 'POST',
      path: vaultPath(operation, vaultId, 'inventory_samples'),
      json: body,
    })
  }

  sample(
    vaultId: number,
    id: number,
    params: { owner_id?: boolean } = {},
    options: CallOptions = {},
  ): Promise<InventorySample> {
    const operation = 'inventory.sample'
    return call(this.#context.transport, inventorySample, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'inventory_samples', id),
      query: { ...params },
    })
  }

  updateSample(
    vaultId: number,
    id: number,
    body: InventorySampleWrite,
    options: CallOptions = {},
  ): Promise<InventorySample> {
    const operation = 'inventory.updateSample'
    return call(this.#context.transport, inventorySample, {
      ...options,
      operation,
      method: 'PUT',
      path: vaultPath(operation, vaultId, 'inventory_samples', id),
      json: body,
    })
  }

  /** Refused with 422 while the sample is tied to readout rows or a plate well. */
  deleteSample(vaultId: number, id: number, options: CallOptions = {}): Promise<unknown> {
    const operation = 'inventory.deleteSample'
    return call(this.#context.transport, anything, {
      ...options,
      operation,
      method: 'DELETE',
      path: vaultPath(operation, vaultId, 'inventory_samples', id),
    })
  }

  #listSpec(operation: string, vaultId: number, body: object, form?: ListForm) {
    return listRequest(operation, vaultPath(operation, vaultId, 'inventory_samples'), body, form)
  }
}
