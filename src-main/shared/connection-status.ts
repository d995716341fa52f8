/** Where a connection's API token is kept: the OS keychain, or memory for this session only. */
export type TokenPlace = 'keychain' | 'session'

/** What the UI shows beside a connection: never its token. */
export interface ConnectionStatus {
  connectionId: string
  /**
   * Where its token is kept; null when no token is known (a session-only token after a restart,
   * or an entry deleted from the keychain by hand): the person must give it again.
   */
  tokenPlace: TokenPlace | null
  /** The server refused the token: sync stops until `connections.updateToken`. */
  needsNewToken: boolean
  /** The API answered recently. */
  online: boolean
  /** When the API last answered (ISO), or null. */
  lastContactAt: string | null
  /** The built-in demo vault (the simulator, started by `demo.open`). */
  demo: boolean
  /** Why this build cannot open the connection's local copy; null when it can. */
  localCopy: LocalCopyRefusal | null
}

/**
 * A local copy (cache) this build refuses and leaves untouched: a newer Vault Desk wrote it, so
 * nothing in it was changed or lost, and the newer version can still use it.
 */
export interface LocalCopyRefusal {
  reason: 'newer_version'
  /** The copy's schema step, and the newest this build knows. */
  schema: number
  known: number
}
