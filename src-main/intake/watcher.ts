/**
 * Watches one instrument folder and hands over each new file once it has stopped changing.
 * `fs.watch` wakes it early, but a periodic scan is what it relies on: `fs.watch` misses events on
 * network shares and some file systems, and says nothing useful when the folder itself goes. A
 * file is handed over when its size and modification time have not changed for the settle time;
 * hidden and temporary files (dotfiles, `~$` Office locks, `.part`, `.tmp`...) are left alone, and
 * a file of a type an import does not take is reported once. The watcher reads nothing itself
 * and never moves or deletes a file: what it hands over (`onFile`) is done one file at a time.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from '../shared/logger.ts'

/** The endings a watched folder takes, in any case. */
export const watchedExtensions = ['.csv', '.sdf', '.sd', '.xlsx'] as const

/** Names instruments and editors give files still being written, and hidden files. */
const temporaryName =
  /^[.~]|^~\$|\.(part|partial|tmp|temp|crdownload|download|swp|lock|filepart)$|~$/i

export function isTemporaryName(name: string): boolean {
  return temporaryName.test(name)
}

export function isWatchedName(name: string): boolean {
  return (watchedExtensions as readonly string[]).includes(path.extname(name).toLowerCase())
}

/** A file that has stopped changing, as the last scan saw it. */
export interface SettledFile {
  path: string
  name: string
  size: number
  mtimeMs: number
}

/** What the watcher noticed, for the log and the person. */
export type WatcherNotice =
  | { type: 'ignored'; name: string; reason: 'type' | 'empty' }
  | { type: 'folder-missing'; message: string }
  | { type: 'folder-back' }

/** What became of a file handed over: taken, or to be offered again on a later scan. */
export type FileHandling = 'done' | 'retry'

export interface WatcherOptions {
  folder: string
  /** How long a file's size and time must stay the same before it is taken (default 2 s). */
  settleMs?: number
  /** How often the folder is scanned whatever fs.watch says (default 5 s). */
  scanMs?: number
  onFile: (file: SettledFile, signal: AbortSignal) => Promise<FileHandling>
  onNotice: (notice: WatcherNotice) => void
  log: Logger
}

interface Seen {
  size: number
  mtimeMs: number
  /** When the file was first seen at this size and time. */
  since: number
}

const defaultSettleMs = 2_000
const defaultScanMs = 5_000
/** fs.watch fires several times per write: one scan follows a burst. */
const eventScanDelayMs = 50

export class FolderWatcher {
  readonly folder: string
  readonly #options: WatcherOptions
  readonly #settleMs: number
  readonly #scanMs: number
  /** Files being watched until they settle, by name. */
  readonly #seen = new Map<string, Seen>()
  /** Files handed over and done, with the size and time they had: not handed over again. */
  readonly #done = new Map<string, { size: number; mtimeMs: number }>()
  /** Names reported once (ignored types, empty files) with what they were then. */
  readonly #reported = new Map<string, string>()
  readonly #stopping = new AbortController()
  #fsWatcher: fs.FSWatcher | null = null
  #timer: ReturnType<typeof setTimeout> | null = null
  #scanning: Promise<void> | null = null
  #rescan = false
  #missing = false
  #started = false

  constructor(options: WatcherOptions) {
    this.folder = path.resolve(options.folder)
    this.#options = options
    this.#settleMs = options.settleMs ?? defaultSettleMs
    this.#scanMs = options.scanMs ?? Math.max(defaultScanMs, this.#settleMs)
  }

  /** Whether the folder could not be read at the last scan. */
  get missing(): boolean {
    return this.#missing
  }

  start(): void {
    if (this.#started) return
    this.#started = true
    this.#listen()
    this.#schedule(0)
  }

  /**
   * Stops watching: no new file is handed over; the one in hand is told to stop (its signal
   * aborts) and is waited for, so that it ends taken or not taken, never in between.
   */
  async stop(): Promise<void> {
    this.#stopping.abort()
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = null
    this.#fsWatcher?.close()
    this.#fsWatcher = null
    await this.#scanning
  }

  /** Scans now (after the scan under way), as a timer would; resolves when it is done. */
  async scanNow(): Promise<void> {
    while (this.#scanning) await this.#scanning
    await this.#runScan()
  }

  #listen(): void {
    if (this.#fsWatcher || this.#stopping.signal.aborted) return
    try {
      const watcher = fs.watch(this.folder, { persistent: false }, () =>
        this.#schedule(eventScanDelayMs),
      )
      // A folder removed (or a share gone) errors on some systems: the scans take over.
      watcher.on('error', (error) => {
        this.#options.log.debug('fs.watch stopped', { folder: this.folder, error: String(error) })
        watcher.close()
        if (this.#fsWatcher === watcher) this.#fsWatcher = null
        this.#schedule(eventScanDelayMs)
      })
      this.#fsWatcher = watcher
    } catch (error) {
      // The folder is missing or unreadable: the next scan says so and keeps looking.
      this.#options.log.debug('fs.watch unavailable', { folder: this.folder, error: String(error) })
    }
  }

  #schedule(delayMs: number): void {
    if (this.#stopping.signal.aborted) return
    if (this.#scanning) {
      this.#rescan = this.#rescan || delayMs <= eventScanDelayMs
      return
    }
    if (this.#timer) {
      if (delayMs >= this.#scanMs) return
      clearTimeout(this.#timer)
    }
    this.#timer = setTimeout(() => {
      this.#timer = null
      void this.#runScan()
    }, delayMs)
  }

  async #runScan(): Promise<void> {
    if (this.#stopping.signal.aborted) return
    this.#rescan = false
    const scanning = this.#scan().catch((error: unknown) => {
      this.#options.log.error('a scan of a watched folder failed', {
        folder: this.folder,
        error: String(error),
      })
    })
    this.#scanning = scanning
    await scanning
    this.#scanning = null
    if (this.#stopping.signal.aborted) return
    // A file waiting to settle is looked at again once it may have.
    const settling = this.#seen.size > 0 ? Math.min(this.#settleMs, this.#scanMs) : this.#scanMs
    this.#schedule(this.#rescan ? eventScanDelayMs : settling)
  }

  async #scan(): Promise<void> {
    let entries: fs.Dirent[]
    try {
      entries = await fs.promises.readdir(this.folder, { withFileTypes: true })
    } catch (error) {
      this.#folderMissing(error as NodeJS.ErrnoException)
      return
    }
    if (this.#missing) {
      this.#missing = false
      this.#options.log.info('a watched folder is back', { folder: this.folder })
      this.#options.onNotice({ type: 'folder-back' })
    }
    this.#listen()
    const present = new Set<string>()
    const now = Date.now()
    for (const entry of entries) {
      if (this.#stopping.signal.aborted) return
      // Symbolic links are followed: a folder of links to an instrument's files is common.
      if (!entry.isFile() && !entry.isSymbolicLink()) continue
      const name = entry.name
      if (isTemporaryName(name)) continue
      present.add(name)
      if (!isWatchedName(name)) {
        this.#reportOnce(name, 'type', { type: 'ignored', name, reason: 'type' })
        continue
      }
      const stat = await statOrNull(path.join(this.folder, name))
      if (!stat?.isFile()) continue
      const done = this.#done.get(name)
      if (done && done.size === stat.size && done.mtimeMs === stat.mtimeMs) continue
      const seen = this.#seen.get(name)
      if (!seen || seen.size !== stat.size || seen.mtimeMs !== stat.mtimeMs) {
        this.#seen.set(name, { size: stat.size, mtimeMs: stat.mtimeMs, since: now })
        continue
      }
      if (now - seen.since < this.#settleMs) continue
      if (stat.size === 0) {
        // Instruments often create a file before they write it: an empty one is not taken.
        this.#reportOnce(name, `empty:${stat.mtimeMs}`, { type: 'ignored', name, reason: 'empty' })
        continue
      }
      const file = {
        path: path.join(this.folder, name),
        name,
        size: stat.size,
        mtimeMs: stat.mtimeMs,
      }
      const handling = await this.#hand(file)
      if (handling === 'done') {
        this.#seen.delete(name)
        this.#done.set(name, { size: stat.size, mtimeMs: stat.mtimeMs })
      } else {
        // Settling starts again: a locked or changing file is waited for.
        this.#seen.set(name, { size: stat.size, mtimeMs: stat.mtimeMs, since: Date.now() })
      }
    }
    for (const name of [...this.#seen.keys(), ...this.#done.keys(), ...this.#reported.keys()]) {
      if (present.has(name)) continue
      this.#seen.delete(name)
      this.#done.delete(name)
      this.#reported.delete(name)
    }
  }

  async #hand(file: SettledFile): Promise<FileHandling> {
    try {
      return await this.#options.onFile(file, this.#stopping.signal)
    } catch (error) {
      this.#options.log.error('a watched file could not be taken', {
        folder: this.folder,
        file: file.name,
        error: String(error),
      })
      return 'retry'
    }
  }

  #folderMissing(error: NodeJS.ErrnoException): void {
    this.#fsWatcher?.close()
    this.#fsWatcher = null
    this.#seen.clear()
    this.#done.clear()
    this.#reported.clear()
    if (this.#missing) return
    this.#missing = true
    const message =
      error.code === 'ENOENT'
        ? `${this.folder} is gone: watching for it to come back.`
        : error.code === 'ENOTDIR'
          ? `${this.folder} is not a folder: watching for one to appear there.`
          : `${this.folder} cannot be read (${error.code ?? error.message}): trying again.`
    this.#options.log.warn('a watched folder is missing', { folder: this.folder, code: error.code })
    this.#options.onNotice({ type: 'folder-missing', message })
  }

  #reportOnce(name: string, what: string, notice: WatcherNotice): void {
    if (this.#reported.get(name) === what) return
    this.#reported.set(name, what)
    this.#options.onNotice(notice)
  }
}

async function statOrNull(file: string): Promise<fs.Stats | null> {
  try {
    return await fs.promises.stat(file)
  } catch {
    // Gone between the listing and now: it is no longer there to take.
    return null
  }
}
