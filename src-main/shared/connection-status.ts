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
}
