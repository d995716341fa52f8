/**
 * One writer per data folder: the process that syncs caches and sends the outbox (the app, the
 * browser preview, or a CLI command that syncs or sends) holds `vault-desk.lock` in the data
 * folder. Electron's single-instance lock is keyed on Electron's own folder and knows nothing of
 * the preview or the CLI; this lock is keyed on the data itself. Readers (the CLI's `find`,
 * `status`, `export`...) never take it: SQLite lets them read beside the writer.
 *
 * The file is created atomically (`wx`) and names its holder. A lock left by a process that died
 * (its pid no longer runs on this host, or runs a process started after the lock was taken, or the
 * lock is older than the machine's boot) is taken over, under a second atomic file so that two
 * processes taking over the same stale lock never both win. The same lock files, with a lease
 * their holders renew, are the request slots beside it (request-slots.ts).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createPrivateFolder, privateFileMode } from './private-files.ts'

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
  return tryTakeLockFile(path.join(dataDir, dataFolderLockName), holder)
}

export interface LockFileOptions {
  /**
   * A holder renews its lock by touching the file (`renewLockFile`); one left untouched this long
   * is taken over even though its process runs (a hung or frozen holder, one on another host).
   */
  leaseMs?: number
  /** Remove the file when the process exits (default true; a caller holding many does it once). */
  releaseOnExit?: boolean
}

/**
 * Takes the lock file `file` (its folder must exist) if no live holder has it: the primitive of
 * the data folder's lock and of the request slots beside it (request-slots.ts).
 */
export function tryTakeLockFile(
  file: string,
  holder: string,
  options: LockFileOptions = {},
): LockAttempt {
  const mine: DataFolderHolder = {
    pid: process.pid,
    host: os.hostname(),
    startedAt: new Date().toISOString(),
    holder,
  }
  // Twice at most: once as found, once after taking over a dead holder's lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    const created = createLockFile(file, mine)
    if (created) return { held: true, lock: heldLock(file, mine, created, options) }
    const found = readLockFile(file)
    if (found === 'missing') continue
    if (!isStale(file, found, options.leaseMs)) {
      return { held: false, holder: typeof found === 'string' ? null : found }
    }
    takeOver(file, found, options.leaseMs)
  }
  const found = readLockFile(file)
  return { held: false, holder: typeof found === 'string' ? null : found }
}

/** Keeps a leased lock file fresh; false when it is no longer there (taken over, removed). */
export function renewLockFile(file: string): boolean {
  try {
    const now = new Date()
    fs.utimesSync(file, now, now)
    return true
  } catch {
    return false
  }
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

function heldLock(
  file: string,
  holder: DataFolderHolder,
  text: string,
  options: LockFileOptions,
): DataFolderLock {
  const onExit = options.releaseOnExit ?? true
  let released = false
  const release = () => {
    if (released) return
    released = true
    if (onExit) process.off('exit', release)
    // Only our own file: a lock taken over after this process was judged dead is not ours.
    try {
      if (fs.readFileSync(file, 'utf8') === text) fs.unlinkSync(file)
    } catch {
      // Already gone, or the folder went away: nothing to release.
    }
  }
  if (onExit) process.on('exit', release)
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
 * Whether a lock as found may be taken over: unreadable for longer than a write takes, its holder
 * dead, or (with a lease) not renewed in time.
 */
function isStale(
  file: string,
  found: DataFolderHolder | 'unreadable',
  leaseMs: number | undefined,
): boolean {
  if (found === 'unreadable') return olderThan(file, unreadableLockGraceMs)
  if (leaseMs !== undefined && olderThan(file, leaseMs)) return true
  return !isAlive(found)
}

/**
 * A holder on another host cannot be checked and counts as alive (its message names the host, so
 * a person can remove the file when that machine no longer runs Vault Desk).
 */
function isAlive(holder: DataFolderHolder): boolean {
  if (holder.host !== os.hostname()) return true
  if (holder.pid === process.pid) return true
  const taken = Date.parse(holder.startedAt)
  // A lock taken before this boot was a process of an earlier boot, whatever runs as its pid now.
  if (Number.isFinite(taken) && taken < bootTimeMs() - clockSlackMs) return false
  try {
    process.kill(holder.pid, 0)
  } catch (error) {
    // EPERM: it runs, as another account.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false
  }
  // The pid runs, but pids are reused: a process that started after the lock was taken is not
  // the one that took it (the holder starts before it locks).
  const started = processStartMs(holder.pid)
  return !(started !== null && Number.isFinite(taken) && started > taken + clockSlackMs)
}

/** The uncertainty of the times compared: clock ticks, boot time read in whole seconds. */
const clockSlackMs = 2_000

let bootedAtMs: number | undefined

/** When this machine booted (Linux: /proc/stat's btime; elsewhere from the uptime). */
export function bootTimeMs(): number {
  bootedAtMs ??= readBootTimeMs()
  return bootedAtMs
}

function readBootTimeMs(): number {
  try {
    const line = /^btime (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'utf8'))
    if (line) return Number(line[1]) * 1000
  } catch {
    // Not Linux: the uptime below.
  }
  return Date.now() - os.uptime() * 1000
}

/**
 * When a process started, where the system tells (Linux's /proc), else null. Its start time is
 * in clock ticks since boot; user-visible ticks are 100 a second on every Linux architecture.
 */
export function processStartMs(pid: number): number | null {
  let stat: string
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return null
  }
  // The command name may hold spaces and parentheses: the fields after it follow its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticks = Number(fields[19])
  return Number.isFinite(ticks) ? bootTimeMs() + ticks * 10 : null
}

function olderThan(file: string, ageMs: number): boolean {
  try {
    return Date.now() - fs.statSync(file).mtimeMs > ageMs
  } catch {
    return false
  }
}

/**
 * Removes a stale lock, but only while it is still the one judged stale: another process may
 * have taken it over (and made a new one), or its holder renewed it, since it was read. The check
 * and the removal happen under `<lock>.takeover`, itself created atomically.
 */
function takeOver(
  file: string,
  stale: DataFolderHolder | 'unreadable',
  leaseMs: number | undefined,
): void {
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
    if (now === 'missing') return
    const same =
      stale === 'unreadable'
        ? now === 'unreadable'
        : typeof now !== 'string' &&
          now.pid === stale.pid &&
          now.host === stale.host &&
          now.startedAt === stale.startedAt
    if (same && isStale(file, now, leaseMs)) fs.rmSync(file, { force: true })
  } finally {
    fs.closeSync(fd)
    fs.rmSync(guard, { force: true })
  }
}
