import type { Redactor } from '../shared/redactor.ts'

/** A token, or a function that reads it (from the keychain) when a request needs it. */
export type TokenSource = string | (() => string | Promise<string>)

export interface TokenRejection {
  operation: string
  message: string
}

export type TokenRejectionListener = (rejection: TokenRejection) => void

/**
 * Holds how a connection gets its token and whether the server has refused it. A 401 marks the
 * connection as needing a new token until a different token is supplied; listeners hear of it
 * once per rejected token, so that the sync layer can stop and ask the person.
 */
export class Credentials {
  #source: TokenSource
  readonly #redactor: Redactor | undefined
  readonly #listeners = new Set<TokenRejectionListener>()
  #rejectedToken: string | undefined

  constructor(source: TokenSource, redactor?: Redactor) {
    this.#source = source
    this.#redactor = redactor
  }

  get needsNewToken(): boolean {
    return this.#rejectedToken !== undefined
  }

  async token(): Promise<string> {
    const token = typeof this.#source === 'string' ? this.#source : await this.#source()
    if (typeof token !== 'string' || token.length === 0) {
      throw new TypeError('The token source gave no token.')
    }
    this.#redactor?.add(token)
    if (this.#rejectedToken !== undefined && token !== this.#rejectedToken) {
      this.#rejectedToken = undefined
    }
    return token
  }

  replace(source: TokenSource): void {
    this.#source = source
    this.#rejectedToken = undefined
  }

  reject(token: string, rejection: TokenRejection): void {
    if (this.#rejectedToken === token) return
    this.#rejectedToken = token
    for (const listener of this.#listeners) listener(rejection)
  }

  onRejected(listener: TokenRejectionListener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }
}
