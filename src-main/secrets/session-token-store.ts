import type { Redactor } from '../shared/redactor.ts'
import type { TokenStore } from './token-store.ts'

/**
 * Tokens held in memory only, for a person who chose to use a token for this session because no
 * keychain is available. They are gone when the process ends.
 */
export class SessionTokenStore implements TokenStore {
  readonly storage = 'session'
  readonly #tokens = new Map<string, string>()
  readonly #redactor: Redactor

  constructor(redactor: Redactor) {
    this.#redactor = redactor
  }

  async read(connectionId: string): Promise<string | null> {
    return this.#tokens.get(connectionId) ?? null
  }

  async store(connectionId: string, token: string): Promise<void> {
    this.#redactor.add(token)
    this.#tokens.set(connectionId, token)
  }

  async remove(connectionId: string): Promise<boolean> {
    return this.#tokens.delete(connectionId)
  }
}
