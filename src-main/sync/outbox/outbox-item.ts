import type { RecordKindName } from '../../store/record-kinds.ts'
import type { JsonObject } from '../../store/record-values.ts'
import type { OperationName } from './operations/operation-names.ts'
import type { Overlay } from './overlay.ts'

export const outboxStates = [
  'queued',
  'sending',
  'sent',
  'needs_attention',
  'conflict',
  'uncertain',
  'cancelled',
] as const

/**
 * queued: waiting its turn (or its next attempt after a failure); sending: an attempt is under
 * way; sent: the server has it; needs_attention: the server refused it (the person fixes and
 * resends, or discards); conflict: the record changed on the server since editing began;
 * uncertain: it may or may not have arrived and the API cannot tell (the person decides);
 * cancelled: discarded by the person.
 */
export type OutboxState = (typeof outboxStates)[number]

/** States an item leaves only through the person's decision or a send. */
export const unresolvedStates: readonly OutboxState[] = [
  'queued',
  'sending',
  'needs_attention',
  'conflict',
  'uncertain',
]

/**
 * A record an operation refers to: by its server id, or, for a record created offline, by the
 * item that creates it (resolved to the server id when that item has been sent).
 */
export type RecordRef = { id: number } | { item: number }

/** What an operation read before the first attempt, and when (see `OutboxItem.snapshot`). */
export interface Snapshot {
  value: unknown
  at?: number
}

/** A file copied into the data directory when the item was queued. */
export interface Attachment {
  /** Absolute path of the copy. */
  path: string
  /** The original file name, as the server should record it. */
  name: string
  size: number
}

export interface OutboxItem {
  id: number
  connectionId: string
  vaultId: number
  operation: OperationName
  payload: JsonObject
  /** The cached kind of the record the item changes or creates. */
  recordKind: RecordKindName
  /** That record's server id, once known. */
  recordId: number | null
  /** The item that creates that record, while the record has no server id. */
  recordItem: number | null
  orderKey: string
  /**
   * Items of one lane are never in flight together and go in the order queued, whatever their
   * records: uploads of one file name to one record, so that at most one of them is in doubt at a
   * time (see `lanes.ts`). Null for most items.
   */
  lane: string | null
  overlay: Overlay
  state: OutboxState
  /**
   * An earlier attempt may have reached the server (the process died while sending, or the
   * connection broke after the request left): the next attempt first looks the record up.
   */
  inDoubt: boolean
  attempts: number
  nextAttemptAt: number
  attemptStartedAt: number | null
  lastError: string | null
  lastErrorKind: string | null
  /** The server's modified_at when editing began; a newer one on the server is a conflict. */
  baseModifiedAt: string | null
  /** The server's copy, for a conflict. */
  theirs: JsonObject | null
  /**
   * What the server held before the first attempt, to tell later whether an attempt arrived, and
   * when it was read (what other items recorded since may be missing from it; absent in
   * snapshots of older versions); null until taken.
   */
  snapshot: Snapshot | null
  serverId: number | null
  result: JsonObject | null
  /** A sent import whose states are still being followed. */
  following: boolean
  attachment: Attachment | null
  createdAt: number
  updatedAt: number
}
