import { randomUUID } from 'node:crypto'
import type { ConnectionTokens } from '../secrets/connection-tokens.ts'
import type { TokenStorage } from '../secrets/token-store.ts'
import { AppError } from '../shared/app-error.ts'
import type { ConnectionSummary } from '../shared/connection.ts'
import type { ConnectionCaches } from './connection-caches.ts'
import {
  connectionNotFound,
  type ConnectionRecord,
  type ConnectionsRepository,
} from './connections-repository.ts'

export interface NewConnection {
  name: string
  baseUrl: string
  token: string
  /** 'session' only after the person chose it because the keychain is unavailable. */
  tokenStorage: TokenStorage
}

export interface RemovedConnection {
  /** The cache files deleted; empty unless the caller confirmed deleting the cache. */
  deletedFiles: string[]
}

/**
 * Adds, renames and removes saved connections, keeping each one's token in the keychain (or for
 * this session) and never in SQLite, and its cache in its own file.
 */
export class ConnectionRegistry {
  readonly #repository: ConnectionsRepository
  readonly #tokens: ConnectionTokens
  readonly #caches: ConnectionCaches

  constructor(
    repository: ConnectionsRepository,
    tokens: ConnectionTokens,
    caches: ConnectionCaches,
  ) {
    this.#repository = repository
    this.#tokens = tokens
    this.#caches = caches
  }

  list(): ConnectionSummary[] {
    return this.#repository.list()
  }

  get(id: string): ConnectionRecord {
    const connection = this.#repository.get(id)
    if (!connection) throw connectionNotFound(id)
    return connection
  }

  /**
   * Saves a connection and its token. With tokenStorage 'keychain' and no keychain available this
   * throws AppError('keychain_unavailable') and saves nothing; the person may then choose
   * 'session'.
   */
  async add(input: NewConnection): Promise<ConnectionRecord> {
    const connection: ConnectionRecord = {
      id: randomUUID(),
      name: connectionName(input.name),
      baseUrl: serviceAddress(input.baseUrl),
      createdAt: new Date().toISOString(),
      tokenStorage: input.tokenStorage,
    }
    if (this.#repository.list().some((other) => sameName(other.name, connection.name))) {
      throw new AppError('conflict', `A connection named "${connection.name}" already exists.`)
    }
    await this.#tokens.save(connection.id, apiToken(input.token), input.tokenStorage)
    try {
      this.#repository.insert(connection)
    } catch (error) {
      await this.#tokens.forget(connection.id, input.tokenStorage)
      throw error
    }
    return connection
  }

  rename(id: string, name: string): ConnectionRecord {
    this.#repository.rename(id, connectionName(name))
    return this.get(id)
  }

  /** Replaces a connection's token (a new token, or a session-only one given again). */
  async setToken(id: string, token: string, storage: TokenStorage): Promise<void> {
    const connection = this.get(id)
    await this.#tokens.save(id, apiToken(token), storage)
    if (connection.tokenStorage === 'keychain' && storage === 'session') return
    this.#repository.setTokenStorage(id, storage)
  }

  /** The token to call the service with, or null when the person must give it (again). */
  async token(id: string): Promise<string | null> {
    return this.#tokens.read(id, this.get(id).tokenStorage)
  }

  /**
   * Removes a connection: its keychain entry first (if the keychain cannot be reached, nothing is
   * removed and AppError('keychain_unavailable') says so), then its row, then, only when the
   * person confirmed it, its cache files.
   */
  async remove(id: string, options: { deleteCache: boolean }): Promise<RemovedConnection> {
    const connection = this.get(id)
    await this.#tokens.forget(id, connection.tokenStorage)
    this.#repository.delete(id)
    if (!options.deleteCache) {
      await this.#caches.close(id)
      return { deletedFiles: [] }
    }
    return { deletedFiles: await this.#caches.delete(id) }
  }
}

function connectionName(name: string): string {
  const trimmed = name.trim()
  if (trimmed === '') throw new AppError('invalid_argument', 'A connection needs a name.')
  if (trimmed.length > 100) {
    throw new AppError('invalid_argument', 'A connection name has at most 100 characters.')
  }
  return trimmed
}

function sameName(a: string, b: string): boolean {
  return a.localeCompare(b, undefined, { sensitivity: 'accent' }) === 0
}

/** Tokens are pasted: surrounding whitespace is never part of them. */
function apiToken(token: string): string {
  const trimmed = token.trim()
  if (trimmed === '') throw new AppError('invalid_argument', 'The API token is empty.')
  return trimmed
}

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * The service's base URL (ending in its version segment, such as /api/v1): HTTPS, or plain
 * HTTP to this machine only (the simulator, tests). Credentials in the URL are refused, since
 * the URL is stored in plain SQLite.
 */
function serviceAddress(baseUrl: string): string {
  let url: URL
  try {
    url = new URL(baseUrl.trim())
  } catch {
    throw new AppError('invalid_argument', `Not a URL: "${baseUrl}".`)
  }
  const loopback = loopbackHosts.has(url.hostname) || url.hostname.startsWith('127.')
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new AppError(
      'invalid_argument',
      `The service address must use https:// (plain http:// only for this machine): "${baseUrl}".`,
    )
  }
  if (url.username || url.password) {
    throw new AppError(
      'invalid_argument',
      'The service address must not contain a user name or password; the API token is asked for separately.',
    )
  }
  if (url.search || url.hash) {
    throw new AppError(
      'invalid_argument',
      `The service address must not have a query or fragment: "${baseUrl}".`,
    )
  }
  return url.toString().replace(/\/+$/, '')
}
