import { isObject, toId, type JsonObject } from '../../../store/record-values.ts'
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

/**
 * Settles a create that may have reached the server by listing the records like it: one that was
 * not there before the first attempt is the one sent. With no snapshot the request never left
 * (the snapshot is committed before it); with no way to list, or several new ones, nobody can tell.
 */
export async function newRecordOf(
  context: SendContext,
  list: () => Promise<unknown>,
  unlistable = 'the server gives no way to find it',
): Promise<Reconciled> {
  const snapshot = context.item.snapshot
  if (snapshot === null) return { outcome: 'absent' }
  const before = (snapshot.value as IdsSnapshot | null)?.ids ?? null
  if (before === null) return { outcome: 'unknown', reason: unlistable }
  const known = new Set(before)
  const fresh = recordsOf(await list()).filter((record) => {
    const id = toId(record.id)
    return id !== null && !known.has(id)
  })
  if (fresh.length === 1) {
    const record = fresh[0]!
    return { outcome: 'arrived', sent: { serverId: toId(record.id), record } }
  }
  if (fresh.length === 0) return { outcome: 'absent' }
  return {
    outcome: 'unknown',
    reason: `${fresh.length} records like it appeared on the server since the first attempt (ids ${fresh
      .map((record) => record.id)
      .join(', ')})`,
  }
}

/** The ids of a list answer, for a snapshot. */
export function idsOf(answer: unknown): number[] {
  return recordsOf(answer).flatMap((record) => {
    const id = toId(record.id)
    return id === null ? [] : [id]
  })
}
