import os from 'node:os'
import path from 'node:path'
import { AppError } from '../shared/app-error.ts'
import type { AppNotice } from '../shared/app-notices.ts'
import type { AppEvents, EventBus } from '../shared/events.ts'
import {
  describeRecovery,
  recoveredCounts,
  type OutboxRepair,
} from '../sync/outbox/outbox-repairs.ts'
import { dataFolderLockName, describeHolder, type DataFolderHolder } from './data-folder-lock.ts'

export interface NoticesOptions {
  events: EventBus
  /** The outbox's repairs the person has not dismissed, kept in the outbox itself. */
  outbox: { repairs(): OutboxRepair[]; dismissRepair(id: number): void }
  /** The name the person gave a connection (null when it has none: removed, or headless). */
  connectionName?: (connectionId: string) => string | null
  now?: () => number
}

const repairPrefix = 'outbox-repaired:'
const heldPrefix = 'data-folder-held:'
const rebuiltPrefix = 'cache-rebuilt:'

type CacheRebuilt = AppEvents['cache.rebuilt'] & { at: string }

/**
 * The notices a window shows until the person dismisses them (`AppNotice`). A repair of the
 * outbox is kept in the outbox, so it outlives this process until read; a cache set aside and
 * rebuilt (`cache.rebuilt`, often before any window listens) is kept until read or the process
 * ends (the fresh cache is synced again, so only the copy set aside would remember it); a held
 * data folder is told while it lasts, and a dismissed one stays dismissed until another process
 * holds it.
 */
export class NoticesService {
  readonly #events: EventBus
  readonly #outbox: NoticesOptions['outbox']
  readonly #now: () => number
  readonly #connectionName: (connectionId: string) => string | null
  #held: AppNotice | null = null
  readonly #dismissedHolds = new Set<string>()
  /** Caches rebuilt in this process, by notice id, in the order told. */
  readonly #rebuilt = new Map<string, CacheRebuilt>()
  readonly #dismissedRebuilds = new Set<string>()

  constructor(options: NoticesOptions) {
    this.#events = options.events
    this.#outbox = options.outbox
    this.#connectionName = options.connectionName ?? (() => null)
    this.#now = options.now ?? Date.now
    options.events.on('cache.rebuilt', (rebuilt) => {
      this.#rebuilt.set(`${rebuiltPrefix}${path.basename(rebuilt.movedTo)}`, {
        ...rebuilt,
        at: new Date(this.#now()).toISOString(),
      })
      this.#changed()
    })
  }

  /** Every notice to show, oldest first. */
  list(): AppNotice[] {
    const notices = this.#outbox.repairs().map(repairNotice)
    for (const [id, rebuilt] of this.#rebuilt) {
      if (this.#dismissedRebuilds.has(id)) continue
      notices.push(rebuiltNotice(id, rebuilt, this.#connectionName(rebuilt.connectionId)))
    }
    if (this.#held && !this.#dismissedHolds.has(this.#held.id)) notices.push(this.#held)
    return notices
  }

  /**
   * The person has read notice `id` (again is no error: two windows may both dismiss it); an id
   * never shown is `not_found`.
   */
  dismiss(id: string): { dismissed: true } {
    if (id.startsWith(repairPrefix)) {
      const repairId = Number(id.slice(repairPrefix.length))
      if (!Number.isSafeInteger(repairId)) throw unknownNotice(id)
      try {
        this.#outbox.dismissRepair(repairId)
      } catch (error) {
        throw error instanceof AppError && error.code === 'not_found' ? unknownNotice(id) : error
      }
    } else if (this.#rebuilt.has(id)) {
      this.#dismissedRebuilds.add(id)
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

  #changed(): void {
    this.#events.emit('notices.changed', { notices: this.list() })
  }
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
  const damaged = rebuilt.reason === 'damaged'
  return {
    id,
    kind: 'cache-rebuilt',
    severity: 'warning',
    title: damaged
      ? `The local copy of ${connection} was damaged and is being synced again`
      : `The local copy of ${connection} was written by a newer Vault Desk and is being synced again`,
    details: `${damaged ? 'SQLite found: ' : 'Its '}${rebuilt.details.replace(/\.$/, '')}. The copy was set aside and a fresh one started; until the next sync of this connection ends, lists and searches show only what it has brought back. Work queued in the outbox is kept apart and was not touched.`,
    advice: damaged
      ? 'Nothing is lost: the vault holds every record. Stay connected until the sync ends to work offline again. The damaged copy is of use only to support; delete it when you wish.'
      : 'Nothing is lost: the vault holds every record. The newer Vault Desk can still use the copy set aside; this version syncs its own meanwhile.',
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
