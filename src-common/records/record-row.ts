/**
 * A record as it crosses from the cache to a host (the window, the CLI): its typed column values as
 * the cache computed them from the record, and the record as the API gave it.
 */
import type { PendingMark } from '../outbox/pending-mark.ts'
import type { JsonObject } from '../values.ts'

export type { PendingMark }

/** A column's value as the cache holds it. */
export type ColumnValue = string | number | null

export interface RecordRow<Kind extends string = string> {
  kind: Kind
  /** The server id; null for a record created offline that the vault does not have yet. */
  id: number | null
  /** `name`, `created_at`, `modified_at` and the kind's declared columns. */
  columns: Readonly<Record<string, ColumnValue>>
  /** The record as the API gave it, with the changes waiting in the outbox applied. */
  json: JsonObject
  /** Present when outbox items change or create the record. */
  pending?: PendingMark
}
