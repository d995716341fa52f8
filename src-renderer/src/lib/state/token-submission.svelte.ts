import type { ErrorValue, Result } from '../bridge.ts'

/** The form field an error belongs to, so that it is shown (and read aloud) beside it. */
export type CredentialField = 'name' | 'baseUrl' | 'token' | null

export interface FieldError {
  field: CredentialField
  message: string
}

/** Where a refusal of `connections.add` or `connections.updateToken` belongs in the form. */
export function fieldErrorOf(error: ErrorValue): FieldError {
  switch (error.code) {
    case 'authentication':
    case 'forbidden':
      return { field: 'token', message: error.message }
    case 'offline':
    case 'invalid_argument':
    case 'validation':
      return { field: /token/i.test(error.message) ? 'token' : 'baseUrl', message: error.message }
    case 'conflict':
      return { field: 'name', message: error.message }
    default:
      return { field: null, message: error.message }
  }
}

/**
 * Sending a token to main, as the connect and the new-token forms do. The token is checked with
 * the vault and kept in the keychain; when no keychain can be used, the form says why and offers
 * to keep the token for this session only, which sends it again with `sessionOnly`.
 */
export class TokenSubmission<T> {
  busy = $state(false)
  error = $state<FieldError | null>(null)
  /** Main's explanation of why the keychain cannot be used; set while the choice is offered. */
  keychainProblem = $state<string | null>(null)
  readonly #send: (sessionOnly: boolean) => Promise<Result<T>>

  constructor(send: (sessionOnly: boolean) => Promise<Result<T>>) {
    this.#send = send
  }

  /** Sends for the keychain; null unless it succeeded (the form then shows why not). */
  submit(): Promise<T | null> {
    return this.#attempt(false)
  }

  /** The person chose to keep the token in memory until Vault Desk closes. */
  useForThisSession(): Promise<T | null> {
    return this.#attempt(true)
  }

  /** Back from the keychain choice to the form, as it was. */
  reconsider(): void {
    this.keychainProblem = null
  }

  reset(): void {
    this.busy = false
    this.error = null
    this.keychainProblem = null
  }

  async #attempt(sessionOnly: boolean): Promise<T | null> {
    if (this.busy) return null
    this.busy = true
    this.error = null
    try {
      const result = await this.#send(sessionOnly)
      if (result.ok) {
        this.keychainProblem = null
        return result.value
      }
      if (result.error.code === 'keychain_unavailable' && !sessionOnly) {
        this.keychainProblem = result.error.message
      } else {
        this.keychainProblem = null
        this.error = fieldErrorOf(result.error)
      }
      return null
    } finally {
      this.busy = false
    }
  }
}
