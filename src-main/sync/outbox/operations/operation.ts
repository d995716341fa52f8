import type { z } from 'zod'
import type { UploadProgress, VaultClient } from '../../../api/index.ts'
import type { CallOptions } from '../../../api/index.ts'
import type { JsonObject } from '../../../../src-common/values.ts'
import type { LaneRef } from '../lanes.ts'
import type { OutboxItem } from '../outbox-item.ts'
import type { Overlay } from '../overlay.ts'
import type { OperationName, PayloadOf } from '../../../../src-common/outbox/operations.ts'
import type { OutboxRecordKind, RecordRef } from '../../../../src-common/outbox/record-ref.ts'
import type { RecordKindName } from '../../../store/record-kinds.ts'

/** What an operation works with while one of its items is sent. */
export interface SendContext {
  readonly client: VaultClient
  readonly item: OutboxItem
  readonly vaultId: number
  /** Background priority and the sender's abort signal, for every call. */
  readonly options: CallOptions
  /** The server id of a record; records created offline are sent first (dependencies). */
  resolve(ref: RecordRef): number
  onProgress(progress: UploadProgress): void
  /** The outbox's clock (times it records, such as `updated_at`, are on it). */
  now(): number
  /**
   * Of these server ids of records of the item's kind, those other items already account for
   * (they created them, or were found to have), as recorded since `since` (all, when null).
   */
  claimedByOthers(serverIds: readonly number[], since: number | null): Set<number>
  /** The other items of the item's lane whose attempts may have arrived too (see `lanes.ts`). */
  inDoubtInLane(): OutboxItem[]
}

/** The server's answer, as the outbox keeps it and the cache stores it. */
export interface Sent {
  /** The server id of the record created or changed. */
  serverId: number | null
  /** What the cache should now hold for that record, when the answer tells. */
  record: JsonObject | null
  /** The record's modified_at after the change: later queued edits of it are based on it. */
  modifiedAt?: string | null
  /** An import whose states are followed after sending. */
  follow?: boolean
}

/**
 * Whether an attempt that may have reached the server did. An arrival found among records the
 * server lists (rather than by an id of its own) is `exclusive`: it is refused, and the item
 * uncertain, when another item accounts for that record since `since` (see `markSent`).
 */
export type Reconciled =
  | { outcome: 'arrived'; sent: Sent; exclusive?: { since: number | null } }
  | { outcome: 'absent' }
  | { outcome: 'unknown'; reason: string }
  | { outcome: 'conflict'; theirs: JsonObject }

/**
 * What an edit is checked against: the server's modified_at when editing began, and what the
 * members it changes held then (`Operation.baseValues`); either may be unknown.
 */
export interface EditBase {
  modifiedAt: string | null
  values: JsonObject | null
}

/** Whether the server's copy changed since editing began. */
export type ChangeCheck =
  { changed: false } | { changed: true; theirs: JsonObject } | { changed: 'unknown' }

/** Every kind of record the outbox names is a kind the cache keeps. */
export type OutboxKindsAreCached = AssertCached<OutboxRecordKind>
type AssertCached<K extends RecordKindName> = K

/**
 * How one kind of queued work is sent, by the spec's rules: how its payload is checked, what the
 * UI shows while it is pending, how it is sent, and how an attempt that may have arrived is looked
 * up before any resend. What it is called, which record it belongs to (items of one record are
 * sent in order) and what of it may be edited are declared in common (`operationDeclarations`).
 */
export interface Operation<P = JsonObject> {
  readonly name: OperationName
  readonly schema: z.ZodType<P>
  /** Records created offline that the payload names, so sent before this item. */
  refs(payload: P): RecordRef[]
  /**
   * The item's part of its lane (`lanes.ts`): items of one lane are never in flight together.
   * `ref` names a record as lanes do.
   */
  lane?(payload: P, attachmentName: string | null, ref: LaneRef): string | null
  overlay(payload: P, attachmentName: string | null): Overlay
  /** Read before the first attempt when the answer alone cannot be found again afterwards. */
  snapshot?(context: SendContext, payload: P): Promise<unknown>
  /** For edits: has the record changed on the server since `base`? */
  changedSince?(context: SendContext, payload: P, base: EditBase): Promise<ChangeCheck>
  /**
   * For edits of records whose copies carry no modified_at: what the members the payload
   * changes hold in `seen`, the record as the person saw it when queueing (the cached copy with
   * the earlier queued changes applied); null when `seen` does not tell. Kept with the item as
   * its base values, for `changedSince` to compare with the server's copy.
   */
  baseValues?(payload: P, seen: JsonObject): JsonObject | null
  send(context: SendContext, payload: P): Promise<Sent>
  reconcile(context: SendContext, payload: P): Promise<Reconciled>
}

/**
 * An operation as the outbox holds it with the others: its payload is the stored JSON, which the
 * operation's own schema has checked when the item was queued.
 */
export type StoredOperation = Operation<JsonObject>

/** Every operation by name, each checked to read the payload its declaration names. */
export function stored(operations: {
  readonly [N in OperationName]: Operation<PayloadOf<N>>
}): Readonly<Record<OperationName, StoredOperation>> {
  return operations as unknown as Readonly<Record<OperationName, StoredOperation>>
}
