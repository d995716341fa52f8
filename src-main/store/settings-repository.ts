import type Database from 'better-sqlite3'

/**
 * App-wide settings, kept as text under a key in the app database's `settings` table: the sync
 * interval and reference refresh, and which connection is the demo vault.
 */
export class SettingsRepository {
  readonly #read: Database.Statement<[string], string>
  readonly #write: Database.Statement<[string, string]>
  readonly #delete: Database.Statement<[string]>

  constructor(db: Database.Database) {
    this.#read = db.prepare<[string], string>('SELECT value FROM settings WHERE key = ?').pluck()
    this.#write = db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    )
    this.#delete = db.prepare('DELETE FROM settings WHERE key = ?')
  }

  get(key: string): string | null {
    return this.#read.get(key) ?? null
  }

  set(key: string, value: string): void {
    this.#write.run(key, value)
  }

  delete(key: string): void {
    this.#delete.run(key)
  }
}
