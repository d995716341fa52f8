import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import { list } from '../envelope.ts'
import { boolean, integer, object, optional, string, timestamp, type Infer } from '../shape.ts'
import type { CallOptions } from '../transport.ts'

/** requested, queued, processing, success, failure, canceled. */
const batchMoveJob = object({
  id: integer,
  class: optional(string),
  batch: optional(integer),
  molecule: optional(integer),
  name: optional(string),
  fail_on_molecule_deletion: optional(boolean),
  queued_job_position: optional(integer),
  requested_by: optional(integer),
  status: optional(string),
  status_message: optional(string),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
})
export type BatchMoveJob = Infer<typeof batchMoveJob>

export interface BatchMoveJobCreate {
  batch: number
  /** The target molecule, in the same vault. */
  molecule: number
  /** Default true: the job fails if the move would remove the originating molecule. */
  fail_on_molecule_deletion?: boolean
  /** Only in vaults without a registration system. */
  name?: string
}

/** Moves of a batch to another molecule; vault administrators only. */
export class BatchMoveJobsApi {
  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  list(vaultId: number, options: CallOptions = {}): Promise<BatchMoveJob[]> {
    const operation = 'batchMoveJobs.list'
    return call(this.#context.transport, list(batchMoveJob), {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'batch_move_jobs'),
    })
  }

  create(
    vaultId: number,
    body: BatchMoveJobCreate,
    options: CallOptions = {},
  ): Promise<BatchMoveJob> {
    const operation = 'batchMoveJobs.create'
    return call(this.#context.transport, batchMoveJob, {
      ...options,
      operation,
      method: 'POST',
      path: vaultPath(operation, vaultId, 'batch_move_jobs'),
      json: body,
    })
  }

  get(vaultId: number, id: number, options: CallOptions = {}): Promise<BatchMoveJob> {
    const operation = 'batchMoveJobs.get'
    return call(this.#context.transport, batchMoveJob, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'batch_move_jobs', id),
    })
  }

  /** Cancels a job that has not started; 405 (kind conflict) with the job once it has. */
  cancel(vaultId: number, id: number, options: CallOptions = {}): Promise<BatchMoveJob> {
    const operation = 'batchMoveJobs.cancel'
    return call(this.#context.transport, batchMoveJob, {
      ...options,
      operation,
      method: 'DELETE',
      path: vaultPath(operation, vaultId, 'batch_move_jobs', id),
    })
  }
}
