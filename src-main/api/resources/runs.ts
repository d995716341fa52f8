import type { KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, checkedId, vaultPath } from '../call.ts'
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
import { anything, integer } from '../shape.ts'
import type { CallOptions } from '../transport.ts'
import { run, type Run } from './assay-records.ts'

export type { Run } from './assay-records.ts'

export interface RunListParams {
  protocols?: number[]
  projects?: number[]
  slurp?: number
  run_date_after?: DateInput
  run_date_before?: DateInput
}

export interface RunUpdate {
  run_date?: DateInput
  person?: string
  place?: string
  conditions?: string
  /** Moves the run to this project. */
  project_id?: number
}

/** Runs of protocols; changes need write permission. */
export class RunsApi {
  /** How sync reads runs (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    runs: {
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
    params: RunListParams & Partial<PageWindow> = {},
    options: ListCallOptions = {},
  ): Promise<Page<Run>> {
    const operation = 'runs.list'
    return fetchPage(this.#context, run, {
      ...withoutForm(options),
      ...this.#listSpec(operation, vaultId, { ...params }, options.form),
    })
  }

  listAll(vaultId: number, params: RunListParams = {}, options: ListOptions = {}): Paginated<Run> {
    const operation = 'runs.list'
    return paginate(
      this.#context,
      run,
      operation,
      (window) => this.#listSpec(operation, vaultId, { ...params, ...window }),
      options,
    )
  }

  listIds(
    vaultId: number,
    params: RunListParams = {},
    options: ListOptions = {},
  ): Paginated<number> {
    const operation = 'runs.listIds'
    return paginate(
      this.#context,
      integer,
      operation,
      (window) => this.#listSpec(operation, vaultId, { ...params, ...window, only_ids: true }),
      options,
    )
  }

  export(
    vaultId: number,
    params: RunListParams = {},
    options: ExportOptions = {},
  ): Promise<FinishedExport<Run>> {
    const operation = 'runs.export'
    return runExport(
      this.#context,
      run,
      vaultId,
      this.#listSpec(operation, vaultId, { ...params, async: true }),
      options,
    )
  }

  /** Deletes every run an import (slurp) created; needs write permission on all of them. */
  deleteImported(vaultId: number, slurpId: number, options: CallOptions = {}): Promise<unknown> {
    const operation = 'runs.deleteImported'
    return call(this.#context.transport, anything, {
      ...options,
      operation,
      method: 'DELETE',
      path: vaultPath(operation, vaultId, 'runs'),
      query: { slurp: checkedId(slurpId, 'the slurp id', operation) },
    })
  }

  get(vaultId: number, id: number, options: CallOptions = {}): Promise<Run> {
    const operation = 'runs.get'
    return call(this.#context.transport, run, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'runs', id),
    })
  }

  update(vaultId: number, id: number, body: RunUpdate, options: CallOptions = {}): Promise<Run> {
    const operation = 'runs.update'
    return call(this.#context.transport, run, {
      ...options,
      operation,
      method: 'PUT',
      path: vaultPath(operation, vaultId, 'runs', id),
      json: body,
    })
  }

  delete(vaultId: number, id: number, options: CallOptions = {}): Promise<unknown> {
    const operation = 'runs.delete'
    return call(this.#context.transport, anything, {
      ...options,
      operation,
      method: 'DELETE',
      path: vaultPath(operation, vaultId, 'runs', id),
    })
  }

  #listSpec(operation: string, vaultId: number, body: object, form?: ListForm) {
    return listRequest(operation, vaultPath(operation, vaultId, 'runs'), body, form)
  }
}
