import type { Database, Statement } from 'better-sqlite3'

const statements = new WeakMap<Database, Map<string, Statement>>()

/**
 * A statement prepared once per database, for SQL that every request runs (compiling it again
 * each time costs more than running it). Set a statement's mode (raw, pluck) the same way at
 * every use of one SQL text.
 */
export function preparedOnce(db: Database, sql: string): Statement {
  let cache = statements.get(db)
  if (!cache) statements.set(db, (cache = new Map()))
  let statement = cache.get(sql)
  if (!statement) cache.set(sql, (statement = db.prepare(sql)))
  return statement
}
