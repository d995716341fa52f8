/**
 * A record as a typed row, its columns read by its kind's declared readers: what the cache stores
 * for a record it holds, and what a host computes for one it does not hold (a record written
 * offline, runs listed inside their protocol).
 */
import type { PendingMark } from '../outbox/pending-mark.ts'
import { normalizeTimestamp } from '../timestamps.ts'
import { toId, toText, type JsonObject, type SqlValue } from '../values.ts'
import type { KindDeclaration } from './kind-declaration.ts'
import type { ColumnValue, RecordRow } from './record-row.ts'

/** The frame's columns (`name`, `created_at`, `modified_at`) and the kind's own, as declared. */
export function columnValuesOf(
  kind: KindDeclaration,
  record: JsonObject,
): Record<string, ColumnValue> {
  const values: Record<string, ColumnValue> = {
    name: columnValue(kind.nameOf ? kind.nameOf(record) : toText(record.name)),
    created_at: normalizeTimestamp(record.created_at),
    modified_at: normalizeTimestamp(record.modified_at),
  }
  for (const column of kind.columns ?? []) values[column.name] = columnValue(column.read(record))
  return values
}

export function recordRowOf<Name extends string>(
  kind: KindDeclaration<Name>,
  record: JsonObject,
  pending?: PendingMark,
): RecordRow<Name> {
  return {
    kind: kind.name,
    id: toId(record.id),
    columns: columnValuesOf(kind, record),
    json: record,
    ...(pending ? { pending } : {}),
  }
}

function columnValue(value: SqlValue): ColumnValue {
  return typeof value === 'bigint' ? Number(value) : value
}
