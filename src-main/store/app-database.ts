import type Database from 'better-sqlite3'
import type { Migration } from './migrations.ts'
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
  // of case, as people read them.
  (db) =>
    db.exec(`
      ALTER TABLE connections ADD COLUMN token_storage TEXT NOT NULL DEFAULT 'keychain'
        CHECK (token_storage IN ('keychain', 'session'));
      CREATE UNIQUE INDEX connections_by_name ON connections (name COLLATE NOCASE);
    `),
]

export function openAppDatabase(file: string): Database.Database {
  return openDatabase(file, appMigrations, 'the app database')
}
