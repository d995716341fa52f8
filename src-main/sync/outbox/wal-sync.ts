import fs from 'node:fs'
import path from 'node:path'
import type Database from 'better-sqlite3'

/**
 * Durable commits without stopping the event loop, for those that must be on disk before the
 * sender goes on ("sending", before the request leaves). Such a commit is made like any other
 * (WAL, synchronous NORMAL: written to the `-wal` file, not yet synced); `synced()` then syncs the
 * WAL file from libuv's thread pool (fdatasync; F_FULLFSYNC on macOS), which is what SQLite does
 * at the end of a commit under synchronous FULL: every transaction committed before the sync
 * began is on disk when it ends. (One that a checkpoint copied meanwhile is too: NORMAL syncs the
 * WAL before a checkpoint and the database after.) Under FULL the event loop stood still for each
 * sync, milliseconds on a busy disk, and nothing else moved: no answer read, no request sent.
 *
 * Group commit: callers share a sync whose flush has not begun (items marked "sending" together
 * wait for one); a caller after that starts another at once rather than queue behind it, so none
 * waits longer than one sync.
 */
export class WalSync {
  readonly #file: string
  #handle: Promise<fs.promises.FileHandle> | null = null
  #folder: Promise<void> | null = null
  /** A sync whose flush has not begun: it covers every commit made so far. */
  #gathering: Promise<void> | null = null
  #closed = false

  private constructor(file: string) {
    this.#file = file
  }

  /**
   * The WAL file of a database in WAL mode, or null (in memory, another journal mode, no WAL file
   * where SQLite keeps it): durable commits must then be synced as they are made (FULL).
   */
  static of(db: Database.Database): WalSync | null {
    if (db.memory) return null
    const mode = db.pragma('journal_mode', { simple: true })
    if (typeof mode !== 'string' || mode.toLowerCase() !== 'wal') return null
    try {
      // SQLite keeps the WAL beside the database's real path (links resolved).
      const file = `${fs.realpathSync(db.name)}-wal`
      return fs.statSync(file).isFile() ? new WalSync(file) : null
    } catch {
      return null
    }
  }

  /** Resolves once every commit made before the call is on disk. */
  synced(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the outbox is closed'))
    if (this.#gathering) return this.#gathering
    const sync = this.#sync(() => {
      if (this.#gathering === sync) this.#gathering = null
    })
    this.#gathering = sync
    return sync
  }

  /** Before the database closes (SQLite removes the WAL file when its last connection closes). */
  async close(): Promise<void> {
    this.#closed = true
    const handle = this.#handle
    this.#handle = null
    if (handle) await (await handle.catch(() => null))?.close()
  }

  /** Once. (Windows cannot open a folder, and records a new file's entry with the file.) */
  async #syncFolder(): Promise<void> {
    if (process.platform === 'win32') return
    try {
      const folder = await fs.promises.open(path.dirname(this.#file), 'r')
      try {
        await folder.sync()
      } finally {
        await folder.close()
      }
    } catch (error) {
      this.#folder = null
      throw error
    }
  }

  /** `begun` is called as the flush is asked for: commits made after it wait for the next one. */
  async #sync(begun: () => void): Promise<void> {
    try {
      // The WAL file stays in place while the database is open (a checkpoint rewrites it from
      // the start, the same file), so one handle serves every sync.
      this.#handle ??= fs.promises.open(this.#file, 'r+')
      const handle = await this.#handle.catch((error: unknown) => {
        this.#handle = null
        throw error
      })
      // SQLite syncs the folder of a new WAL file with the file's first sync, so that the file
      // itself survives a power cut; under NORMAL that may not have happened yet.
      await (this.#folder ??= this.#syncFolder())
      begun()
      await handle.datasync()
    } finally {
      begun()
    }
  }
}
