import Database from 'better-sqlite3'

/**
 * The ingest benchmarks' reference: a database of bare (vault_id, id, JSON) tables with no index
 * but their keys, in WAL with synchronous NORMAL, as the cache is.
 */
export function bareDatabase(file: string, tables: string[]): Database.Database {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  for (const table of tables) {
    db.exec(
      `CREATE TABLE ${table} (vault_id INTEGER, id INTEGER, json TEXT, PRIMARY KEY (vault_id, id))`,
    )
  }
  return db
}
