import type { z } from 'zod'
import type { RecordKindName } from '../../../store/record-kinds.ts'
import type { JsonObject } from '../../../store/record-values.ts'
import type { RecordRef } from '../outbox-item.ts'
import type { Overlay } from '../overlay.ts'
import type { Operation, SendContext, Sent } from './operation.ts'
import type { OperationName } from './operation-names.ts'
import { offlineRefs } from '../payloads/common.ts'
import { isLater, sameInstant } from './same-values.ts'

/** How one kind of record is corrected: read it, write it, and tell whether a write is there. */
export interface RecordEdit<P> {
  name: OperationName
  kind: RecordKindName
  schema: z.ZodType<P>
  target(payload: P): RecordRef
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
  return {
    name: edit.name,
    schema: edit.schema,
    attachment: 'none',
    record: (payload) => ({ kind: edit.kind, ref: edit.target(payload) }),
    refs: (payload) => offlineRefs(edit.target(payload)),
    overlay: (payload) => edit.overlay(payload),
    ...(edit.snapshot ? { snapshot: edit.snapshot } : {}),
    async changedSince(context, payload, base) {
      const record = await edit.read(context, context.resolve(edit.target(payload)))
      return isLater(record.modified_at, base)
        ? { changed: true, theirs: record }
        : { changed: false }
    },
    async send(context, payload) {
      const id = context.resolve(edit.target(payload))
      return sent(await edit.write(context, id, payload), id)
    },
    async reconcile(context, payload) {
      // The snapshot is committed before the request leaves: without it, nothing was sent.
      if (edit.snapshot && context.item.snapshot === null) return { outcome: 'absent' }
      const id = context.resolve(edit.target(payload))
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
