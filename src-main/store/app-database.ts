import type Database from 'better-sqlite3'
import { refuseNewerSchema, type Migration } from './migrations.ts'
import { openDatabase } from './sqlite.ts'

/**
 * The small database of app-wide settings and saved connections (not their caches or tokens).
 * Released steps are never edited; a change is a new step.
 */
export const appMigrations: readonly Migration[] = [
  (db) =>
    db.exec(`
      CREATE TABLE connections (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        base_url TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `),
  // Where each connection's token lives (never the token itself), and names unique regardless
  // of case, as people read them. Step 1 kept names unique only with their case, so a later one of
  // names that differ only in case is renamed first; released without that, the step failed on
  // such a database (and rolled back), so no database that passed it is affected.
  (db) => {
    db.exec(`
      ALTER TABLE connections ADD COLUMN token_storage TEXT NOT NULL DEFAULT 'keychain'
        CHECK (token_storage IN ('keychain', 'session'));
    `)
    renameConnectionsAlikeInCase(db)
    db.exec('CREATE UNIQUE INDEX connections_by_name ON connections (name COLLATE NOCASE);')
  },
  // Watched instrument folders (watch-repository.ts): what each watches for, and the register of
  // the files it took, by content, so that a restart or a copy of a file never takes it again.
  (db) =>
    db.exec(`
      CREATE TABLE watched_folders (
        id INTEGER PRIMARY KEY,
        connection_id TEXT NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
        vault_id INTEGER NOT NULL,
        folder TEXT NOT NULL,
        settings TEXT NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
        created_at TEXT NOT NULL,
        UNIQUE (connection_id, vault_id, folder)
      );
      CREATE TABLE watched_files (
        id INTEGER PRIMARY KEY,
        connection_id TEXT NOT NULL,
        vault_id INTEGER NOT NULL,
        folder TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        file_name TEXT NOT NULL,
        size INTEGER NOT NULL,
        taken_at TEXT NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ('queued', 'held', 'discarded')),
        outbox_item_id INTEGER,
        report TEXT,
        held_copy TEXT,
        decided_at TEXT,
        UNIQUE (connection_id, vault_id, folder, sha256)
      );
      CREATE INDEX watched_files_held ON watched_files (outcome) WHERE outcome = 'held';
    `),
]

/**
 * Renames each connection whose name an earlier one (by creation) has in another case to
 * "<name> (2)", or the next number free in any case. Only the name changes: tokens and caches
 * are keyed by the connection's id.
 */
function renameConnectionsAlikeInCase(db: Database.Database): void {
  const alike = db
    .prepare(
      `SELECT id, name FROM connections c WHERE EXISTS (SELECT 1 FROM connections d
         WHERE d.name = c.name COLLATE NOCASE AND (d.created_at, d.id) < (c.created_at, c.id))
       ORDER BY created_at, id`,
    )
    .all() as { id: string; name: string }[]
  const taken = db.prepare('SELECT 1 FROM connections WHERE name = ? COLLATE NOCASE').pluck()
  const rename = db.prepare('UPDATE connections SET name = ? WHERE id = ?')
  for (const { id, name } of alike) {
    let number = 2
    while (taken.get(`${name} (${number})`) !== undefined) number++
    rename.run(`${name} (${number})`, id)
  }
}

const appDatabaseName = 'the app database'

/** Opens the app database; one a newer Vault Desk wrote is refused untouched (NewerSchemaError). */
export function openAppDatabase(file: string): Database.Database {
  refuseNewerSchema(file, appMigrations, appDatabaseName)
  return openDatabase(file, appMigrations, appDatabaseName)
}
