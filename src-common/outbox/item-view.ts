/** Items as the window and the command line see them (`outbox.list` and the other answers). */
import type { JsonObject } from '../values.ts'
import type { OperationName } from './operations.ts'
import type { OutboxState } from './states.ts'

/** How far an upload has gone. */
export interface UploadProgressView {
  sentBytes: number
  totalBytes: number
}

/** An item as the Outbox view and `vault-desk outbox list` show it. */
export interface OutboxItemView {
  id: number
  connectionId: string
  vaultId: number
  operation: OperationName
  state: OutboxState
  /** What it does, in words: "Attach plate-7.csv to molecule 123". */
  summary: string
  /** The record it changes or creates: its server id, or the item creating it offline. */
  record: { kind: string; id: number | null; createdBy: number | null }
  payload: JsonObject
  file: { name: string; size: number } | null
  /** Bytes of an upload under way. */
  progress: UploadProgressView | null
  attempts: number
  /** When the next attempt is due (ISO), for a queued item waiting after a failure. */
  nextAttemptAt: string | null
  /** The server's last error text (or why the item is uncertain or in conflict). */
  lastError: string | null
  /** An earlier attempt may have arrived: it is looked up before any resend. */
  inDoubt: boolean
  /** For a conflict: the server's copy; the person keeps theirs or sends this item anyway. */
  theirs: JsonObject | null
  serverId: number | null
  /** The server's answer; for an import, its latest state with events and errors. */
  result: JsonObject | null
  /** A sent import still followed through its states. */
  following: boolean
  createdAt: string
  updatedAt: string
}
