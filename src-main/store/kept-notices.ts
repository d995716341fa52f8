/**
 * Notices kept beside the data until the person dismisses them, shared by every process that
 * opens the data folder (the app, the browser preview, the CLI): what one process found (a cache
 * set aside and rebuilt) is told by the window of another, even one started after it ended, and
 * dismissed in one it is gone from all.
 *
 * Each notice is one file in `notices/` (folder 0700, files 0600), written whole under a temporary
 * name and renamed into place, so that a reader never sees half a notice and two processes never
 * write the same file at once but to dismiss it (both then write the same). A dismissed notice
 * stays as a file marked dismissed: a second dismissal (another window) is then no error, and an
 * id never kept is. A file that cannot be read as a notice (damaged, written by hand) is renamed
 * aside and told as a problem; the others are kept.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { createPrivateFolder, privateFileMode } from '../shared/private-files.ts'

export const keptNoticesFolderName = 'notices'

const noticeSuffix = '.json'

interface NoticeFile {
  id: string
  /** ISO time it was kept: the order notices are told in. */
  keptAt: string
  dismissedAt: string | null
  notice: unknown
}

export interface KeptNotice<T> {
  id: string
  keptAt: string
  notice: T
}

export interface KeptNoticesOptions<T> {
  /** The notice as kept, or null when its contents are not such a notice. */
  read(value: unknown): T | null
  /** A notice file was set aside, or the folder cannot be read. */
  onProblem(message: string, details: Record<string, unknown>): void
  now?: () => number
}

export type Dismissal = 'dismissed' | 'already dismissed' | 'unknown'

export class KeptNotices<T> {
  readonly folder: string
  readonly #options: KeptNoticesOptions<T>
  readonly #now: () => number
  readonly #told = new Set<string>()

  constructor(folder: string, options: KeptNoticesOptions<T>) {
    this.folder = folder
    this.#options = options
    this.#now = options.now ?? Date.now
  }

  /** Keeps `notice` until dismissed. Throws when the folder cannot be written (the caller says so). */
  keep(id: string, notice: T): void {
    createPrivateFolder(this.folder)
    const file: NoticeFile = {
      id,
      keptAt: new Date(this.#now()).toISOString(),
      dismissedAt: null,
      notice,
    }
    this.#write(id, file)
  }

  /** The notices not dismissed, oldest first. */
  list(): KeptNotice<T>[] {
    let names: string[]
    try {
      names = fs.readdirSync(this.folder)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.#options.onProblem('the kept notices cannot be read', { folder: this.folder, error })
      }
      return []
    }
    const kept: KeptNotice<T>[] = []
    for (const name of names) {
      if (!name.endsWith(noticeSuffix)) continue
      const read = this.#read(path.join(this.folder, name))
      if (read && read.file.dismissedAt === null) {
        kept.push({ id: read.file.id, keptAt: read.file.keptAt, notice: read.notice })
      }
    }
    return kept.sort((a, b) => a.keptAt.localeCompare(b.keptAt) || a.id.localeCompare(b.id))
  }

  /** Marks notice `id` read, for every process. */
  dismiss(id: string): Dismissal {
    const read = this.#read(this.#fileOf(id))
    if (!read || read.file.id !== id) return 'unknown'
    if (read.file.dismissedAt !== null) return 'already dismissed'
    this.#write(id, { ...read.file, dismissedAt: new Date(this.#now()).toISOString() })
    return 'dismissed'
  }

  /**
   * Calls `changed` (at most every `settleMs`) when a notice may have been kept or dismissed by
   * any process, until the answered function is called. Without file events (a network folder,
   * no watches left) it looks every `pollMs`.
   */
  watch(changed: () => void, options: { settleMs?: number; pollMs?: number } = {}): () => void {
    const settleMs = options.settleMs ?? 100
    let pending: ReturnType<typeof setTimeout> | undefined
    const soon = () => {
      if (pending) return
      pending = setTimeout(() => {
        pending = undefined
        changed()
      }, settleMs)
      pending.unref?.()
    }
    let watcher: fs.FSWatcher | undefined
    let poll: ReturnType<typeof setInterval> | undefined
    const pollInstead = () => {
      watcher?.close()
      watcher = undefined
      poll ??= setInterval(soon, options.pollMs ?? 5_000)
      poll.unref?.()
    }
    try {
      createPrivateFolder(this.folder)
      watcher = fs.watch(this.folder, { persistent: false }, soon)
      watcher.on('error', pollInstead)
    } catch {
      pollInstead()
    }
    return () => {
      clearTimeout(pending)
      clearInterval(poll)
      watcher?.close()
    }
  }

  #fileOf(id: string): string {
    return path.join(this.folder, `${encodeURIComponent(id)}${noticeSuffix}`)
  }

  #write(id: string, file: NoticeFile): void {
    const target = this.#fileOf(id)
    const temporary = `${target}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`
    const fd = fs.openSync(temporary, 'wx', privateFileMode)
    try {
      fs.writeSync(fd, `${JSON.stringify(file)}\n`)
      fs.fsyncSync(fd)
      fs.closeSync(fd)
      fs.renameSync(temporary, target)
    } catch (error) {
      try {
        fs.closeSync(fd)
      } catch {
        // Closed already.
      }
      fs.rmSync(temporary, { force: true })
      throw error
    }
  }

  /** A notice file as written, or null when it is missing or was set aside as unreadable. */
  #read(file: string): { file: NoticeFile; notice: T } | null {
    let text: string
    try {
      text = fs.readFileSync(file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      this.#tellOnce(file, 'a kept notice cannot be read', { file, error })
      return null
    }
    let value: Partial<NoticeFile>
    try {
      value = JSON.parse(text) as Partial<NoticeFile>
    } catch (error) {
      this.#setAside(file, `it is not JSON (${(error as Error).message})`)
      return null
    }
    if (
      typeof value !== 'object' ||
      value === null ||
      typeof value.id !== 'string' ||
      typeof value.keptAt !== 'string' ||
      !(value.dismissedAt === null || typeof value.dismissedAt === 'string')
    ) {
      this.#setAside(file, 'it is not a kept notice')
      return null
    }
    // A notice of a kind another version of Vault Desk keeps: left for it, unlisted here.
    const notice = this.#options.read(value.notice)
    return notice === null ? null : { file: value as NoticeFile, notice }
  }

  #setAside(file: string, reason: string): void {
    const stamp = new Date(this.#now()).toISOString().replace(/[:.]/g, '-')
    const aside = `${file}.unreadable-${stamp}`
    try {
      fs.renameSync(file, aside)
      this.#options.onProblem('a kept notice could not be read and was set aside', {
        file,
        movedTo: aside,
        reason,
      })
    } catch (error) {
      // Another process set it aside first, or the folder is read-only: it stays unlisted.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      this.#tellOnce(file, 'a kept notice could not be read', { file, reason, error })
    }
  }

  /** A problem with one file that stays (a read-only folder) is told once, not at every look. */
  #tellOnce(file: string, message: string, details: Record<string, unknown>): void {
    if (this.#told.has(file)) return
    this.#told.add(file)
    this.#options.onProblem(message, details)
  }
}
