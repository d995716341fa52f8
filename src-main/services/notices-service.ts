import os from 'node:os'
import path from 'node:path'
import { AppError } from '../shared/app-error.ts'
import type { AppNotice } from '../shared/app-notices.ts'
import type { EventBus } from '../shared/events.ts'
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
  now?: () => number
}

const repairPrefix = 'outbox-repaired:'
const heldPrefix = 'data-folder-held:'

/**
 * The notices a window shows until the person dismisses them (`AppNotice`). A repair of the
 * outbox is kept in the outbox, so it outlives this process until read; a held data folder is
 * told while it lasts, and a dismissed one stays dismissed until another process holds it.
 */
export class NoticesService {
  readonly #events: EventBus
  readonly #outbox: NoticesOptions['outbox']
  readonly #now: () => number
  #held: AppNotice | null = null
  readonly #dismissedHolds = new Set<string>()

  constructor(options: NoticesOptions) {
    this.#events = options.events
    this.#outbox = options.outbox
    this.#now = options.now ?? Date.now
  }

  /** Every notice to show, oldest first. */
  list(): AppNotice[] {
    const notices = this.#outbox.repairs().map(repairNotice)
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
