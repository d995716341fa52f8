import fs from 'node:fs'
import type Database from 'better-sqlite3'
import { AppError } from '../../shared/app-error.ts'
import {
  describeHolder,
  tryTakeLockFile,
  type DataFolderLock,
} from '../../shared/data-folder-lock.ts'

/**
 * The app and CLI commands may have one outbox.db open at once, and a damaged one is replaced by
 * a rebuilt file (outbox-recovery.ts). Two rules keep that from losing work:
 * - only one process rebuilds at a time, under `outbox.db.rebuild.lock` (the data folder lock's
 *   own file and stale-holder rules: a dead holder's claim is taken over); one that found the
 *   damage too waits, and finds the file already replaced;
 * - a process whose connection is on a file no longer at the path (replaced while it had it
 *   open) follows the new file before it writes: SQLite would go on writing to the unlinked
 *   file, and those writes would be lost. A connection's file is told by device and inode
 *   (`FileIdentity`), compared with the path's at the start of each write transaction: one stat.
 */

/** Which file a path names: its device and inode. */
export interface FileIdentity {
  dev: bigint
  ino: bigint
}

/** The identity of the file at `file` now, or null when there is none. */
export function identityOf(file: string): FileIdentity | null {
  const stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false })
  return stat ? { dev: stat.dev, ino: stat.ino } : null
}

export function sameFile(a: FileIdentity | null, b: FileIdentity | null): boolean {
  return a !== null && b !== null && a.dev === b.dev && a.ino === b.ino
}

/** A connection and the file it is on. */
export interface BoundConnection {
  db: Database.Database
  /** Null for a database in memory, which nothing replaces. */
  identity: FileIdentity | null
}

/**
 * Opens `file` through `open` and tells which file the connection is on: the path names the
 * same file before and after the open (a file replaced meanwhile is opened again).
 */
export function openBound(file: string, open: () => Database.Database): BoundConnection {
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = identityOf(file)
    const db = open()
    const after = identityOf(file)
    // A missing file was created by this open: no rebuild replaces a file that did not exist.
    if (after !== null && (before === null || sameFile(before, after))) {
      return { db, identity: after }
    }
    db.close()
  }
  throw new AppError('storage', `The outbox at ${file} kept being replaced while it was opened.`)
}

/** Where the claim of a rebuild of `file` is kept. */
export function rebuildClaimFile(file: string): string {
  return `${file}.rebuild.lock`
}

/** How long a process waits for another's rebuild before it gives up (`ClaimOptions`). */
export const defaultClaimTimeoutMs = 600_000

export interface ClaimOptions {
  /** Give up waiting for another process's rebuild after this long (default 10 minutes). */
  timeoutMs?: number
  /** Called once, when another process is found rebuilding. */
  onWaiting?: (holder: string) => void
}

const claimPollMs = 50

/**
 * Takes the claim of a rebuild of `file`, waiting (this thread stands still: the CLI's own check,
 * or the app's check worker) while another live process holds it. Throws an AppError ('storage')
 * naming the holder when the wait is over.
 */
export function claimRebuild(file: string, options: ClaimOptions = {}): DataFolderLock {
  const timeoutMs = options.timeoutMs ?? defaultClaimTimeoutMs
  const deadline = Date.now() + timeoutMs
  let told = false
  for (;;) {
    const attempt = tryTakeLockFile(rebuildClaimFile(file), 'a repair of the outbox')
    if (attempt.held) return attempt.lock
    const holder = describeHolder(attempt.holder)
    if (Date.now() >= deadline) {
      throw new AppError(
        'storage',
        `The outbox at ${file} is damaged, and another process was still repairing it after ${describeWait(timeoutMs)}: ${holder}. Nothing was changed here; start again once it has finished (a repair left by a process that no longer runs is taken over).`,
      )
    }
    if (!told) {
      told = true
      options.onWaiting?.(holder)
    }
    Atomics.wait(pause, 0, 0, claimPollMs)
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4))

/** A wait as a person reads it: "90 s", "10 min". */
export function describeWait(ms: number): string {
  const whole = Math.round(ms / 1000)
  return whole >= 120 && whole % 60 === 0 ? `${whole / 60} min` : `${Math.max(whole, 1)} s`
}

/**
 * Resolves once no other process rebuilds `file` (at once when none does: one look at the
 * claim file), so that a person's change does not wait on SQLite's busy timeout behind a long
 * rebuild. A claim left by a process that died is not waited for.
 */
export async function rebuildSettled(
  file: string,
  timeoutMs = defaultClaimTimeoutMs,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (rebuildHolder(file) !== null && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, claimPollMs))
  }
}

/**
 * Who is rebuilding `file` now, or null: one look at the claim file when there is none (a stat),
 * else its holder, unless that holder no longer runs (its claim is then cleared).
 */
export function rebuildHolder(file: string): string | null {
  const claim = rebuildClaimFile(file)
  if (!fs.existsSync(claim)) return null
  // Taken at once, the claim was left by a process that died (or has just been let go).
  const attempt = tryTakeLockFile(claim, 'a look at the outbox repair')
  if (attempt.held) {
    attempt.lock.release()
    return null
  }
  return describeHolder(attempt.holder)
}
