import { createHash } from 'node:crypto'
import Database from 'better-sqlite3'
import type { Database as SqliteDatabase } from 'better-sqlite3'
import { coreSchema } from './schema.ts'
import { exportSchema } from './exports/schema.ts'
import type { SimModule } from './module.ts'

/** A database file made by a simulator with other tables: it is refused rather than misread. */
export class IncompatibleDatabaseError extends Error {
  readonly file: string

  constructor(file: string) {
    super(
      `The database ${file} was made by a simulator with different tables; delete it or choose another --db file`,
    )
    this.name = 'IncompatibleDatabaseError'
    this.file = file
  }
}

/**
 * Opens the simulator's database (in memory unless a file is given) and creates every module's
 * tables. A file made by a simulator with different tables is refused rather than misread.
 */
export function openDatabase(
  file: string | undefined,
  modules: readonly SimModule[],
): SqliteDatabase {
  const db = new Database(file ?? ':memory:')
  db.pragma('foreign_keys = ON')
  // Sorts and temporary b-trees stay in memory rather than going through temporary files.
  db.pragma('temp_store = MEMORY')
  if (file) {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
  }
  const schemas = [
    coreSchema,
    exportSchema,
    ...modules.flatMap((module) => (module.schema ? [module.schema] : [])),
  ]
  const fingerprint = createHash('sha256').update(schemas.join('\n')).digest('hex')
  const existing = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'sim_meta'`)
    .get()
  if (existing) {
    const stored = db.prepare(`SELECT value FROM sim_meta WHERE key = 'schema'`).get() as
      { value: string } | undefined
    if (stored && stored.value !== fingerprint) {
      db.close()
      throw new IncompatibleDatabaseError(file ?? ':memory:')
    }
  }
  db.transaction(() => {
    for (const schema of schemas) db.exec(schema)
    db.prepare(`INSERT OR REPLACE INTO sim_meta (key, value) VALUES ('schema', ?)`).run(fingerprint)
  })()
  return db
}

export function readMeta(db: SqliteDatabase, key: string): string | undefined {
  return (
    db.prepare(`SELECT value FROM sim_meta WHERE key = ?`).get(key) as { value: string } | undefined
  )?.value
}

export function writeMeta(db: SqliteDatabase, key: string, value: string): void {
  db.prepare(`INSERT OR REPLACE INTO sim_meta (key, value) VALUES (?, ?)`).run(key, value)
}
