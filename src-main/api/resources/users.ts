import type { KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import { list } from '../envelope.ts'
import { arrayOf, boolean, integer, object, optional, string, type Infer } from '../shape.ts'
import type { CallOptions } from '../transport.ts'

export const user = object({
  id: integer,
  first_name: optional(string),
  last_name: optional(string),
  email: optional(string),
  role_name: optional(string),
  can_witness_eln: optional(boolean),
  /** With include_projects=true. */
  projects: optional(
    arrayOf(
      object({
        id: integer,
        name: optional(string),
        can_manage_project: optional(boolean),
        can_edit_data: optional(boolean),
      }),
    ),
  ),
})
export type User = Infer<typeof user>

/** Members of a vault; vault administrators only. */
export class UsersApi {
  /** How sync reads users (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    users: { fetch: (vaultId, call) => this.list(vaultId, { include_projects: true }, call) },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  list(
    vaultId: number,
    params: { include_projects?: boolean } = {},
    options: CallOptions = {},
  ): Promise<User[]> {
    const operation = 'users.list'
    return call(this.#context.transport, list(user), {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'users'),
      query: { ...params },
    })
  }
}
