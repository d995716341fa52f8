import type { KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import {
  arrayOf,
  boolean,
  integer,
  object,
  optional,
  string,
  timestamp,
  anything,
  type Infer,
} from '../shape.ts'
import type { CallOptions } from '../transport.ts'

export const vaultStatus = object({
  max_executing_account_slurps: optional(integer),
  num_executing_account_slurps: optional(integer),
  any_locking_chemistry_slurps: optional(boolean),
  any_executing_batch_move_job: optional(boolean),
  slurps: optional(
    arrayOf(
      object({
        id: integer,
        state: optional(string),
        owner: optional(anything),
        project: optional(anything),
        modified_at: optional(timestamp),
      }),
    ),
  ),
  recalculating_protocols: optional(
    arrayOf(object({ id: integer, name: optional(string), projects: optional(anything) })),
  ),
  application_status: optional(
    object({
      processors_available: optional(boolean),
      calculators_available: optional(boolean),
    }),
  ),
})
export type VaultStatus = Infer<typeof vaultStatus>

/** Running imports, recalculating protocols and background processing; administrators only. */
export class VaultStatusApi {
  /** How sync reads the vault's status (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    vault_status: { fetch: async (vaultId, call) => [await this.get(vaultId, call)] },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  get(vaultId: number, options: CallOptions = {}): Promise<VaultStatus> {
    const operation = 'vaultStatus.get'
    return call(this.#context.transport, vaultStatus, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'status'),
    })
  }
}
