import fs from 'node:fs'
import Database from 'better-sqlite3'
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
      throw new NewerSchemaError(name, db.name, version, migrations.length)
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

/**
 * A database written by a newer Vault Desk: this build does not know its schema, so it neither
 * uses, repairs, sets aside nor writes it (it is not damaged: the newer build still needs it).
 */
export class NewerSchemaError extends AppError {
  readonly file: string
  /** The schema step the file is at. */
  readonly version: number
  /** The newest schema step this build knows. */
  readonly known: number

  constructor(name: string, file: string, version: number, known: number) {
    const subject = name.charAt(0).toUpperCase() + name.slice(1)
    super(
      'storage',
      `${subject} at ${file} was written by a newer Vault Desk (schema ${version}; this build ` +
        `knows schema ${known} at most). It was left untouched: open it with the newer Vault Desk.`,
    )
    this.name = 'NewerSchemaError'
    this.file = file
    this.version = version
    this.known = known
  }
}

/**
 * Throws NewerSchemaError when the database at `file` is at a schema step beyond `migrations`,
 * before anything opens it to write or repair it: nothing of it is changed. A file missing, empty
 * or whose header cannot be read is left to the caller (a new database, or damage).
 */
export function refuseNewerSchema(
  file: string,
  migrations: readonly Migration[],
  name: string,
): void {
  const version = storedSchemaVersion(file)
  if (version !== null && version > migrations.length) {
    throw new NewerSchemaError(name, file, version, migrations.length)
  }
}

/** Where SQLite keeps `user_version` in a database file's 100-byte header (big-endian). */
const headerLength = 100
const userVersionOffset = 60
const headerMagic = 'SQLite format 3\0'

/**
 * The schema step (`user_version`) of the database at `file`, read without writing anything: from
 * its header, or through a read-only connection when a WAL file may hold a newer header (a newer
 * build that crashed or still runs). Null when there is no readable database header.
 */
export function storedSchemaVersion(file: string): number | null {
  const header = readHeader(file)
  if (header === null || header.toString('latin1', 0, headerMagic.length) !== headerMagic) {
    return null
  }
  const fromHeader = header.readInt32BE(userVersionOffset)
  if (!hasFrames(`${file}-wal`)) return fromHeader
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true })
    try {
      return db.pragma('user_version', { simple: true }) as number
    } finally {
      db.close()
    }
  } catch {
    return fromHeader
  }
}

/** The file's first 100 bytes; null when it cannot be read (the opener then says why). */
function readHeader(file: string): Buffer | null {
  let handle: number | undefined
  try {
    handle = fs.openSync(file, 'r')
    const header = Buffer.alloc(headerLength)
    return fs.readSync(handle, header, 0, headerLength, 0) === headerLength ? header : null
  } catch {
    return null
  } finally {
    if (handle !== undefined) fs.closeSync(handle)
  }
}

function hasFrames(walFile: string): boolean {
  try {
    return fs.statSync(walFile).size > 0
  } catch {
    return false
  }
}
