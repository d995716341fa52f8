import type Database from 'better-sqlite3'
import { AppError } from '../shared/app-error.ts'

/** One step of a schema; steps are applied in order and never edited once released. */
export type Migration = (db: Database.Database) => void

/**
 * Brings a database to the newest schema inside one transaction per step, recording progress in
 * `user_version`. A database newer than this build is refused rather than damaged.
 */
export function migrate(
  db: Database.Database,
  migrations: readonly Migration[],
  name: string,
): void {
  const current = db.pragma('user_version', { simple: true }) as number
  if (current > migrations.length) {
    throw new AppError(
      'storage',
      `${name} was written by a newer Vault Desk (schema ${current}, this build knows ${migrations.length}).`,
    )
  }
  for (let version = current; version < migrations.length; version++) {
    const step = migrations[version]!
    db.transaction(() => {
      step(db)
      db.pragma(`user_version = ${version + 1}`)
    })()
  }
}
