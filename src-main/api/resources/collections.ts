import { modifiedAfter, allOf, type KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import type { Page } from '../envelope.ts'
import type { ExportOptions, FinishedExport } from '../export-runner.ts'
import type { Paginated, PageWindow } from '../paginated.ts'
import { fetchPage, paginate, queryRequest, runExport, type ListOptions } from '../resource-kit.ts'
import { arrayOf, integer, object, optional, string, timestamp, type Infer } from '../shape.ts'
import type { CallOptions } from '../transport.ts'
import { message, type Message } from './common.ts'
import type { DateInput } from '../dates.ts'

export const collection = object({
  id: integer,
  class: optional(string),
  name: optional(string),
  owner: optional(string),
  molecules: optional(arrayOf(integer)),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
})
export type Collection = Infer<typeof collection>

export interface CollectionCreate {
  /** Unique unless `overwrite` is set to replace the collection of that name. */
  name: string
  molecules?: number[]
  /** Private (default), or shared with the members of the molecules' projects. */
  class?: 'user collection' | 'vault collection'
  overwrite?: boolean
}

export interface CollectionQuery {
  collections?: number[]
  include_molecule_ids?: boolean
  projects?: number[]
  created_after?: DateInput
  created_before?: DateInput
  modified_after?: DateInput
  modified_before?: DateInput
  /** User collections are private; vault collections are shared with project members. */
  type?: 'user_collection' | 'vault_collection'
}

export class CollectionsApi {
  /** How sync reads collections (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    collections: {
      page: (vaultId, window, since, call) =>
        this.query(
          vaultId,
          { ...window, ...modifiedAfter(since), include_molecule_ids: true },
          call,
        ),
      ids: (vaultId, call) => allOf(this.queryIds(vaultId, {}, call)),
    },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  create(vaultId: number, body: CollectionCreate, options: CallOptions = {}): Promise<Collection> {
    const operation = 'collections.create'
    return call(this.#context.transport, collection, {
      ...options,
      operation,
      method: 'POST',
      path: vaultPath(operation, vaultId, 'collections'),
      json: body,
    })
  }

  query(
    vaultId: number,
    body: CollectionQuery & Partial<PageWindow>,
    options: CallOptions = {},
  ): Promise<Page<Collection>> {
    const operation = 'collections.query'
    return fetchPage(this.#context, collection, {
      ...options,
      ...this.#querySpec(operation, vaultId, body),
    })
  }

  queryAll(
    vaultId: number,
    body: CollectionQuery,
    options: ListOptions = {},
  ): Paginated<Collection> {
    const operation = 'collections.query'
    return paginate(
      this.#context,
      collection,
      operation,
      (window) => this.#querySpec(operation, vaultId, { ...body, ...window }),
      options,
    )
  }

  queryIds(vaultId: number, body: CollectionQuery, options: ListOptions = {}): Paginated<number> {
    const operation = 'collections.queryIds'
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
    body: CollectionQuery,
    options: ExportOptions = {},
  ): Promise<FinishedExport<Collection>> {
    const operation = 'collections.export'
    return runExport(
      this.#context,
      collection,
      vaultId,
      this.#querySpec(operation, vaultId, { ...body, async: true }),
      options,
    )
  }

  get(vaultId: number, id: number, options: CallOptions = {}): Promise<Collection> {
    const operation = 'collections.get'
    return call(this.#context.transport, collection, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'collections', id),
    })
  }

  /** Adds molecules; a collection cannot lose molecules (it must be created anew). */
  addMolecules(
    vaultId: number,
    id: number,
    molecules: number[],
    options: CallOptions = {},
  ): Promise<Collection> {
    const operation = 'collections.addMolecules'
    return call(this.#context.transport, collection, {
      ...options,
      operation,
      method: 'PUT',
      path: vaultPath(operation, vaultId, 'collections', id),
      json: { molecules },
    })
  }

  /** Deletes the collection; its molecules are unaffected. */
  delete(
    vaultId: number,
    id: number,
    options: CallOptions = {},
  ): Promise<Message | null | undefined> {
    const operation = 'collections.delete'
    return call(this.#context.transport, optional(message), {
      ...options,
      operation,
      method: 'DELETE',
      path: vaultPath(operation, vaultId, 'collections', id),
    })
  }

  #querySpec(operation: string, vaultId: number, body: object) {
    return queryRequest(operation, vaultPath(operation, vaultId, 'collections'), body)
  }
}
