/**
 * How the outbox names records: by their cached kind, and by server id or, for a record created
 * offline, by the item that creates it.
 */
import type { RecordKindName } from '../records/record-kinds.ts'

/** The kinds of the records the outbox changes or creates, and of those files are attached to. */
export type OutboxRecordKind = Extract<
  RecordKindName,
  | 'molecules'
  | 'batches'
  | 'collections'
  | 'protocols'
  | 'runs'
  | 'readout_rows'
  | 'dose_response_series'
  | 'plates'
  | 'inventory_samples'
  | 'eln_entries'
  | 'files'
  | 'slurps'
  | 'saved_searches'
>

/**
 * A record an operation refers to: by its server id, or, for a record created offline, by the
 * item that creates it (resolved to the server id when that item has been sent).
 */
export type RecordRef = { id: number } | { item: number }

/** The refs among `refs` that name records created offline. */
export function offlineRefs(...refs: readonly (RecordRef | undefined)[]): RecordRef[] {
  return refs.filter((ref): ref is { item: number } => ref !== undefined && 'item' in ref)
}

/** The server id of a ref, or null for a record created offline. */
export function serverIdOf(ref: RecordRef): number | null {
  return 'id' in ref ? ref.id : null
}
