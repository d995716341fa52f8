import type { OutboxState } from './states.ts'

/**
 * What marks a record shown with changes still in the outbox: the record is the cached copy with
 * those changes applied, and one created offline has no id until the server has it.
 */
export interface PendingMark {
  /** The most pressing state among its items (see `byUrgency`). */
  state: OutboxState
  itemIds: number[]
  /** The item creating the record offline (null for a record the server has). */
  createdBy: number | null
}
