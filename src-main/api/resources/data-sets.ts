import type { KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import { list } from '../envelope.ts'
import { integer, object, optional, string, type Infer } from '../shape.ts'
import type { CallOptions } from '../transport.ts'

export const dataSet = object({ id: integer, name: optional(string) })
export type DataSet = Infer<typeof dataSet>

/** Public data sets of a vault. */
export class DataSetsApi {
  /** How sync reads data sets (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    data_sets: { fetch: (vaultId, call) => this.list(vaultId, call) },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  list(vaultId: number, options: CallOptions = {}): Promise<DataSet[]> {
    const operation = 'dataSets.list'
    return call(this.#context.transport, list(dataSet), {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'data_sets'),
    })
  }
}
