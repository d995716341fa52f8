import type Database from 'better-sqlite3'
import type { KindDeclaration } from '../../src-common/records/kind-declaration.ts'
import { kindDeclarations } from '../../src-common/records/record-kinds.ts'
import { listMembers } from './record-rows.ts'

/**
 * The table of a record kind as its declaration describes it. Every record table has the same
 * frame:
 *
 * - `row_id`: the local key. Declared INTEGER PRIMARY KEY so VACUUM never renumbers it, because
 *   the search index and the project links refer to it.
 * - `vault_id`, `id`: the server's key, unique together (ids are only unique within a vault).
 * - `name`, `created_at`, `modified_at`: what lists show and sort on for nearly every kind.
 *   Timestamps are normalized to `YYYY-MM-DDTHH:MM:SS.ffffffZ` so that text order is time order.
 * - the kind's declared columns: the links and the values lists filter and sort on.
 * - `json`: the record exactly as the API gave it (unknown members kept). It is the last column
 *   of the frame, so that scans which read only the columns before it do not touch its overflow
 *   pages; list members a later step added (record-rows.ts) come after it.
 *
 * Indexes are few on purpose: every one costs each ingested record a B-tree insert.
 *
 * Released migrations keep their own frozen copy of the tables they made (cache-migrations.ts); a
 * test holds every declared table equal to what the migrations leave. A kind declared after the
 * last migration needs none: `createDeclaredTables` makes its table when a cache opens.
 */
export function recordTableSql(kind: KindDeclaration): string[] {
  const table = kind.name
  const columns = (kind.columns ?? []).map((column) =>
    [
      column.name,
      column.type,
      ...(column.collate ? [`COLLATE ${column.collate}`] : []),
      ...(column.flag ? ['NOT NULL DEFAULT 0'] : []),
    ].join(' '),
  )
  // Added by a later cache step, so after `json` (record-rows.ts `listMembers`).
  const members = listMembers[kind.name as keyof typeof listMembers] ?? []
  return [
    `CREATE TABLE ${table} (
      row_id INTEGER PRIMARY KEY,
      vault_id INTEGER NOT NULL,
      id INTEGER NOT NULL,
      name TEXT COLLATE NOCASE,
      created_at TEXT,
      modified_at TEXT,
      ${columns.map((column) => `${column},`).join(' ')}
      json TEXT${kind.nestedJson ? '' : ' NOT NULL'},
      ${members.map((member) => `${member.column} ${member.type},`).join(' ')}
      UNIQUE (vault_id, id)
    )`,
    ...(kind.unnamed ? [] : [byNameIndex(kind, members)]),
    ...(kind.indexes ?? []).map((indexed) => {
      if (typeof indexed === 'string') {
        return `CREATE INDEX ${table}_by_${indexed.replace(/\W+/g, '_')} ON ${table} (vault_id, ${indexed})`
      }
      const { column, covering, withValueOnly } = indexed
      const where = withValueOnly ? ` WHERE ${column} IS NOT NULL` : ''
      return `CREATE INDEX ${table}_by_${column} ON ${table} (${['vault_id', column, ...covering].join(', ')})${where}`
    }),
  ]
}

/**
 * A kind's index by name. Where the kind keeps list members (molecules), it covers every column
 * its rows are read with but the record, after the row id (the list's order within a name), so
 * that a list in name order read without its records walks the index alone (cache step 12).
 */
function byNameIndex(kind: KindDeclaration, members: readonly { column: string }[]): string {
  const covered =
    members.length === 0
      ? []
      : [
          'row_id',
          'id',
          'created_at',
          'modified_at',
          ...(kind.columns ?? []).map((column) => column.name),
          ...members.map((member) => member.column),
        ]
  return `CREATE INDEX ${kind.name}_by_name ON ${kind.name} (${['vault_id', 'name', ...covered].join(', ')})`
}

/**
 * Makes the tables of kinds declared since the last migration; returns the names of those this
 * connection made. Another process may open the same cache at the same moment (the app and the
 * CLI): what is missing is read again inside the write transaction, which only one holds.
 */
export function createDeclaredTables(db: Database.Database): string[] {
  const missing = () => {
    const existing = new Set(
      db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table'`).pluck().all() as string[],
    )
    return kindDeclarations.filter((kind) => !existing.has(kind.name))
  }
  // Most opens find every table: a read then takes no write lock.
  if (missing().length === 0) return []
  return db
    .transaction(() => {
      const made = missing()
      for (const kind of made) for (const statement of recordTableSql(kind)) db.exec(statement)
      return made.map((kind) => kind.name)
    })
    .immediate()
}
