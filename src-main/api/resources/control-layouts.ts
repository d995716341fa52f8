import { modifiedAfter, allOf, type KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import type { DateInput } from '../dates.ts'
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
  integer,
  object,
  optional,
  string,
  timestamp,
  type Infer,
} from '../shape.ts'
import type { CallOptions } from '../transport.ts'

/** `+` and `-` controls, `#` a reference molecule. */
export type ControlState = '+' | '-' | '#' | (string & {})

const controlLayout = object({
  id: integer,
  class: optional(string),
  protocol: optional(integer),
  run: optional(integer),
  plate_id: optional(integer),
  size: optional(integer),
  control_wells: optional(
    arrayOf(
      object({
        row: optional(integer),
        col: optional(integer),
        pos: optional(string),
        control_state: optional(string),
      }),
    ),
  ),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
})
export type ControlLayout = Infer<typeof controlLayout>

export type ControlWell =
  | { row: number; col: number; control_state: ControlState }
  | { pos: string; control_state: ControlState }

/** Exactly one target (protocol or run) and exactly one dimension (size or plate). */
export type ControlLayoutCreate = ({ protocol: number } | { run: number }) &
  ({ size: number } | { plate: number }) & { control_wells: ControlWell[] }

export interface ControlLayoutListParams {
  projects?: number[]
  created_after?: DateInput
  created_before?: DateInput
  modified_after?: DateInput
  modified_before?: DateInput
}

export class ControlLayoutsApi {
  /** How sync reads control layouts (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    control_layouts: {
      getForm: true,
      page: (vaultId, window, since, call, form) =>
        this.list(
          vaultId,
          { ...window, ...modifiedAfter(since) },
          { ...call, ...(form ? { form } : {}) },
        ),
      ids: (vaultId, call, form) =>
        allOf(this.listIds(vaultId, {}, { ...call, ...(form ? { form } : {}) })),
    },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  list(
    vaultId: number,
    params: ControlLayoutListParams & Partial<PageWindow> = {},
    options: ListCallOptions = {},
  ): Promise<Page<ControlLayout>> {
    const operation = 'controlLayouts.list'
    return fetchPage(this.#context, controlLayout, {
      ...withoutForm(options),
      ...this.#listSpec(operation, vaultId, { ...params }, options.form),
    })
  }

  listAll(
    vaultId: number,
    params: ControlLayoutListParams = {},
    options: ListOptions = {},
  ): Paginated<ControlLayout> {
    const operation = 'controlLayouts.list'
    return paginate(
      this.#context,
      controlLayout,
      operation,
      (window) => this.#listSpec(operation, vaultId, { ...params, ...window }),
      options,
    )
  }

  listIds(
    vaultId: number,
    params: ControlLayoutListParams = {},
    options: ListOptions & { form?: ListForm } = {},
  ): Paginated<number> {
    const operation = 'controlLayouts.listIds'
    return paginate(
      this.#context,
      integer,
      operation,
      (window) =>
        this.#listSpec(operation, vaultId, { ...params, ...window, only_ids: true }, options.form),
      options,
    )
  }

  export(
    vaultId: number,
    params: ControlLayoutListParams = {},
    options: ExportOptions = {},
  ): Promise<FinishedExport<ControlLayout>> {
    const operation = 'controlLayouts.export'
    return runExport(
      this.#context,
      controlLayout,
      vaultId,
      this.#listSpec(operation, vaultId, { ...params, async: true }),
      options,
    )
  }

  create(
    vaultId: number,
    body: ControlLayoutCreate,
    options: CallOptions = {},
  ): Promise<ControlLayout> {
    const operation = 'controlLayouts.create'
    return call(this.#context.transport, controlLayout, {
      ...options,
      operation,
      method: 'POST',
      path: vaultPath(operation, vaultId, 'control_layouts'),
      json: body,
    })
  }

  get(vaultId: number, id: number, options: CallOptions = {}): Promise<ControlLayout> {
    const operation = 'controlLayouts.get'
    return call(this.#context.transport, controlLayout, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'control_layouts', id),
    })
  }

  /** Answers nothing on success. */
  async delete(vaultId: number, id: number, options: CallOptions = {}): Promise<void> {
    const operation = 'controlLayouts.delete'
    await call(this.#context.transport, anything, {
      ...options,
      operation,
      method: 'DELETE',
      path: vaultPath(operation, vaultId, 'control_layouts', id),
    })
  }

  #listSpec(operation: string, vaultId: number, body: object, form?: ListForm) {
    return listRequest(operation, vaultPath(operation, vaultId, 'control_layouts'), body, form)
  }
}
