import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { AppError } from '../shared/app-error.ts'
import {
  createPrivateFile,
  createPrivateFolder,
  makeFilesPrivate,
} from '../shared/private-files.ts'
import { migrate, type Migration } from './migrations.ts'

/**
 * Opens a database file with the settings every Vault Desk database uses, then migrates it. The
 * file and its companions are private (shared/private-files.ts): a new database is created 0600
 * before SQLite opens it, since SQLite would make it 0644 and give its WAL and shared-memory
 * files the same mode.
 */
export function openDatabase(
  file: string,
  migrations: readonly Migration[],
  name: string,
): Database.Database {
  let db: Database.Database
  try {
    createPrivateFolder(path.dirname(file))
    if (!fs.existsSync(file)) createPrivateFile(file)
    makeFilesPrivate(databaseFiles(file))
    db = new Database(file)
  } catch (error) {
    throw new AppError('storage', `Cannot open ${name} at ${file}: ${(error as Error).message}`, {
      cause: error,
    })
  }
  try {
    configureConnection(db)
    migrate(db, migrations, name)
    return db
  } catch (error) {
    db.close()
    if (error instanceof AppError) throw error
    throw new AppError('storage', `${name} at ${file} is unusable: ${(error as Error).message}`, {
      cause: error,
    })
  }
}

/** A database file and the WAL and shared-memory files SQLite keeps beside it. */
export function databaseFiles(file: string): string[] {
  return [file, `${file}-wal`, `${file}-shm`]
}

/** WAL, foreign keys and a busy timeout: the settings of every Vault Desk connection. */
export function configureConnection(db: Database.Database): void {
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
}
