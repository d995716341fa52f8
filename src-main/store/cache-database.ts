import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { AppError } from '../shared/app-error.ts'
import { cacheMigrations } from './cache-migrations.ts'
import { moveCacheAside } from './cache-files.ts'
import { migrate, refuseNewerSchema } from './migrations.ts'
import { createDeclaredTables } from './record-tables.ts'
import { configureConnection } from './sqlite.ts'
import { limitWalFile, neverCheckpoint } from './wal-checkpoints.ts'

/**
 * Why a cache was set aside and started afresh; sync must then pull everything again. A cache
 * written by a newer Vault Desk is never set aside: it is refused untouched (`NewerSchemaError`).
 */
export interface CacheRecovery {
  reason: 'damaged'
  /** What SQLite reported. */
  details: string
  /** Where the old file now is. */
  movedTo: string
}

export interface OpenedCacheDatabase {
  db: Database.Database
  recovery: CacheRecovery | null
}

const cacheName = 'the cache'

/** Enough page cache for the indexes that search and lists walk, bounded for memory. */
const cacheSizeKiB = 32 * 1024
/**
 * Pages of a new cache. Twice SQLite's default: a molecule's row (about 1.3 KB of JSON) and the
 * search index's segments fill fewer pages, so storing a page of molecules writes fewer pages to
 * the WAL and to checkpoint (bench/README.md). A cache made with another size keeps it.
 */
const pageSizeBytes = 8192

/**
 * Opens a connection's cache. One written by a newer Vault Desk is refused before anything opens
 * it (`NewerSchemaError`), left byte for byte as it is: the newer build still uses it. Then what
 * can be checked at once is: a file that is not a database, or whose schema cannot be read, is
 * damaged; it is moved aside and a fresh one created. Only this file and its companions are
 * touched: queued work lives in its own database (the outbox) and survives. Other failures
 * (locked, read-only, disk full) are errors, never a reason to set a cache aside. The full check
 * of every page takes seconds for a large cache and runs in a worker: see cache-verification.ts.
 */
export function openCacheDatabase(
  file: string,
  now: () => Date = () => new Date(),
): OpenedCacheDatabase {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const exists = fs.existsSync(file)
  if (exists) refuseNewerCache(file)
  let db: Database.Database | undefined
  let recovery: CacheRecovery | null = null
  try {
    db = new Database(file)
    // The connection that checks stays open as the cache's: closing it, the last one, would
    // checkpoint on the main thread what a writer stopped midway left in the WAL (hundreds of MB).
    const problem = exists ? problemOf(db, file) : null
    if (problem) {
      db.close()
      recovery = setAside(file, problem, now)
      db = new Database(file)
    }
    // Only an empty database takes a page size (and only before it is in WAL mode).
    if (!exists || recovery) db.pragma(`page_size = ${pageSizeBytes}`)
    configureCache(db)
    neverCheckpoint(db)
    migrate(db, cacheMigrations, cacheName)
    createDeclaredTables(db)
    return { db, recovery }
  } catch (error) {
    db?.close()
    if (error instanceof AppError) throw error
    throw new AppError('storage', `Cannot open the cache ${file}: ${(error as Error).message}`, {
      cause: error,
    })
  }
}

/** Throws NewerSchemaError for a cache a newer Vault Desk wrote, before anything touches it. */
export function refuseNewerCache(file: string): void {
  refuseNewerSchema(file, cacheMigrations, cacheName)
}

/** The settings of every connection to a cache: the main thread's and the writer's. */
export function configureCache(db: Database.Database): void {
  configureConnection(db)
  db.pragma(`cache_size = -${cacheSizeKiB}`)
  // A multi-row INSERT keeps a statement journal (the pages it changes, to undo it alone). On
  // disk it is a temporary file written with every page of sync, most of what a first sync would
  // write (bench/README.md); in memory it costs no disk at all.
  db.pragma('temp_store = MEMORY')
  limitWalFile(db)
}

/**
 * Page cache of a connection that reads a list whole (an export): its rows are read once each,
 * most in an order that visits the table's pages at random, so a large cache holds pages read once
 * (the main connection's 32 MB were half of what an export of 250k molecules grew by,
 * export.bench.ts). It still needs the interior pages that each row's lookup walks: with 4 or 8 MB
 * the leaves read once pushed them out and an SD file cost 16% more CPU a record; 16 MB cost what
 * 32 MB did.
 */
const readerCacheSizeKiB = 16 * 1024

/**
 * A read-only connection to an open cache, for one reading of a list whole; the caller closes it.
 * It never writes, so it never checkpoints, even if it is closed last.
 */
export function openCacheReader(file: string): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    db.pragma('busy_timeout = 5000')
    db.pragma(`cache_size = -${readerCacheSizeKiB}`)
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

/** Moves a cache that is not usable aside (the caller has closed it). */
export function setAside(
  file: string,
  problem: Omit<CacheRecovery, 'movedTo'>,
  now: () => Date = () => new Date(),
): CacheRecovery {
  return { ...problem, movedTo: moveCacheAside(file, now()) }
}

/** What makes an existing cache unusable at first sight, or null. */
function problemOf(db: Database.Database, file: string): Omit<CacheRecovery, 'movedTo'> | null {
  try {
    db.prepare('SELECT count(*) FROM sqlite_schema').get()
    return null
  } catch (error) {
    if (isCorruption(error)) return { reason: 'damaged', details: (error as Error).message }
    throw new AppError('storage', `Cannot check the cache ${file}: ${(error as Error).message}`, {
      cause: error,
    })
  }
}

function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB'
}
