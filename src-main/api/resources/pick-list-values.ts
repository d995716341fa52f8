import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import type { Page } from '../envelope.ts'
import type { Paginated, PageWindow } from '../paginated.ts'
import { fetchPage, paginate, type ListOptions } from '../resource-kit.ts'
import { boolean, integer, object, optional, string, timestamp, type Infer } from '../shape.ts'
import type { KindPulls } from '../kind-pull.ts'
import type { CallOptions } from '../transport.ts'
import { message, type Message } from './common.ts'
import type { FieldsByCategory } from './vaults.ts'

const pickListValue = object({
  id: integer,
  field_id: optional(integer),
  value: optional(string),
  /** A hidden value stays on records that have it but cannot be chosen any more. */
  hidden: optional(boolean),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
})
export type PickListValue = Infer<typeof pickListValue>

export interface PickListValueWrite {
  value?: string
  hidden?: boolean
}

/** The vault's field definitions, as the vaults resource reads them. */
type FieldsOfVault = (vaultId: number, options: CallOptions) => Promise<FieldsByCategory>

/** The allowed values of a pick list field; changes are for vault administrators. */
export class PickListValuesApi {
  /**
   * How sync reads pick lists (src-main/sync/kind-plans.ts): the values of every pick list field,
   * each carrying its field's id, so that forms offer and check the values offline.
   */
  readonly pulls: KindPulls = {
    pick_list_values: {
      fetch: async (vaultId, call) => {
        const fields = Object.values(await this.#fieldsOf(vaultId, call)).flat()
        const values: PickListValue[] = []
        for (const field of fields) {
          if (field.data_type_name !== 'Pick List') continue
          for await (const value of this.listAll(vaultId, field.id, call)) {
            values.push({ ...value, field_id: value.field_id ?? field.id })
          }
        }
        return values
      },
    },
  }

  readonly #context: ApiContext
  readonly #fieldsOf: FieldsOfVault

  constructor(context: ApiContext, fieldsOf: FieldsOfVault) {
    this.#context = context
    this.#fieldsOf = fieldsOf
  }

  list(
    vaultId: number,
    fieldId: number,
    window: Partial<PageWindow> = {},
    options: CallOptions = {},
  ): Promise<Page<PickListValue>> {
    const operation = 'pickListValues.list'
    return fetchPage(this.#context, pickListValue, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'fields', fieldId, 'pick_list_values'),
      query: { ...window },
    })
  }

  listAll(vaultId: number, fieldId: number, options: ListOptions = {}): Paginated<PickListValue> {
    const operation = 'pickListValues.list'
    const path = vaultPath(operation, vaultId, 'fields', fieldId, 'pick_list_values')
    return paginate(
      this.#context,
      pickListValue,
      operation,
      (window) => ({ method: 'GET', path, query: { ...window } }),
      options,
    )
  }

  create(
    vaultId: number,
    fieldId: number,
    body: PickListValueWrite & { value: string },
    options: CallOptions = {},
  ): Promise<PickListValue> {
    const operation = 'pickListValues.create'
    return call(this.#context.transport, pickListValue, {
      ...options,
      operation,
      method: 'POST',
      path: vaultPath(operation, vaultId, 'fields', fieldId, 'pick_list_values'),
      json: body,
    })
  }

  get(
    vaultId: number,
    fieldId: number,
    id: number,
    options: CallOptions = {},
  ): Promise<PickListValue> {
    const operation = 'pickListValues.get'
    return call(this.#context.transport, pickListValue, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'fields', fieldId, 'pick_list_values', id),
    })
  }

  update(
    vaultId: number,
    fieldId: number,
    id: number,
    body: PickListValueWrite,
    options: CallOptions = {},
  ): Promise<PickListValue> {
    const operation = 'pickListValues.update'
    return call(this.#context.transport, pickListValue, {
      ...options,
      operation,
      method: 'PUT',
      path: vaultPath(operation, vaultId, 'fields', fieldId, 'pick_list_values', id),
      json: body,
    })
  }

  delete(
    vaultId: number,
    fieldId: number,
    id: number,
    options: CallOptions = {},
  ): Promise<Message | null | undefined> {
    const operation = 'pickListValues.delete'
    return call(this.#context.transport, optional(message), {
      ...options,
      operation,
      method: 'DELETE',
      path: vaultPath(operation, vaultId, 'fields', fieldId, 'pick_list_values', id),
    })
  }
}
