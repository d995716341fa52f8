import type Database from 'better-sqlite3'
import type { Migration } from './migrations.ts'
import { openDatabase } from './sqlite.ts'

/** The small database of app-wide settings and saved connections (not their caches or tokens). */
const appMigrations: readonly Migration[] = [
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
]

export function openAppDatabase(file: string): Database.Database {
  return openDatabase(file, appMigrations, 'the app database')
}
