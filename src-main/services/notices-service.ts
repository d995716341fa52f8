import os from 'node:os'
import path from 'node:path'
import { AppError } from '../shared/app-error.ts'
import type { AppNotice } from '../shared/app-notices.ts'
import type { AppEvents, EventBus } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import { KeptNotices, keptNoticesFolderName } from '../store/kept-notices.ts'
import {
  describeRecovery,
  recoveredCounts,
  type OutboxRepair,
} from '../sync/outbox/outbox-repairs.ts'
import {
  dataFolderLockName,
  describeHolder,
  type DataFolderHolder,
} from '../shared/data-folder-lock.ts'

export interface NoticesOptions {
  events: EventBus
  /** The data folder: notices kept there are told by every process that opens it. */
  dataDir: string
  log: Logger
  /** The outbox's repairs the person has not dismissed, kept in the outbox itself. */
  outbox: {
    repairs(): OutboxRepair[]
    dismissRepair(id: number): Promise<void>
    /** Repairs found after the outbox opened (another process's included), told at once. */
    onRepaired?(listener: (repair: OutboxRepair) => void): () => void
  }
  /** The name the person gave a connection (null when it has none: removed, or headless). */
  connectionName?: (connectionId: string) => string | null
  now?: () => number
}

const repairPrefix = 'outbox-repaired:'
const heldPrefix = 'data-folder-held:'
const rebuiltPrefix = 'cache-rebuilt:'

/**
 * A rebuilt cache as kept, with the connection's name then: another process may not know it (a
 * headless connection of a CLI command, one removed since).
 */
type CacheRebuilt = AppEvents['cache.rebuilt'] & { at: string; connectionName: string | null }

/**
 * The notices a window shows until the person dismisses them (`AppNotice`). A repair of the
 * outbox is kept in the outbox, and a cache set aside and rebuilt (`cache.rebuilt`, often before
 * any window listens, or in a CLI command) in the data folder (kept-notices.ts): both outlive the
 * process until read, are told by every process on the data folder, and once dismissed in one are
 * gone from all. A held data folder is told while it lasts, and a dismissed one stays dismissed
 * until another process holds it.
 */
export class NoticesService {
  readonly #events: EventBus
  readonly #outbox: NoticesOptions['outbox']
  readonly #log: Logger
  readonly #now: () => number
  readonly #connectionName: (connectionId: string) => string | null
  #held: AppNotice | null = null
  readonly #dismissedHolds = new Set<string>()
  readonly #kept: KeptNotices<CacheRebuilt>
  /** Caches rebuilt in this process that could not be kept in the data folder, by notice id. */
  readonly #unkept = new Map<string, CacheRebuilt>()
  readonly #dismissedUnkept = new Set<string>()
  readonly #stopWatching: () => void
  readonly #stopHearingRepairs: () => void
  /** What `notices.changed` told last, to tell a change another process made only once. */
  #lastTold: string | undefined

  constructor(options: NoticesOptions) {
    this.#events = options.events
    this.#outbox = options.outbox
    this.#log = options.log
    this.#connectionName = options.connectionName ?? (() => null)
    this.#now = options.now ?? Date.now
    this.#kept = new KeptNotices(path.join(options.dataDir, keptNoticesFolderName), {
      read: readCacheRebuilt,
      onProblem: (message, details) => this.#log.warn(message, details),
      now: this.#now,
    })
    options.events.on('cache.rebuilt', (event) => this.#cacheRebuilt(event))
    this.#stopWatching = this.#kept.watch(() => this.#changed({ onlyIfDifferent: true }))
    // A CLI that repairs the outbox while a window is open: the window shows it at once.
    this.#stopHearingRepairs =
      options.outbox.onRepaired?.(() => this.#changed({ onlyIfDifferent: true })) ?? (() => {})
    this.#lastTold = JSON.stringify(this.list())
  }

  /** Every notice to show, oldest first. */
  list(): AppNotice[] {
    const notices = this.#outbox.repairs().map(repairNotice)
    const rebuilt = this.#kept.list().map(({ id, notice }) => ({ id, notice }))
    for (const [id, notice] of this.#unkept) {
      if (!this.#dismissedUnkept.has(id)) rebuilt.push({ id, notice })
    }
    for (const { id, notice } of rebuilt) {
      const name = this.#connectionName(notice.connectionId) ?? notice.connectionName
      notices.push(rebuiltNotice(id, notice, name))
    }
    if (this.#held && !this.#dismissedHolds.has(this.#held.id)) notices.push(this.#held)
    return notices
  }

  /**
   * The person has read notice `id` (again is no error: two windows may both dismiss it); an id
   * never shown is `not_found`. A repair dismissed while the outbox's start-up check runs is
   * dismissed once it ends.
   */
  async dismiss(id: string): Promise<{ dismissed: true }> {
    if (id.startsWith(repairPrefix)) {
      const repairId = Number(id.slice(repairPrefix.length))
      if (!Number.isSafeInteger(repairId)) throw unknownNotice(id)
      try {
        await this.#outbox.dismissRepair(repairId)
      } catch (error) {
        throw error instanceof AppError && error.code === 'not_found' ? unknownNotice(id) : error
      }
    } else if (id.startsWith(rebuiltPrefix)) {
      this.#dismissRebuilt(id)
    } else if (this.#held?.id === id) {
      this.#dismissedHolds.add(id)
    } else {
      throw unknownNotice(id)
    }
    this.#changed()
    return { dismissed: true }
  }

  /** Another process holds `dataDir` (`holder` null when its lock file cannot be read yet). */
  dataFolderHeld(dataDir: string, holder: DataFolderHolder | null): void {
    const notice = heldNotice(dataDir, holder, this.#now())
    if (this.#held?.id === notice.id) return
    this.#held = notice
    this.#changed()
  }

  /** This process holds the data folder now. */
  dataFolderFree(): void {
    if (this.#held === null) return
    this.#held = null
    this.#changed()
  }

  /** Stops following the notices other processes keep and dismiss. */
  close(): void {
    this.#stopWatching()
    this.#stopHearingRepairs()
  }

  #cacheRebuilt(event: AppEvents['cache.rebuilt']): void {
    const id = `${rebuiltPrefix}${path.basename(event.movedTo)}`
    const rebuilt: CacheRebuilt = {
      ...event,
      at: new Date(this.#now()).toISOString(),
      connectionName: this.#connectionName(event.connectionId),
    }
    try {
      this.#kept.keep(id, rebuilt)
    } catch (error) {
      // Told by this process until it ends, as the best it can do.
      this.#log.warn('a notice cannot be kept in the data folder', { id, error })
      this.#unkept.set(id, rebuilt)
    }
    this.#changed()
  }

  #dismissRebuilt(id: string): void {
    if (this.#unkept.has(id)) {
      this.#dismissedUnkept.add(id)
      return
    }
    let dismissal
    try {
      dismissal = this.#kept.dismiss(id)
    } catch (error) {
      throw new AppError(
        'storage',
        `The notice cannot be dismissed: ${(error as Error).message}. It is shown again until the data folder can be written.`,
        { cause: error },
      )
    }
    if (dismissal === 'unknown') throw unknownNotice(id)
  }

  #changed(options: { onlyIfDifferent?: boolean } = {}): void {
    const notices = this.list()
    const told = JSON.stringify(notices)
    if (options.onlyIfDifferent && told === this.#lastTold) return
    this.#lastTold = told
    this.#events.emit('notices.changed', { notices })
  }
}

/** A kept notice of a rebuilt cache as this version wrote it, else null. */
function readCacheRebuilt(value: unknown): CacheRebuilt | null {
  if (typeof value !== 'object' || value === null) return null
  const notice = value as Partial<Record<keyof CacheRebuilt, unknown>>
  const texts = [notice.connectionId, notice.details, notice.movedTo, notice.at]
  if (!texts.every((text) => typeof text === 'string')) return null
  if (notice.reason !== 'damaged') return null
  if (!(notice.connectionName === null || typeof notice.connectionName === 'string')) return null
  return notice as CacheRebuilt
}

function unknownNotice(id: string): AppError {
  return new AppError('not_found', `No notice ${JSON.stringify(id)} is shown.`)
}

function repairNotice(repair: OutboxRepair): AppNotice {
  const { message } = describeRecovery(repair)
  return {
    id: `${repairPrefix}${repair.id}`,
    kind: 'outbox-repaired',
    severity: repair.unreadable > 0 ? 'error' : 'warning',
    title: message,
    // The copy's path is shown on its own line.
    details: `${recoveredCounts(repair)} SQLite found: ${repair.details}`,
    advice:
      repair.unreadable > 0
        ? 'Look in the Outbox for what is still to send, and do again the work of the items that could not be read. Keep the damaged copy: it still holds them, should support be able to read more of it.'
        : 'Nothing queued was lost: it is sent as before. Keep the damaged copy until you have checked the Outbox, then delete it.',
    path: repair.movedTo,
    at: repair.repairedAt,
  }
}

function rebuiltNotice(id: string, rebuilt: CacheRebuilt, name: string | null): AppNotice {
  const connection = name === null ? 'a connection' : `“${name}”`
  return {
    id,
    kind: 'cache-rebuilt',
    severity: 'warning',
    title: `The local copy of ${connection} was damaged and is being synced again`,
    details: `SQLite found: ${rebuilt.details.replace(/\.$/, '')}. The copy was set aside and a fresh one started; until the next sync of this connection ends, lists and searches show only what it has brought back. Work queued in the outbox is kept apart and was not touched.`,
    advice:
      'Nothing is lost: the vault holds every record. Stay connected until the sync ends to work offline again. The damaged copy is of use only to support; delete it when you wish.',
    path: rebuilt.movedTo,
    at: rebuilt.at,
  }
}

function heldNotice(dataDir: string, holder: DataFolderHolder | null, now: number): AppNotice {
  const lockFile = path.join(dataDir, dataFolderLockName)
  const elsewhere = holder !== null && holder.host !== os.hostname()
  return {
    id: `${heldPrefix}${holder ? `${holder.pid}@${holder.host}/${holder.startedAt}` : 'unknown'}`,
    kind: 'data-folder-held',
    severity: 'warning',
    title: 'Another Vault Desk is syncing this data folder: this window does not sync or send',
    details: `The data folder ${dataDir} is held by ${describeHolder(holder)}. Meanwhile this window shows what is on this computer and queues your work in the outbox; the other process sends it.`,
    advice: elsewhere
      ? `It runs on ${holder.host}. If that computer no longer runs Vault Desk, delete the lock file; this window then takes over.`
      : 'Let it finish, or close it: this window starts syncing and sending within seconds of it ending.',
    path: lockFile,
    at: holder?.startedAt ?? new Date(now).toISOString(),
  }
}
