import type { KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import type { DateInput } from '../dates.ts'
import { list } from '../envelope.ts'
import {
  arrayOf,
  boolean,
  integer,
  mapOf,
  number,
  object,
  optional,
  ShapeError,
  string,
  timestamp,
  type Infer,
  type Parser,
} from '../shape.ts'
import type { CallOptions } from '../transport.ts'

export const vault = object({ id: integer, name: optional(string) })
export type Vault = Infer<typeof vault>

const fieldDefinition = object({
  id: integer,
  type: optional(string),
  name: optional(string),
  data_type_name: optional(string),
  unique_value: optional(boolean),
  required_group_number: optional(integer),
  overwritable: optional(boolean),
})
export type FieldDefinition = Infer<typeof fieldDefinition>

/** Field definitions by category (`internal`, `molecule`, `batch`, `protocol`...). */
export type FieldsByCategory = Record<string, FieldDefinition[]>

const fieldsByCategory: Parser<FieldsByCategory> = (value) => {
  // A bare list has no categories; its items still say what they are in `type`.
  if (Array.isArray(value)) return { uncategorized: arrayOf(fieldDefinition)(value) }
  return mapOf(arrayOf(fieldDefinition))(value)
}

const usageEntry = object({
  after: optional(timestamp),
  before: optional(timestamp),
  seconds: number,
})

/** API time used by the current key, in seconds, over a range. */
export interface ApiUsage {
  keyName: string
  after: string | null | undefined
  before: string | null | undefined
  seconds: number
}

const apiUsage: Parser<ApiUsage> = (value) => {
  const entries = Object.entries(mapOf(usageEntry)(value))
  const [entry] = entries
  if (!entry) throw new ShapeError('an object keyed by the API key name', value)
  const [keyName, usage] = entry
  return { keyName, after: usage.after, before: usage.before, seconds: usage.seconds }
}

export interface ApiUsageRange {
  after?: DateInput
  before?: DateInput
}

/** The vaults a key reaches, their field definitions and the key's API time. */
export class VaultsApi {
  /** How sync reads field definitions (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    fields: {
      fetch: async (vaultId, call) => Object.values(await this.fields(vaultId, call)).flat(),
    },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  list(options: CallOptions = {}): Promise<Vault[]> {
    return call(this.#context.transport, list(vault), {
      ...options,
      operation: 'vaults.list',
      method: 'GET',
      path: '/vaults',
    })
  }

  fields(vaultId: number, options: CallOptions = {}): Promise<FieldsByCategory> {
    const operation = 'vaults.fields'
    return call(this.#context.transport, fieldsByCategory, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'fields'),
    })
  }

  apiUsage(
    vaultId: number,
    range: ApiUsageRange = {},
    options: CallOptions = {},
  ): Promise<ApiUsage> {
    const operation = 'vaults.apiUsage'
    return call(this.#context.transport, apiUsage, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'api_executions'),
      query: { after: range.after, before: range.before },
    })
  }
}
