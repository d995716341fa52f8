import type Database from 'better-sqlite3'
import { AppError } from '../shared/app-error.ts'

/** One step of a schema; steps are applied in order and never edited once released. */
export type Migration = (db: Database.Database) => void

/**
 * Brings a database to the newest schema, one write transaction per step, recording progress in
 * `user_version`. A database newer than this build is refused rather than damaged.
 *
 * Each step reads the version inside its own `BEGIN IMMEDIATE` transaction, so when two processes
 * open the same new database at once (the app and the CLI on a first start), the second waits for
 * the first's step and then sees it applied: no step ever runs twice. A database already at the
 * newest schema is recognised without taking the write lock, so opening one beside a process that
 * holds a long write (a sync) does not wait for it.
 */
export function migrate(
  db: Database.Database,
  migrations: readonly Migration[],
  name: string,
): void {
  const readVersion = () => db.pragma('user_version', { simple: true }) as number
  const refuseNewer = (version: number) => {
    if (version > migrations.length) {
      throw new AppError(
        'storage',
        `${name} was written by a newer Vault Desk (schema ${version}, this build knows ${migrations.length}).`,
      )
    }
  }
  const seen = readVersion()
  refuseNewer(seen)
  if (seen === migrations.length) return
  const applyNextStep = db.transaction((): boolean => {
    const current = readVersion()
    refuseNewer(current)
    if (current === migrations.length) return false
    migrations[current]!(db)
    db.pragma(`user_version = ${current + 1}`)
    return true
  })
  while (applyNextStep.immediate()) {
    // One step per transaction: a long upgrade lets other connections in between steps.
  }
}
