import type { ErrorValue } from './app-error.ts'

/** How a sync of one connection ended. */
export type SyncOutcome = 'completed' | 'cancelled' | 'failed' | 'offline' | 'needs_token'

/** Where a running sync stands: one kind of one vault. */
export interface SyncProgress {
  connectionId: string
  vaultId: number
  kind: string
  /** Records of this kind stored (or, in a deletion pass, checked) so far. */
  done: number
  /** Records expected, when the server said; null when unknown (an export not yet read). */
  total: number | null
}

/** The sync of one connection, as the UI shows it. */
export interface ConnectionSyncState {
  connectionId: string
  running: boolean
  /** ISO times. */
  startedAt: string | null
  finishedAt: string | null
  progress: SyncProgress | null
  lastOutcome: SyncOutcome | null
  /** Why the last sync did not complete (its message names what failed). */
  lastError: ErrorValue | null
  /** When the scheduler will next sync this connection, when it will. */
  nextSyncAt: string | null
}
