import type { ImportCheckReport } from '../../src-common/intake/import-check.ts'
import type { SavedSearchVaultRun } from '../../src-common/searches/vault-run.ts'
import type { ErrorValue } from './app-error.ts'
import type { AppNotice } from './app-notices.ts'
import type { AppStatus } from './app-status.ts'
import type { ConnectionSyncState, SyncProgress } from './sync-status.ts'

/** Every event main pushes to the UI, by name. */
export interface AppEvents {
  'status.changed': AppStatus
  'connections.changed': { connectionIds: string[] }
  'storage.failed': { message: string; details: string }
  /** The notices the window keeps until dismissed changed: every one still to show. */
  'notices.changed': { notices: AppNotice[] }
  /** A page of a sync was committed (at most a few per second per connection). */
  'sync.progress': SyncProgress
  /** A connection's sync started, finished or was scheduled. */
  'sync.changed': ConnectionSyncState
  /** Cached records of these kinds changed: lists showing them may refresh. */
  'records.changed': { connectionId: string; vaultId: number; kinds: string[] }
  /** The API of a connection answered again, or stopped answering. */
  'connectivity.changed': {
    connectionId: string
    online: boolean
    lastContactAt: string | null
    /** When the next probe runs while offline (ISO), else null. */
    nextProbeAt: string | null
  }
  /** The server refused a connection's token: its sync stopped; ask for a new one. */
  'connections.needsToken': { connectionId: string; name: string; message: string }
  /** A damaged cache was set aside and a fresh one started. */
  'cache.rebuilt': {
    connectionId: string
    reason: 'damaged'
    details: string
    movedTo: string
  }
  /** The outbox changed: items changed state, or uploads progressed (a few times a second). */
  'outbox.changed': OutboxChange
  /** A vault's structure index is being built or brought up to date (a few times a second). */
  'chem.indexProgress': ChemIndexProgress
  /** An export to a file went on (a few times a second), or ended. */
  'exports.progress': ExportProgress
  /** A watched instrument folder took, held, skipped or lost sight of something. */
  'watch.activity': WatchActivity
  /** A saved search run on the vault went on (queued, running, downloading), or ended. */
  'searches.vaultRun': SavedSearchVaultRun
  /**
   * These attachments of a vault changed state (a fetch started or ended, contents removed or
   * evicted for the budget): a record page showing any of them may ask `attachments.states` again.
   */
  'attachments.changed': { connectionId: string; vaultId: number; fileIds: number[] }
}

/** What a watched instrument folder did, in words and as data (the CLI's `watch --json` lines). */
export interface WatchActivity {
  at: string
  /** The saved folder's id; null for a folder the CLI watches without saving it. */
  folderId: number | null
  connectionId: string
  vaultId: number
  folder: string
  type:
    | 'started'
    | 'stopped'
    | 'queued'
    | 'held'
    | 'discarded'
    | 'already-taken'
    | 'ignored'
    | 'waiting'
    | 'folder-missing'
    | 'folder-back'
    | 'failed'
  /** The file it is about, if any. */
  fileName: string | null
  message: string
  /** The file's entry in the register of taken files. */
  takenFileId?: number
  outboxItemId?: number
  /** The local check's report (queued with warnings, or held). */
  report?: ImportCheckReport
}

/** An export to a file: how far it is, and how it ended. */
export interface ExportProgress {
  exportId: string
  state: 'running' | 'completed' | 'failed' | 'cancelled'
  /** The file it is written to (under a temporary name until complete). */
  path: string
  /** Records written so far, of `total`. */
  written: number
  total: number
  bytes: number
  /** Once completed: what the person should know about the file, in words. */
  notes?: string[]
  /** Once failed: why (nothing was left on disk). */
  error?: ErrorValue
}

/**
 * Molecules indexed (searchable) so far of the vault's cached molecules, and how many of them
 * still wait for their InChIKey or properties.
 */
export interface ChemIndexProgress {
  connectionId: string
  vaultId: number
  indexed: number
  total: number
  detailsPending: number
}

/** Counts of the outbox by state, the items that changed, and the uploads under way. */
export interface OutboxChange {
  counts: {
    queued: number
    sending: number
    needsAttention: number
    conflict: number
    uncertain: number
    /** Every item not yet sent nor discarded: what the top bar shows. */
    pending: number
  }
  itemIds: number[]
  progress: { itemId: number; sentBytes: number; totalBytes: number }[]
}

export type AppEventName = keyof AppEvents

export const appEventNames = [
  'status.changed',
  'connections.changed',
  'storage.failed',
  'notices.changed',
  'sync.progress',
  'sync.changed',
  'records.changed',
  'connectivity.changed',
  'connections.needsToken',
  'cache.rebuilt',
  'outbox.changed',
  'chem.indexProgress',
  'exports.progress',
  'watch.activity',
  'searches.vaultRun',
  'attachments.changed',
] as const satisfies readonly AppEventName[]

/** Fails to compile when an event of AppEvents is missing from appEventNames. */
export type EveryEventListed = AssertNever<Exclude<AppEventName, (typeof appEventNames)[number]>>
type AssertNever<T extends never> = T

type Listener<E extends AppEventName> = (payload: AppEvents[E]) => void
type AnyListener = <E extends AppEventName>(event: E, payload: AppEvents[E]) => void

/** A typed, synchronous event bus; a throwing listener never stops the others. */
export class EventBus {
  readonly #listeners = new Map<AppEventName, Set<Listener<never>>>()
  readonly #onListenerError: (error: unknown) => void

  constructor(onListenerError: (error: unknown) => void = () => {}) {
    this.#onListenerError = onListenerError
  }

  on<E extends AppEventName>(event: E, listener: Listener<E>): () => void {
    let set = this.#listeners.get(event)
    if (!set) {
      set = new Set()
      this.#listeners.set(event, set)
    }
    const stored = listener as Listener<never>
    set.add(stored)
    return () => set.delete(stored)
  }

  /** Subscribes one listener to every event, as the hosts do to forward events to a window. */
  onAny(listener: AnyListener): () => void {
    const offs = appEventNames.map((event) => this.on(event, (payload) => listener(event, payload)))
    return () => offs.forEach((off) => off())
  }

  emit<E extends AppEventName>(event: E, payload: AppEvents[E]): void {
    for (const listener of this.#listeners.get(event) ?? []) {
      try {
        ;(listener as Listener<E>)(payload)
      } catch (error) {
        this.#onListenerError(error)
      }
    }
  }
}
