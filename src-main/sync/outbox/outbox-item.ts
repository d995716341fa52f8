import type { RecordKindName } from '../../../src-common/records/record-kinds.ts'
import type { JsonObject } from '../../../src-common/values.ts'
import type { OperationName } from '../../../src-common/outbox/operations.ts'
import type { OutboxState } from '../../../src-common/outbox/states.ts'
import type { Overlay } from './overlay.ts'

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
  /** The copy's SHA-256 (hex) when it was made; null for items queued before it was recorded. */
  sha256: string | null
  /** The file it was copied from, offered to the person when the copy is found damaged. */
  source: string | null
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
  /**
   * What the members the item changes held as the person saw them when it was queued, for
   * records whose copies carry no modified_at (`Operation.baseValues`); null when not known.
   */
  baseValues: JsonObject | null
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
