import { isObject, toId, type JsonObject } from '../../../../src-common/values.ts'
import type { OutboxItem } from '../outbox-item.ts'
import type { Reconciled, SendContext } from './operation.ts'

/** What a create's snapshot holds: the ids of the records like it before the first attempt. */
export interface IdsSnapshot {
  ids: number[] | null
}

/** The records of a list answer (a bare array or a page envelope). */
export function recordsOf(answer: unknown): JsonObject[] {
  const objects = isObject(answer) && Array.isArray(answer.objects) ? answer.objects : answer
  return Array.isArray(objects) ? objects.filter(isObject) : []
}

/** The ids an item's snapshot noted, or null when it noted none (the server could not list). */
export function snapshotIds(item: Pick<OutboxItem, 'snapshot'>): number[] | null {
  const ids = (item.snapshot?.value as Partial<IdsSnapshot> | null | undefined)?.ids
  return Array.isArray(ids) ? ids : null
}

/** How the records found for an item in doubt stand with the other items. */
export type Accounting<R> =
  /** None that another item does not account for: it did not arrive. */
  | { kind: 'none' }
  /** As many as the items in doubt that may be them: this item's (by age). */
  | { kind: 'found'; found: R }
  /** More than one, and no other item in doubt that may be one of them. */
  | { kind: 'several'; open: R[] }
  /** Other items of its lane in doubt may be them too, and the counts differ. */
  | { kind: 'contested'; items: number; open: R[] }

/**
 * Which of the records that appeared since an item's snapshot (`fresh`, ascending ids, each like
 * the item) is the item's. One record never accounts for two items: those other items account for
 * (sent with it, or found to be it, since `since`) are not this one's; and where other items of
 * the item's lane are in doubt too and could be one of them (`rivalMayBe`), the records are the
 * items' only if there are as many of them as items (each arrived), else which arrived cannot be
 * told.
 */
export function accountFor<R extends { id: number }>(
  context: SendContext,
  fresh: readonly R[],
  since: number | null,
  rivalMayBe: (other: OutboxItem, record: R) => boolean,
): Accounting<R> {
  const claimed = context.claimedByOthers(
    fresh.map((record) => record.id),
    since,
  )
  const open = fresh.filter((record) => !claimed.has(record.id))
  if (open.length === 0) return { kind: 'none' }
  const rivals = context
    .inDoubtInLane()
    .filter((other) => open.some((record) => rivalMayBe(other, record)))
  const contenders = [context.item.id, ...rivals.map((other) => other.id)].sort((a, b) => a - b)
  if (open.length === contenders.length) {
    return { kind: 'found', found: open[contenders.indexOf(context.item.id)]! }
  }
  return rivals.length === 0
    ? { kind: 'several', open }
    : { kind: 'contested', items: contenders.length, open }
}

/** When the item's snapshot was read (null for snapshots older versions took). */
export function snapshotTime(item: Pick<OutboxItem, 'snapshot'>): number | null {
  return item.snapshot?.at ?? null
}

/**
 * Settles a create that may have reached the server by listing the records like it: one that was
 * not there before the first attempt, and that no other item accounts for, is the one sent (see
 * `accountFor`). With no snapshot the request never left (the snapshot is committed before it);
 * with no way to list, or several new ones, nobody can tell.
 */
export async function newRecordOf(
  context: SendContext,
  list: () => Promise<unknown>,
  unlistable = 'the server gives no way to find it',
): Promise<Reconciled> {
  const item = context.item
  if (item.snapshot === null) return { outcome: 'absent' }
  const before = snapshotIds(item)
  if (before === null) return { outcome: 'unknown', reason: unlistable }
  const fresh = recordsOf(await list())
    .flatMap((record) => {
      const id = toId(record.id)
      return id !== null && !before.includes(id) ? [{ id, record }] : []
    })
    .sort((a, b) => a.id - b.id)
  const since = snapshotTime(item)
  const accounting = accountFor(context, fresh, since, (other, { id }) => {
    const ids = snapshotIds(other)
    return ids === null || !ids.includes(id)
  })
  const ids = (records: readonly { id: number }[]) => records.map((record) => record.id).join(', ')
  switch (accounting.kind) {
    case 'none':
      return { outcome: 'absent' }
    case 'found':
      return {
        outcome: 'arrived',
        sent: { serverId: accounting.found.id, record: accounting.found.record },
        exclusive: { since },
      }
    case 'several':
      return {
        outcome: 'unknown',
        reason: `${accounting.open.length} records like it appeared on the server since the first attempt (ids ${ids(accounting.open)})`,
      }
    case 'contested':
      return {
        outcome: 'unknown',
        reason: `${accounting.items} items like it were in doubt and ${accounting.open.length} ${accounting.open.length === 1 ? 'record' : 'records'} like them appeared on the server (ids ${ids(accounting.open)}), so which of them arrived cannot be told`,
      }
  }
}

/** The ids of a list answer, for a snapshot. */
export function idsOf(answer: unknown): number[] {
  return recordsOf(answer).flatMap((record) => {
    const id = toId(record.id)
    return id === null ? [] : [id]
  })
}
