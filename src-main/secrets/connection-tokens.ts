import type { TokenStorage, TokenStore } from './token-store.ts'

/**
 * The tokens of all connections: in the keychain, or (the person's choice when no keychain is
 * available) in memory for this session. A session token wins over a keychain entry, because it
 * is the one the person gave last.
 */
export class ConnectionTokens {
  readonly #keychain: TokenStore
  readonly #session: TokenStore

  constructor(keychain: TokenStore, session: TokenStore) {
    this.#keychain = keychain
    this.#session = session
  }

  async save(connectionId: string, token: string, storage: TokenStorage): Promise<void> {
    if (storage === 'keychain') {
      await this.#keychain.store(connectionId, token)
      await this.#session.remove(connectionId)
    } else {
      await this.#session.store(connectionId, token)
    }
  }

  /**
   * The token to use for a connection, or null when none is known (a session-only token after a
   * restart, or an entry deleted from the keychain by hand): the person must give it again.
   */
  async read(connectionId: string, storage: TokenStorage): Promise<string | null> {
    const sessionToken = await this.#session.read(connectionId)
    if (sessionToken !== null || storage === 'session') return sessionToken
    return this.#keychain.read(connectionId)
  }

  /** Forgets the token everywhere it may be; the keychain is only asked when it holds it. */
  async forget(connectionId: string, storage: TokenStorage): Promise<void> {
    if (storage === 'keychain') await this.#keychain.remove(connectionId)
    await this.#session.remove(connectionId)
  }
}
