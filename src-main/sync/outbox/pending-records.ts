import type { JsonObject } from '../../../src-common/values.ts'
import { byUrgency, type OutboxState } from '../../../src-common/outbox/states.ts'
import type { OutboxItem } from './outbox-item.ts'
import { applyOverlays } from './overlay.ts'

/** A record with changes in the outbox, as the UI shows it until the server has them. */
export interface PendingRecord {
  kind: string
  /** The server id; null for a record created offline and not sent yet. */
  id: number | null
  /** The item creating the record offline (name it as `{item}` when queueing more changes). */
  createdBy: number | null
  /** The most pressing state among its items (`byUrgency`): needs attention first... */
  state: OutboxState
  itemIds: number[]
  /** The cached copy with every pending change applied (for a new record, the record itself). */
  record: JsonObject
}

/** Merges the unresolved items of one record (oldest first) over its cached copy. */
export function pendingRecord(
  items: readonly OutboxItem[],
  cached: JsonObject | null,
): PendingRecord {
  const first = items[0]!
  const state = byUrgency.find((candidate) => items.some((item) => item.state === candidate))!
  const id = first.recordId
  const record = applyOverlays(
    cached,
    items.map((item) => item.overlay),
  )
  if (id !== null) record.id = id
  return {
    kind: first.recordKind,
    id,
    createdBy: first.recordItem,
    state,
    itemIds: items.map((item) => item.id),
    record,
  }
}

/** Groups unresolved items by record, keeping the order in which records were first queued. */
export function byRecord(items: readonly OutboxItem[]): OutboxItem[][] {
  const groups = new Map<string, OutboxItem[]>()
  for (const item of items) {
    const key = item.recordId !== null ? `id ${item.recordId}` : `item ${item.recordItem}`
    const group = groups.get(key)
    if (group) group.push(item)
    else groups.set(key, [item])
  }
  return [...groups.values()]
}
