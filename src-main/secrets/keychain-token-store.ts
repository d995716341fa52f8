import { randomUUID } from 'node:crypto'
import type * as Keytar from 'keytar'
import { AppError } from '../shared/app-error.ts'
import type { Redactor } from '../shared/redactor.ts'
import {
  classifyKeychainFailure,
  KeychainUnavailableError,
  type KeychainFailureReason,
} from './keychain-failure.ts'
import type { TokenStore } from './token-store.ts'

/** The keychain entries of Vault Desk: service "Vault Desk", account = the connection's id. */
export const keychainService = 'Vault Desk'
const probeAccount = 'vault-desk-availability-probe'

export type KeychainBackend = Pick<typeof Keytar, 'getPassword' | 'setPassword' | 'deletePassword'>

export type KeychainAvailability =
  { available: true } | { available: false; reason: KeychainFailureReason; message: string }

export interface KeychainTokenStoreOptions {
  platform?: NodeJS.Platform
  /** keytar by default; loaded on first use, because loading it fails where libsecret is missing. */
  loadBackend?: () => Promise<KeychainBackend>
}

/** Tokens in the OS keychain through keytar (libsecret on Linux). */
export class KeychainTokenStore implements TokenStore {
  readonly storage = 'keychain'
  readonly #redactor: Redactor
  readonly #platform: NodeJS.Platform
  readonly #loadBackend: () => Promise<KeychainBackend>
  #backend: Promise<KeychainBackend> | undefined

  constructor(redactor: Redactor, options: KeychainTokenStoreOptions = {}) {
    this.#redactor = redactor
    this.#platform = options.platform ?? process.platform
    this.#loadBackend = options.loadBackend ?? loadKeytar
  }

  async read(connectionId: string): Promise<string | null> {
    const token = await this.#use((keychain) => keychain.getPassword(keychainService, connectionId))
    if (token !== null) this.#redactor.add(token)
    return token
  }

  async store(connectionId: string, token: string): Promise<void> {
    if (token.trim() === '') throw new AppError('invalid_argument', 'The API token is empty.')
    this.#redactor.add(token)
    await this.#use((keychain) => keychain.setPassword(keychainService, connectionId, token))
  }

  async remove(connectionId: string): Promise<boolean> {
    return this.#use((keychain) => keychain.deletePassword(keychainService, connectionId))
  }

  /**
   * Writes and deletes a probe entry: reading alone succeeds on a locked keyring (it finds
   * nothing), so only a write shows whether tokens can be kept. On a desktop the write may
   * show the keyring's unlock prompt, which is what the person needs at that moment.
   */
  async checkAvailability(): Promise<KeychainAvailability> {
    try {
      await this.#use(async (keychain) => {
        await keychain.setPassword(keychainService, probeAccount, randomUUID())
        await keychain.deletePassword(keychainService, probeAccount)
      })
      return { available: true }
    } catch (error) {
      if (!(error instanceof KeychainUnavailableError)) throw error
      return { available: false, reason: error.reason, message: error.message }
    }
  }

  async #use<T>(operation: (keychain: KeychainBackend) => Promise<T>): Promise<T> {
    let keychain: KeychainBackend
    try {
      this.#backend ??= this.#loadBackend()
      keychain = await this.#backend
    } catch (error) {
      this.#backend = undefined
      throw this.#failure('library_missing', error)
    }
    try {
      return await operation(keychain)
    } catch (error) {
      throw this.#failure(classifyKeychainFailure(messageOf(error), this.#platform), error)
    }
  }

  #failure(reason: KeychainFailureReason, error: unknown): KeychainUnavailableError {
    const detail = this.#redactor.redactText(messageOf(error))
    return new KeychainUnavailableError(reason, detail, this.#platform, { cause: error })
  }
}

async function loadKeytar(): Promise<KeychainBackend> {
  const module = (await import('keytar')) as typeof Keytar & { default?: typeof Keytar }
  return module.default ?? module
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
