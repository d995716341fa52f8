import type { KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import { list } from '../envelope.ts'
import { anything, integer, object, optional, string, timestamp, type Infer } from '../shape.ts'
import type { CallOptions } from '../transport.ts'

/** The list gives summary members only; one parser read alone adds `template_json`. */
const importParser = object({
  id: integer,
  name: optional(string),
  template_json: optional(anything),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
})
export type ImportParser = Infer<typeof importParser>

export class ImportParsersApi {
  /** How sync reads import parsers (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    import_parsers: { fetch: (vaultId, call) => this.list(vaultId, call) },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  list(vaultId: number, options: CallOptions = {}): Promise<ImportParser[]> {
    const operation = 'importParsers.list'
    return call(this.#context.transport, list(importParser), {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'import_parsers'),
    })
  }

  get(vaultId: number, id: number, options: CallOptions = {}): Promise<ImportParser> {
    const operation = 'importParsers.get'
    return call(this.#context.transport, importParser, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'import_parsers', id),
    })
  }
}
