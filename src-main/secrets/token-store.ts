/** Where a connection's API token is kept: the OS keychain, or memory for this session only. */
export type TokenStorage = 'keychain' | 'session'

/** Keeps API tokens by connection id. The only place tokens are read from or written to. */
export interface TokenStore {
  readonly storage: TokenStorage
  /** The token, or null when none is stored for this connection. */
  read(connectionId: string): Promise<string | null>
  store(connectionId: string, token: string): Promise<void>
  /** True when a token was there to remove. */
  remove(connectionId: string): Promise<boolean>
}
