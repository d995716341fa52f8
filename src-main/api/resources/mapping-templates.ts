import type { KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import { list } from '../envelope.ts'
import { arrayOf, integer, object, optional, string, timestamp, type Infer } from '../shape.ts'
import type { CallOptions } from '../transport.ts'

const headerMapping = object({
  header: optional(object({ name: optional(string), position: optional(integer) })),
  definition: optional(
    object({
      id: optional(integer),
      type: optional(string),
      name: optional(string),
      data_type_name: optional(string),
    }),
  ),
})

/** The list gives summaries; one template read alone adds its `header_mappings`. */
const mappingTemplate = object({
  id: integer,
  name: optional(string),
  owner: optional(string),
  header_mappings: optional(arrayOf(headerMapping)),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
})
export type MappingTemplate = Infer<typeof mappingTemplate>

export class MappingTemplatesApi {
  /** How sync reads mapping templates (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    mapping_templates: { fetch: (vaultId, call) => this.list(vaultId, call) },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  list(vaultId: number, options: CallOptions = {}): Promise<MappingTemplate[]> {
    const operation = 'mappingTemplates.list'
    return call(this.#context.transport, list(mappingTemplate), {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'mapping_templates'),
    })
  }

  get(vaultId: number, id: number, options: CallOptions = {}): Promise<MappingTemplate> {
    const operation = 'mappingTemplates.get'
    return call(this.#context.transport, mappingTemplate, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'mapping_templates', id),
    })
  }
}
