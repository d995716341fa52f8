/**
 * How each kind of server record is kept in the cache, as sync and the queries use it, derived
 * from the kind's declaration (`src-common/records/kinds/`): the readers of its columns in table
 * order, its search document and projects, and what its lists may sort and filter on.
 */
import {
  filterableColumns,
  isSearchable,
  kindDeclarations,
  recordKindNames,
  sortableColumns,
  type RecordKindDeclaration,
  type RecordKindName,
} from '../../src-common/records/record-kinds.ts'
import type { SearchDocument } from '../../src-common/records/kind-declaration.ts'
import { columnValuesOf } from '../../src-common/records/row-of.ts'
import { normalizeTimestamp } from '../../src-common/timestamps.ts'
import { toId, toText, type JsonObject, type SqlValue } from '../../src-common/values.ts'
import { AppError } from '../shared/app-error.ts'

export { recordKindNames, type RecordKindName, type SearchDocument }

export interface ColumnReader {
  readonly column: string
  readonly read: (record: JsonObject) => SqlValue
}

export interface RecordKind {
  readonly name: RecordKindName
  /** Stored in search rowids and project links: never renumber. At most 63. */
  readonly code: number
  readonly table: string
  readonly idOf: (record: JsonObject, vaultId: number) => unknown
  readonly nameOf: (record: JsonObject) => SqlValue
  readonly columns: readonly ColumnReader[]
  readonly parentColumn?: string
  readonly projectsOf?: (record: JsonObject) => readonly number[]
  readonly searchOf?: (record: JsonObject) => SearchDocument
  readonly searchable: boolean
  readonly sortable: readonly string[]
  readonly filterable: readonly string[]
  readonly declaration: RecordKindDeclaration
}

const ownId = (record: JsonObject): unknown => record.id
const nameMember = (record: JsonObject): SqlValue => toText(record.name)

function storedKind(declaration: RecordKindDeclaration): RecordKind {
  return {
    name: declaration.name,
    code: declaration.code,
    table: declaration.name,
    idOf: declaration.idOf ?? ownId,
    nameOf: declaration.nameOf ?? nameMember,
    columns: (declaration.columns ?? []).map(({ name, read }) => ({ column: name, read })),
    ...(declaration.parentColumn ? { parentColumn: declaration.parentColumn } : {}),
    ...(declaration.projectsOf ? { projectsOf: declaration.projectsOf } : {}),
    ...(declaration.searchOf ? { searchOf: declaration.searchOf } : {}),
    searchable: isSearchable(declaration),
    sortable: sortableColumns(declaration),
    filterable: filterableColumns(declaration),
    declaration,
  }
}

export const recordKinds: ReadonlyMap<RecordKindName, RecordKind> = new Map(
  kindDeclarations.map((declaration) => [declaration.name, storedKind(declaration)]),
)

export const recordKindsByCode: ReadonlyMap<number, RecordKind> = new Map(
  [...recordKinds.values()].map((kind) => [kind.code, kind]),
)

export function recordKind(name: string): RecordKind {
  const kind = recordKinds.get(name as RecordKindName)
  if (!kind) {
    throw new AppError(
      'invalid_argument',
      `Unknown record kind "${name}". Known kinds: ${recordKindNames.join(', ')}.`,
    )
  }
  return kind
}

/** The vault id argument of a store call, strictly: an integer or a string of digits. */
export function vaultIdOf(value: unknown): number {
  const id = toId(value)
  if (id === null)
    throw new AppError('invalid_argument', `Not a vault id: ${JSON.stringify(value)}.`)
  return id
}

export const createdAtOf = (record: JsonObject): SqlValue => normalizeTimestamp(record.created_at)
export const modifiedAtOf = (record: JsonObject): SqlValue => normalizeTimestamp(record.modified_at)

/** A record's column values as the cache computes them: the frame's and the kind's own. */
export function columnValues(kind: RecordKind, record: JsonObject): Record<string, SqlValue> {
  return columnValuesOf(kind.declaration, record)
}
