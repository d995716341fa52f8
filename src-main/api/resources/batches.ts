import { modifiedAfter, allOf, type KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import type { Page } from '../envelope.ts'
import type { ExportOptions, FinishedExport } from '../export-runner.ts'
import type { Paginated, PageWindow } from '../paginated.ts'
import { fetchPage, paginate, queryRequest, runExport, type ListOptions } from '../resource-kit.ts'
import { integer } from '../shape.ts'
import type { CallOptions } from '../transport.ts'
import type { ChemistryQueryFilters } from './chemistry-queries.ts'
import { batch, type Batch } from './chemistry-records.ts'
import type { ExportFormat, ProjectRef } from './common.ts'

export type { Batch } from './chemistry-records.ts'

export interface BatchQuery extends ChemistryQueryFilters {
  only_molecule_ids?: boolean
}

/** The alternative body: only these batches, with no other member. */
export interface BatchIdsQuery {
  batches: number[]
}

/**
 * The molecule of a new batch: an existing one by id, or a structure to register (in a
 * registration vault, the only way a new molecule is created).
 */
export interface BatchMoleculeRef {
  id?: number
  name?: string
  smiles?: string
  cxsmiles?: string
  structure?: string
  registration_type?: string
  duplicate_resolution?: string
}

export interface BatchWrite {
  name?: string
  projects?: ProjectRef[]
  salt_name?: string
  solvent_of_crystallization_name?: string
  stoichiometry?: {
    core_count?: number
    salt_count?: number
    solvent_of_crystallization_count?: number
  }
  batch_fields?: Record<string, unknown>
  molecule?: BatchMoleculeRef
}

/**
 * Only supplied members change; the molecule member must not change the parent structure, and an
 * empty `projects` array deletes the batch.
 */
export type BatchUpdate = Omit<BatchWrite, 'molecule'> & { id?: number }

export interface BatchReadParams {
  data_sets?: number[]
  include_original_structures?: boolean
  no_structures?: boolean
  only_molecule_ids?: boolean
  owner_id?: boolean
  projects?: number[]
}

export interface BatchExportOptions extends ExportOptions {
  format?: ExportFormat
}

type Query = BatchQuery | BatchIdsQuery

export class BatchesApi {
  /** How sync reads batches changed on their own (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    batches: {
      page: (vaultId, window, since, call) =>
        this.query(vaultId, { ...window, ...modifiedAfter(since), only_molecule_ids: true }, call),
      ids: (vaultId, call) => allOf(this.queryIds(vaultId, {}, call)),
    },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  create(vaultId: number, body: BatchWrite, options: CallOptions = {}): Promise<Batch> {
    const operation = 'batches.create'
    return call(this.#context.transport, batch, {
      ...options,
      operation,
      method: 'POST',
      path: vaultPath(operation, vaultId, 'batches'),
      json: body,
    })
  }

  query(
    vaultId: number,
    body: Query & Partial<PageWindow>,
    options: CallOptions = {},
  ): Promise<Page<Batch>> {
    const operation = 'batches.query'
    return fetchPage(this.#context, batch, {
      ...options,
      ...this.#querySpec(operation, vaultId, body),
    })
  }

  queryAll(vaultId: number, body: Query, options: ListOptions = {}): Paginated<Batch> {
    const operation = 'batches.query'
    return paginate(
      this.#context,
      batch,
      operation,
      (window) => this.#querySpec(operation, vaultId, { ...body, ...window }),
      options,
    )
  }

  queryIds(vaultId: number, body: BatchQuery, options: ListOptions = {}): Paginated<number> {
    const operation = 'batches.queryIds'
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
    body: Query,
    options: BatchExportOptions = {},
  ): Promise<FinishedExport<Batch>> {
    const operation = 'batches.export'
    const { format, ...exportOptions } = options
    return runExport(
      this.#context,
      batch,
      vaultId,
      this.#querySpec(operation, vaultId, { ...body, async: true, ...(format ? { format } : {}) }),
      exportOptions,
    )
  }

  get(
    vaultId: number,
    id: number,
    params: BatchReadParams = {},
    options: CallOptions = {},
  ): Promise<Batch> {
    const operation = 'batches.get'
    return call(this.#context.transport, batch, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'batches', id),
      query: { ...params },
    })
  }

  update(
    vaultId: number,
    id: number,
    body: BatchUpdate,
    options: CallOptions = {},
  ): Promise<Batch> {
    const operation = 'batches.update'
    return call(this.#context.transport, batch, {
      ...options,
      operation,
      method: 'PUT',
      path: vaultPath(operation, vaultId, 'batches', id),
      json: body,
    })
  }

  #querySpec(operation: string, vaultId: number, body: object) {
    return queryRequest(operation, vaultPath(operation, vaultId, 'batches'), body)
  }
}
