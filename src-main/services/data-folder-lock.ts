/**
 * One writer per data folder: the process that syncs caches and sends the outbox (the app, the
 * browser preview, or a CLI command that syncs or sends) holds `vault-desk.lock` in the data
 * folder. Electron's single-instance lock is keyed on Electron's own folder and knows nothing of
 * the preview or the CLI; this lock is keyed on the data itself. Readers (the CLI's `find`,
 * `status`, `export`...) never take it: SQLite lets them read beside the writer.
 *
 * The file is created atomically (`wx`) and names its holder. A lock left by a process that died
 * (its pid no longer runs on this host) is taken over, under a second atomic file so that two
 * processes taking over the same stale lock never both win.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createPrivateFolder, privateFileMode } from '../shared/private-files.ts'

export const dataFolderLockName = 'vault-desk.lock'

/** Who holds a data folder, as its lock file says. */
export interface DataFolderHolder {
  pid: number
  host: string
  /** ISO time the holder took the lock. */
  startedAt: string
  /** What holds it, for people: "the app", "vault-desk sync". */
  holder: string
}

export interface DataFolderLock {
  readonly file: string
  readonly holder: DataFolderHolder
  /** Removes the lock file if it is still this process's; safe to call more than once. */
  release(): void
}

export type LockAttempt =
  { held: true; lock: DataFolderLock } | { held: false; holder: DataFolderHolder | null }

/** A lock file nobody finished writing (its holder died between create and write) after this. */
const unreadableLockGraceMs = 5_000
/** A takeover left behind by a process that died during the few milliseconds it takes. */
const staleTakeoverMs = 10_000

/**
 * Takes the data folder's lock now if no live process holds it. The folder is created (private)
 * when missing. Errors other than "someone holds it" (a read-only folder) are thrown.
 */
export function tryTakeDataFolderLock(dataDir: string, holder: string): LockAttempt {
  createPrivateFolder(dataDir)
  const file = path.join(dataDir, dataFolderLockName)
  const mine: DataFolderHolder = {
    pid: process.pid,
    host: os.hostname(),
    startedAt: new Date().toISOString(),
    holder,
  }
  // Twice at most: once as found, once after taking over a dead holder's lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    const created = createLockFile(file, mine)
    if (created) return { held: true, lock: heldLock(file, mine, created) }
    const found = readLockFile(file)
    if (found === 'missing') continue
    if (found === 'unreadable') {
      if (!olderThan(file, unreadableLockGraceMs)) return { held: false, holder: null }
    } else if (isAlive(found)) {
      return { held: false, holder: found }
    }
    takeOver(file, found)
  }
  const found = readLockFile(file)
  return { held: false, holder: typeof found === 'string' ? null : found }
}

export interface WaitOptions {
  /** Give up after this long (the caller says so to the person). */
  timeoutMs: number
  /** How often to look again (default 500 ms). */
  pollMs?: number
  /** Called once, when the lock is first found held. */
  onWaiting?: (holder: DataFolderHolder | null) => void
}

/** As `tryTakeDataFolderLock`, looking again until the lock is free or the time is up. */
export async function waitForDataFolderLock(
  dataDir: string,
  holder: string,
  options: WaitOptions,
): Promise<LockAttempt> {
  const deadline = Date.now() + options.timeoutMs
  let told = false
  for (;;) {
    const attempt = tryTakeDataFolderLock(dataDir, holder)
    if (attempt.held || Date.now() >= deadline) return attempt
    if (!told) {
      told = true
      options.onWaiting?.(attempt.holder)
    }
    const pause = Math.min(options.pollMs ?? 500, Math.max(0, deadline - Date.now()))
    await new Promise((resolve) => setTimeout(resolve, pause))
  }
}

/** "the app (pid 4242 on lab-07, since 2026-11-29 09:14)", or a plain phrase when unknown. */
export function describeHolder(holder: DataFolderHolder | null): string {
  if (!holder) return 'another Vault Desk process'
  const since = holder.startedAt.replace('T', ' ').slice(0, 16)
  return `${holder.holder} (pid ${holder.pid} on ${holder.host}, since ${since} UTC)`
}

function createLockFile(file: string, mine: DataFolderHolder): string | null {
  let fd: number
  try {
    fd = fs.openSync(file, 'wx', privateFileMode)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return null
    throw error
  }
  const text = `${JSON.stringify(mine)}\n`
  try {
    fs.writeSync(fd, text)
  } finally {
    fs.closeSync(fd)
  }
  return text
}

function heldLock(file: string, holder: DataFolderHolder, text: string): DataFolderLock {
  let released = false
  const release = () => {
    if (released) return
    released = true
    process.off('exit', release)
    // Only our own file: a lock taken over after this process was judged dead is not ours.
    try {
      if (fs.readFileSync(file, 'utf8') === text) fs.unlinkSync(file)
    } catch {
      // Already gone, or the folder went away: nothing to release.
    }
  }
  process.on('exit', release)
  return { file, holder, release }
}

function readLockFile(file: string): DataFolderHolder | 'missing' | 'unreadable' {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing'
    throw error
  }
  try {
    const value = JSON.parse(text) as Partial<DataFolderHolder>
    if (
      Number.isSafeInteger(value.pid) &&
      typeof value.host === 'string' &&
      typeof value.startedAt === 'string' &&
      typeof value.holder === 'string'
    ) {
      return value as DataFolderHolder
    }
  } catch {
    // Not JSON: being written, or damaged.
  }
  return 'unreadable'
}

/**
 * A holder on another host cannot be checked and counts as alive (its message names the host, so
 * a person can remove the file when that machine no longer runs Vault Desk).
 */
function isAlive(holder: DataFolderHolder): boolean {
  if (holder.host !== os.hostname()) return true
  if (holder.pid === process.pid) return true
  try {
    process.kill(holder.pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another account.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

function olderThan(file: string, ageMs: number): boolean {
  try {
    return Date.now() - fs.statSync(file).mtimeMs > ageMs
  } catch {
    return false
  }
}

/**
 * Removes a dead holder's lock, but only while it is still the one judged dead: another process
 * may have taken it over (and made a new one) since it was read. The check and the removal happen
 * under `<lock>.takeover`, itself created atomically.
 */
function takeOver(file: string, dead: DataFolderHolder | 'unreadable'): void {
  const guard = `${file}.takeover`
  let fd: number
  try {
    fd = fs.openSync(guard, 'wx', privateFileMode)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    if (olderThan(guard, staleTakeoverMs)) fs.rmSync(guard, { force: true })
    return
  }
  try {
    const now = readLockFile(file)
    const same =
      dead === 'unreadable'
        ? now === 'unreadable' && olderThan(file, unreadableLockGraceMs)
        : typeof now !== 'string' &&
          now.pid === dead.pid &&
          now.host === dead.host &&
          now.startedAt === dead.startedAt
    if (same) fs.rmSync(file, { force: true })
  } finally {
    fs.closeSync(fd)
    fs.rmSync(guard, { force: true })
  }
}
