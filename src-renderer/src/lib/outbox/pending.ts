/**
 * Records with changes in the outbox, as browse answers mark them (`_pending`): the record shown
 * is the cached copy with those changes applied; one created offline has no id yet.
 */
import type { PendingMark } from '../../../../src-main/services/browse-service.ts'
import type { OutboxState } from '../../../../src-main/sync/outbox/outbox-item.ts'
import { idOf, isRecord, type RecordJson } from '../records/record-values.ts'

export type { PendingMark, OutboxState }

const states: readonly OutboxState[] = [
  'queued',
  'sending',
  'sent',
  'needs_attention',
  'conflict',
  'uncertain',
  'cancelled',
]

/** The pending mark of a record, or null for a record the server has as shown. */
export function pendingOf(record: RecordJson | null | undefined): PendingMark | null {
  const mark = record?._pending
  if (!isRecord(mark) || !states.includes(mark.state as OutboxState)) return null
  return {
    state: mark.state as OutboxState,
    itemIds: Array.isArray(mark.itemIds) ? mark.itemIds.filter((id) => typeof id === 'number') : [],
    createdBy: idOf(mark.createdBy),
  }
}

/** What a pending mark says, in a word or two. */
export function pendingLabel(state: OutboxState): string {
  switch (state) {
    case 'needs_attention':
      return 'Needs attention'
    case 'conflict':
      return 'Conflict'
    case 'uncertain':
      return 'Uncertain'
    case 'sending':
      return 'Sending'
    default:
      return 'Pending'
  }
}

/** Whether a pending state waits for the person (rather than for the network). */
export function needsPerson(state: OutboxState): boolean {
  return state === 'needs_attention' || state === 'conflict' || state === 'uncertain'
}

/** A key for a list row: the id, or the creating item for a record made offline. */
export function rowKeyOf(record: RecordJson): string | number {
  const id = idOf(record.id)
  if (id !== null) return id
  const mark = pendingOf(record)
  return mark?.createdBy !== null && mark?.createdBy !== undefined ? `new-${mark.createdBy}` : -1
}
