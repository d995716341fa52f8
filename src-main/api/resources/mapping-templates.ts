import type { KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import { list } from '../envelope.ts'
import { ApiError } from '../errors.ts'
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
  /**
   * How sync reads mapping templates (src-main/sync/kind-plans.ts): each one read alone, for the
   * column mappings an import file is checked against offline. A template that cannot be read
   * alone (deleted meanwhile) keeps its summary.
   */
  readonly pulls: KindPulls = {
    mapping_templates: {
      fetch: async (vaultId, call) => {
        const summaries = await this.list(vaultId, call)
        return Promise.all(
          summaries.map(async (summary) => {
            try {
              return await this.get(vaultId, summary.id, call)
            } catch (error) {
              if (error instanceof ApiError && (error.status === 404 || error.status === 403)) {
                return summary
              }
              throw error
            }
          }),
        )
      },
    },
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
