/**
 * Records with changes in the outbox, as browse answers mark them (a row's `pending`): the record
 * shown is the cached copy with those changes applied; one created offline has no id yet.
 */
import type { PendingMark } from '../../../../src-common/outbox/pending-mark.ts'
import { waitsForPerson, type OutboxState } from '../../../../src-common/outbox/states.ts'
import type { RecordRow } from '../../../../src-common/records/record-row.ts'
import { stateLabels } from './items.ts'

export type { PendingMark, OutboxState }

/** The pending mark of a record, or null for a record the server has as shown. */
export function pendingOf(row: Pick<RecordRow, 'pending'> | null | undefined): PendingMark | null {
  return row?.pending ?? null
}

/** What a pending mark says, in a word or two: what waits for the person, or is under way. */
export function pendingLabel(state: OutboxState): string {
  return waitsForPerson(state) || state === 'sending' ? stateLabels[state] : 'Pending'
}

/** A key for a list row: the id, or the creating item for a record made offline. */
export function rowKeyOf(row: Pick<RecordRow, 'id' | 'pending'>): string | number {
  if (row.id !== null) return row.id
  const createdBy = row.pending?.createdBy
  return createdBy !== null && createdBy !== undefined ? `new-${createdBy}` : -1
}
