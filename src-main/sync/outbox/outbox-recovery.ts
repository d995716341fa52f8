import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { AppError } from '../../shared/app-error.ts'
import { makeFilesPrivate } from '../../shared/private-files.ts'
import { migrate, refuseNewerSchema } from '../../store/migrations.ts'
import { configureConnection, databaseFiles } from '../../store/sqlite.ts'
import { outboxStates, unresolvedStates } from '../../../src-common/outbox/states.ts'
import { openOutboxDatabase, outboxMigrations } from './outbox-database.ts'
import {
  claimRebuild,
  identityOf,
  openBound,
  sameFile,
  type BoundConnection,
  type ClaimOptions,
  type FileIdentity,
} from './outbox-file.ts'
import { OutboxRepairs, type OutboxRecovery, type OutboxRepair } from './outbox-repairs.ts'

/**
 * A damaged outbox does not stop the start: it is copied aside as found, what can be read of it
 * is written to a fresh file that takes its place, and the repair is recorded there (until the
 * person has read of it) and returned to be told. SQLite finds the damage when it opens the file
 * (`openOutboxFile`) or in the check of every page (`checkOutboxPages`), which reads the whole
 * file: seconds for a large one. The app runs that check, and any repair or wait for another
 * process's repair, in a worker thread (`outbox-page-check.ts`) while the outbox is open for
 * reading (`openOutboxUnchecked`: a file that cannot even be opened is left to the worker); the
 * CLI runs the same check on its own thread (`openOutbox`). Other failures (a read-only folder, a
 * newer schema) are thrown as they are.
 *
 * Other processes may have the file open meanwhile (the app and CLI commands share a data
 * folder): the rebuild is made under a claim only one process holds (`claimRebuild`), and holds
 * SQLite's write lock on the damaged file from the copy until the fresh file is in its place, so
 * that every write another process commits is either in the copy and read back, or made after,
 * by a process that then finds its file replaced and follows the new one (outbox-file.ts).
 */

/** An outbox open for use, and the repair made as it opened (null when none was needed). */
export interface OpenedOutbox extends BoundConnection {
  recovery: OutboxRepair | null
}

/**
 * What the check of every page found: nothing wrong; damage, which this process repaired (the
 * rebuilt file is in place, the repair recorded in it); or damage another process repaired
 * meanwhile (the file at the path is its rebuilt one).
 */
export type PageCheckVerdict =
  { sound: true } | { sound: false; repair: OutboxRepair } | { sound: false; replaced: true }

/** How long to wait for another process's repair of the outbox (`ClaimOptions`). */
export type RepairOptions = ClaimOptions

/** Opens, checks every page of and (when damaged) rebuilds the outbox, all on this thread. */
export function openOutbox(
  file: string,
  at: Date = new Date(),
  options: RepairOptions = {},
): OpenedOutbox {
  const opened = openOutboxFile(file, at, options)
  if (opened.recovery) return opened
  let verdict: PageCheckVerdict
  try {
    verdict = checkOutboxPages(file, at, options)
  } catch (error) {
    opened.db.close()
    throw error
  }
  if (verdict.sound) return opened
  opened.db.close()
  return openRepaired(file, verdict)
}

/**
 * Opens the outbox without checking its pages (see `checkOutboxPages`); a file SQLite finds
 * damaged as it opens it (its header, its schema) is rebuilt at once.
 */
export function openOutboxFile(file: string, at: Date, options: RepairOptions = {}): OpenedOutbox {
  refuseNewerOutbox(file)
  const found = identityOf(file)
  try {
    return { ...openOutboxInPlace(file), recovery: null }
  } catch (error) {
    const damage = damageOf(error)
    if (damage === null) throw error
    return openRepaired(file, repairInPlace(file, found, damage, at, options))
  }
}

/**
 * The outbox opened for use while its pages are checked elsewhere (the app's worker, which also
 * repairs): nothing is repaired or waited for on this thread. A file SQLite finds damaged as it
 * opens it (its header, its schema) is left to that check; meanwhile the connection is an empty
 * one in memory, `damage` says what SQLite found, and `identity` is the damaged file's, so that
 * the store goes over to the repaired file once it is in place (`OutboxStore.followIfReplaced`).
 */
export interface UncheckedOutbox extends BoundConnection {
  identity: FileIdentity
  damage: string | null
}

export function openOutboxUnchecked(file: string): UncheckedOutbox {
  refuseNewerOutbox(file)
  const found = identityOf(file)
  try {
    const opened = openOutboxInPlace(file)
    // A file opened is one the path named before and after the open (`openBound`).
    return { db: opened.db, identity: opened.identity!, damage: null }
  } catch (error) {
    const damage = damageOf(error)
    if (damage === null || found === null) throw error
    return { db: new Database(':memory:'), identity: found, damage }
  }
}

/** The file at `file` opened as the outbox, and which file that is. */
export function openOutboxInPlace(file: string): BoundConnection {
  return openBound(file, () => openOutboxDatabase(file))
}

/**
 * The outbox's file after a repair (this process's or another's), opened, with the repair: the
 * latest one not yet dismissed when another process made it.
 */
export function openRepaired(
  file: string,
  verdict: Exclude<PageCheckVerdict, { sound: true }>,
): OpenedOutbox {
  const opened = openOutboxInPlace(file)
  try {
    return { ...opened, recovery: repairOf(opened.db, verdict) }
  } catch (error) {
    opened.db.close()
    throw error
  }
}

/** The repair a verdict tells of, as recorded in the repaired file open as `db`. */
export function repairOf(
  db: Database.Database,
  verdict: Exclude<PageCheckVerdict, { sound: true }>,
): OutboxRepair | null {
  return 'repair' in verdict ? verdict.repair : (new OutboxRepairs(db).unseen().at(-1) ?? null)
}

/**
 * Reads every page of the outbox at `file` (`PRAGMA quick_check`) on a connection of its own,
 * beside the outbox's own connection, which may read meanwhile but must not write (a write to a
 * damaged file can spread the damage, and would be missed by the copy). When damage is found, it
 * is repaired (`repairInPlace`). Throws an AppError ('storage') for a damaged outbox that cannot
 * be rebuilt, and what SQLite throws when the check cannot run.
 */
export function checkOutboxPages(
  file: string,
  at: Date,
  options: RepairOptions = {},
): PageCheckVerdict {
  const checked = identityOf(file)
  let details: string | null
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true })
    try {
      details = pageProblems(db)
    } finally {
      db.close()
    }
  } catch (error) {
    details = damageOf(error)
    if (details === null) throw error
  }
  if (details === null) return { sound: true }
  return repairInPlace(file, checked, details, at, options)
}

/**
 * Repairs the damaged outbox `damaged` (the file that was found damaged at `file`), unless
 * another process already has: under the claim of a rebuild, and holding SQLite's write lock on
 * the damaged file, it is copied aside, what can be read is written to a fresh file with the
 * repair recorded in it, and the fresh file takes the damaged one's place.
 */
function repairInPlace(
  file: string,
  damaged: FileIdentity | null,
  details: string,
  at: Date,
  options: RepairOptions,
): Exclude<PageCheckVerdict, { sound: true }> {
  // Damage or not, a newer build's outbox is not this build's to copy, rebuild or write.
  refuseNewerOutbox(file)
  const claim = claimRebuild(file, options)
  try {
    if (damaged !== null && !sameFile(identityOf(file), damaged)) {
      return { sound: false, replaced: true }
    }
    const writes = holdWrites(file)
    try {
      return { sound: false, repair: rebuildInPlace(file, details, at) }
    } finally {
      writes?.close()
    }
  } finally {
    claim.release()
  }
}

/**
 * A connection holding SQLite's write lock on `file` (other processes' writes wait for it, and
 * then find the file replaced), or null when the damage keeps any transaction from starting:
 * then no process can write to it either.
 */
function holdWrites(file: string): Database.Database | null {
  const db = new Database(file, { fileMustExist: true })
  try {
    db.pragma(`busy_timeout = ${writeLockWaitMs}`)
    db.exec('BEGIN IMMEDIATE')
    return db
  } catch (error) {
    db.close()
    if (damageOf(error) !== null) return null
    throw error
  }
}

/** Another process's write transaction is short: one longer than this is stuck. */
const writeLockWaitMs = 30_000

/** What `PRAGMA quick_check` finds wrong (every page is read), or null when nothing is. */
function pageProblems(db: Database.Database): string | null {
  const rows = db.pragma('quick_check') as { quick_check: string }[]
  const problems = rows.map((row) => row.quick_check).filter((text) => text !== 'ok')
  return problems.length === 0 ? null : problems.slice(0, 5).join('; ')
}

/**
 * Throws NewerSchemaError when a newer Vault Desk wrote the outbox at `file`: its queued work is
 * that build's to send, so nothing here opens, repairs or moves it.
 */
function refuseNewerOutbox(file: string): void {
  refuseNewerSchema(file, outboxMigrations, 'the outbox')
}

/** The message of an error that says the file is damaged (in its causes too), else null. */
export function damageOf(error: unknown): string | null {
  for (let cause = error, depth = 0; cause && depth < 4; depth++) {
    if (cause instanceof Database.SqliteError) {
      return /^SQLITE_(CORRUPT|NOTADB)/.test(cause.code) ? cause.message : null
    }
    cause = (cause as { cause?: unknown }).cause
  }
  return null
}

/** Where the fresh file is written before it takes the damaged one's place. */
function rebuiltFile(file: string): string {
  return `${file}.recovering`
}

/**
 * The damaged file copied aside, what can be read of it written to `rebuiltFile(file)` with the
 * repair recorded, synced, and put in the damaged file's place.
 */
function rebuildInPlace(file: string, details: string, at: Date): OutboxRepair {
  try {
    const fresh = rebuiltFile(file)
    const repair = rebuild(file, fresh, details, at)
    // The damaged file's WAL must not be applied to the fresh one: it goes first (its copy is
    // kept). Processes that have them open keep their own, and follow the fresh file to write.
    for (const companion of databaseFiles(file).slice(1)) fs.rmSync(companion, { force: true })
    fs.renameSync(fresh, file)
    syncFolder(path.dirname(file))
    return repair
  } catch (error) {
    if (error instanceof AppError) throw error
    throw new AppError(
      'storage',
      `The outbox at ${file} is damaged (${details}) and could not be repaired: ${(error as Error).message}`,
      { cause: error },
    )
  }
}

function rebuild(file: string, fresh: string, details: string, at: Date): OutboxRepair {
  const stamp = at.toISOString().replace(/[:.]/g, '-')
  const movedTo = path.join(path.dirname(file), `outbox.damaged-${stamp}.db`)
  keepCopy(file, movedTo)
  for (const companion of databaseFiles(fresh)) fs.rmSync(companion, { force: true })
  const damaged = new Database(file, { fileMustExist: true })
  let found: Found
  try {
    found = readWhatCan(damaged)
    writeFresh(fresh, found)
  } finally {
    damaged.close()
  }
  const recovery: OutboxRecovery = {
    movedTo,
    details,
    recovered: found.items.length,
    unresolved: found.items.filter((row) => unresolved.has(row.state as string)).length,
    unreadable: found.unreadable,
  }
  // Recorded before the file takes its place: whoever opens it learns of the repair.
  const db = openOutboxDatabase(fresh)
  let repair: OutboxRepair
  try {
    repair = new OutboxRepairs(db).record(recovery, at.getTime())
  } finally {
    db.close()
  }
  syncFile(fresh)
  return repair
}

const unresolved = new Set<string>(unresolvedStates)

/** The damaged file and its WAL copied, as found, to `movedTo` (0600, synced). */
function keepCopy(file: string, movedTo: string): void {
  const copies: string[] = []
  for (const [from, to] of [
    [file, movedTo],
    [`${file}-wal`, `${movedTo}-wal`],
  ] as const) {
    if (!fs.existsSync(from)) continue
    fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL)
    copies.push(to)
  }
  makeFilesPrivate(copies)
  for (const copy of copies) syncFile(copy)
  syncFolder(path.dirname(movedTo))
}

type Row = Record<string, unknown>

interface Found {
  /** The schema step the damaged file was at (0 when its header cannot be read). */
  version: number
  columns: string[]
  items: Row[]
  dependencies: { item_id: number; depends_on: number }[]
  /** The highest item id ever given (so that no id is given twice), when it can be read. */
  highestId: number
  unreadable: number
  /**
   * Who sends, and the repairs not dismissed yet, when they can be read: a sender in another
   * process goes on over the rebuilt file, alone, and earlier repairs are still told.
   */
  lease: Row[]
  repairs: Row[]
}

/** Ids tried one by one past the last readable one, when the highest id given cannot be read. */
const idsTriedBlind = 10_000

/**
 * Reads the damaged file row by row, as `.recover` would through SQLite itself: the items in id
 * order through the table alone (no index, which may be damaged too), stepping over ids that
 * cannot be read one at a time, then each read item's dependencies. A row whose members are not
 * what the schema holds (a page damaged inside its cells) counts as unreadable.
 */
function readWhatCan(db: Database.Database): Found {
  const attempt = <T>(read: () => T): T | undefined => {
    try {
      return read()
    } catch {
      return undefined
    }
  }
  const version = attempt(() => db.pragma('user_version', { simple: true }) as number) ?? 0
  if (version > outboxMigrations.length) {
    throw new AppError(
      'storage',
      `The outbox was written by a newer Vault Desk (schema ${version}) and is damaged; use that version to repair it.`,
    )
  }
  const columns =
    attempt(() =>
      (db.pragma('table_info(items)') as { name: string }[]).map((column) => column.name),
    ) ?? []
  const found: Found = {
    version,
    columns,
    items: [],
    dependencies: [],
    highestId: 0,
    unreadable: 0,
    lease: attempt(() => db.prepare('SELECT * FROM sender_lease').all() as Row[]) ?? [],
    repairs:
      attempt(() => db.prepare('SELECT * FROM repairs WHERE seen_at IS NULL').all() as Row[]) ?? [],
  }
  if (columns.length === 0) return found
  const highestKnown = Math.max(
    attempt(
      () =>
        (
          db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'items'").get() as
            { seq: number } | undefined
        )?.seq,
    ) ?? 0,
    attempt(
      () => (db.prepare('SELECT MAX(id) AS id FROM items').get() as { id: number | null }).id,
    ) ?? 0,
  )
  const scan = db.prepare('SELECT * FROM items NOT INDEXED WHERE id > ? ORDER BY id')
  const byId = db.prepare('SELECT * FROM items NOT INDEXED WHERE id = ?')
  const keep = (row: Row) => {
    if (isItem(row)) found.items.push(row)
    else found.unreadable++
  }
  let cursor = 0
  for (;;) {
    try {
      for (const row of scan.iterate(cursor) as Iterable<Row>) {
        cursor = row.id as number
        keep(row)
      }
      break
    } catch {
      // Damage past `cursor`: step over it id by id, then scan on from the next id read.
      const last = Math.max(highestKnown, cursor + idsTriedBlind)
      let resumed = false
      for (let id = cursor + 1; id <= last && !resumed; id++) {
        try {
          const row = byId.get(id) as Row | undefined
          if (row) {
            keep(row)
            resumed = true
          }
        } catch {
          found.unreadable++
        }
        cursor = id
      }
      if (!resumed) break
    }
  }
  found.highestId = Math.max(highestKnown, cursor)
  const dependencies = attempt(() =>
    db.prepare('SELECT item_id, depends_on FROM dependencies WHERE item_id = ?'),
  )
  for (const item of found.items) {
    const rows = dependencies && attempt(() => dependencies.all(item.id))
    if (rows) found.dependencies.push(...(rows as Found['dependencies']))
  }
  return found
}

const states = new Set<string>(outboxStates)

/** Whether a row read holds what the schema does where the sender relies on it. */
function isItem(row: Row): boolean {
  const text = (name: string) => typeof row[name] === 'string'
  const integer = (name: string) => Number.isInteger(row[name])
  const json = (name: string) => {
    try {
      const value: unknown = JSON.parse(row[name] as string)
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    } catch {
      return false
    }
  }
  return (
    integer('id') &&
    text('connection_id') &&
    integer('vault_id') &&
    text('operation') &&
    text('record_kind') &&
    text('order_key') &&
    states.has(row.state as string) &&
    integer('next_attempt_at') &&
    integer('created_at') &&
    integer('updated_at') &&
    json('payload') &&
    json('overlay')
  )
}

/** A fresh outbox at the damaged one's schema step, holding what was read (migrated on open). */
function writeFresh(file: string, found: Found): void {
  const db = new Database(file)
  try {
    configureConnection(db)
    migrate(db, outboxMigrations.slice(0, found.version), 'the recovered outbox')
    if (found.version === 0 || found.columns.length === 0) return
    const own = new Set(
      (db.pragma('table_info(items)') as { name: string }[]).map((column) => column.name),
    )
    const columns = found.columns.filter((column) => own.has(column))
    const insertItem = db.prepare(
      `INSERT INTO items (${columns.map((column) => `"${column}"`).join(', ')})
         VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
    )
    const ids = new Set(found.items.map((row) => row.id as number))
    const insertDependency = db.prepare(
      'INSERT OR IGNORE INTO dependencies (item_id, depends_on) VALUES (?, ?)',
    )
    db.transaction(() => {
      for (const row of found.items) {
        insertItem.run(Object.fromEntries(columns.map((column) => [column, row[column]])))
      }
      for (const { item_id: itemId, depends_on: dependsOn } of found.dependencies) {
        if (ids.has(itemId) && ids.has(dependsOn)) insertDependency.run(itemId, dependsOn)
      }
      // Ids of items that could not be read are never given again (another item names them).
      db.prepare("DELETE FROM sqlite_sequence WHERE name = 'items'").run()
      db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('items', ?)").run(found.highestId)
      copyRows(db, 'sender_lease', found.lease)
      copyRows(db, 'repairs', found.repairs)
    })()
  } finally {
    db.close()
  }
}

/** Rows read from the damaged file into a table of the fresh one, as far as both hold them. */
function copyRows(db: Database.Database, table: string, rows: readonly Row[]): void {
  const own = new Set(
    (db.pragma(`table_info(${table})`) as { name: string }[]).map((column) => column.name),
  )
  for (const row of rows) {
    const columns = Object.keys(row).filter((column) => own.has(column))
    if (columns.length === 0) continue
    try {
      db.prepare(
        `INSERT INTO ${table} (${columns.map((column) => `"${column}"`).join(', ')})
           VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
      ).run(Object.fromEntries(columns.map((column) => [column, row[column]])))
    } catch {
      // A row damaged inside its cells (a constraint refuses it): not worth failing the repair.
    }
  }
}

function syncFile(file: string): void {
  const handle = fs.openSync(file, 'r+')
  try {
    fs.fsyncSync(handle)
  } finally {
    fs.closeSync(handle)
  }
}

/** Windows records a file's name with the file, and cannot open a folder. */
function syncFolder(folder: string): void {
  if (process.platform === 'win32') return
  const handle = fs.openSync(folder, 'r')
  try {
    fs.fsyncSync(handle)
  } finally {
    fs.closeSync(handle)
  }
}
