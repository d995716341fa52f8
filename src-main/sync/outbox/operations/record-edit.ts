import type { z } from 'zod'
import type { JsonObject } from '../../../../src-common/values.ts'
import type { Overlay } from '../overlay.ts'
import type { Operation, SendContext, Sent } from './operation.ts'
import { declarationOf, type OperationName } from '../../../../src-common/outbox/operations.ts'
import { offlineRefs, type RecordRef } from '../../../../src-common/outbox/record-ref.ts'
import { isLater, sameInstant } from './same-values.ts'

/**
 * How one kind of record is corrected: read it, write it, and tell whether a write is there. The
 * record is the one the operation's declaration says it changes.
 */
export interface RecordEdit<P> {
  name: OperationName
  schema: z.ZodType<P>
  read(context: SendContext, id: number): Promise<JsonObject>
  write(context: SendContext, id: number, payload: P): Promise<JsonObject>
  /** Whether the server's copy already holds every change of the payload. */
  holds(payload: P, record: JsonObject, snapshot: unknown): boolean
  overlay(payload: P): Overlay
  snapshot?(context: SendContext, payload: P): Promise<unknown>
}

/**
 * A correction sent as a PUT of the changed members. The record is read first: a copy changed
 * since editing began is a conflict. A PUT repeats safely, so an attempt in doubt is settled by
 * reading the record: it holds the change (arrived), it is unchanged (send it), or someone else
 * changed it meanwhile (a conflict).
 */
export function recordEdit<P>(edit: RecordEdit<P>): Operation<P> {
  const sent = (record: JsonObject, id: number): Sent => ({
    serverId: id,
    record,
    modifiedAt: typeof record.modified_at === 'string' ? record.modified_at : null,
  })
  const changes = declarationOf(edit.name).changes
  if (!changes) throw new Error(`${edit.name} creates records: it is not a record edit.`)
  const target = (payload: P): RecordRef => changes(payload as JsonObject)
  return {
    name: edit.name,
    schema: edit.schema,
    refs: (payload) => offlineRefs(target(payload)),
    overlay: (payload) => edit.overlay(payload),
    ...(edit.snapshot ? { snapshot: edit.snapshot } : {}),
    async changedSince(context, payload, base) {
      if (base.modifiedAt === null) return { changed: 'unknown' }
      const record = await edit.read(context, context.resolve(target(payload)))
      return isLater(record.modified_at, base.modifiedAt)
        ? { changed: true, theirs: record }
        : { changed: false }
    },
    async send(context, payload) {
      const id = context.resolve(target(payload))
      return sent(await edit.write(context, id, payload), id)
    },
    async reconcile(context, payload) {
      // The snapshot is committed before the request leaves: without it, nothing was sent.
      if (edit.snapshot && context.item.snapshot === null) return { outcome: 'absent' }
      const id = context.resolve(target(payload))
      const record = await edit.read(context, id)
      if (edit.holds(payload, record, context.item.snapshot?.value)) {
        return { outcome: 'arrived', sent: sent(record, id) }
      }
      const base = context.item.baseModifiedAt
      if (base === null || sameInstant(record.modified_at, base)) return { outcome: 'absent' }
      return { outcome: 'conflict', theirs: record }
    },
  }
}
