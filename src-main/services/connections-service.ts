import type { ConnectionRegistry } from '../store/connection-registry.ts'
import type { ConnectionRecord } from '../store/connections-repository.ts'
import { AppError } from '../shared/app-error.ts'
import type { ConnectionSummary } from '../shared/connection.ts'
import type { ConnectionStatus, TokenPlace } from '../shared/connection-status.ts'
import type { EventBus } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import type { Redactor } from '../shared/redactor.ts'
import type { SettingsRepository } from '../store/settings-repository.ts'
import { NewerSchemaError } from '../store/migrations.ts'
import type { ClientTuning, ConnectionRuntime } from './connection-runtime.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'
import type { SyncService } from './sync-service.ts'
import { checkToken, normalizeBaseUrl } from './token-check.ts'

export interface NewConnection {
  name: string
  baseUrl: string
  token: string
  /** Keep the token in memory for this session only (the keychain is unavailable). */
  sessionOnly: boolean
}

export interface AddedConnection {
  connection: ConnectionSummary
  tokenPlace: TokenPlace
  vaults: { id: number; name: string | null }[]
}

export interface ConnectionsServiceOptions {
  /** Base URLs to offer first (the organisation's hosts, from the config). */
  usualBaseUrls: readonly string[]
  registry: ConnectionRegistry
  settings: SettingsRepository
  runtimes: ConnectionRuntimes
  sync: SyncService
  events: EventBus
  log: Logger
  redactor: Redactor
  tuning: ClientTuning
  /** Changes a saved connection's base URL (the repository has no such operation yet). */
  moveConnection: (connectionId: string, baseUrl: string) => void
}

const demoKey = 'demo.connectionId'

/**
 * Saved connections: adding one (URL and token checked with GET /vaults, the token kept in the
 * keychain or, when the person chooses, for this session), giving one a new token, removing one
 * (its token, its sync and, when confirmed, its cache). Tokens never leave through here.
 */
export class ConnectionsService {
  readonly #options: ConnectionsServiceOptions

  constructor(options: ConnectionsServiceOptions) {
    this.#options = options
  }

  list(): ConnectionSummary[] {
    return this.#options.registry.list()
  }

  get(connectionId: string): ConnectionRecord {
    return this.#options.registry.get(connectionId)
  }

  /** The saved connection of that name (names are unique regardless of case), or null. */
  byName(name: string): ConnectionRecord | null {
    const wanted = name.trim().toLowerCase()
    const found = this.list().find((connection) => connection.name.toLowerCase() === wanted)
    return found ? this.get(found.id) : null
  }

  isDemo(connectionId: string): boolean {
    return this.#options.settings.get(demoKey) === connectionId
  }

  async statuses(): Promise<ConnectionStatus[]> {
    const { registry, runtimes } = this.#options
    return Promise.all(
      registry.list().map(async ({ id }) => {
        let runtime: ConnectionRuntime
        try {
          runtime = runtimes.get(id)
        } catch (error) {
          if (!(error instanceof NewerSchemaError)) throw error
          return this.#refusedStatus(id, error)
        }
        const token = await runtime.token().catch(() => null)
        const connectivity = runtime.monitor.state
        return {
          connectionId: id,
          tokenPlace: token === null ? null : registry.get(id).tokenStorage,
          needsNewToken: runtime.client.needsNewToken,
          online: connectivity.online,
          lastContactAt: connectivity.lastContactAt,
          demo: this.isDemo(id),
          localCopy: null,
        }
      }),
    )
  }

  /** A connection whose cache this build refuses: no runtime, so it is neither online nor synced. */
  async #refusedStatus(id: string, refusal: NewerSchemaError): Promise<ConnectionStatus> {
    const { registry } = this.#options
    const token = await registry.token(id).catch(() => null)
    return {
      connectionId: id,
      tokenPlace: token === null ? null : registry.get(id).tokenStorage,
      needsNewToken: false,
      online: false,
      lastContactAt: null,
      demo: this.isDemo(id),
      localCopy: { reason: 'newer_version', schema: refusal.version, known: refusal.known },
    }
  }

  /** The organisation's usual hosts, then the base URLs of saved connections. */
  baseUrls(): string[] {
    const saved = this.list()
      .filter((connection) => !this.isDemo(connection.id))
      .map((connection) => connection.baseUrl)
    return [...new Set([...this.#options.usualBaseUrls, ...saved])]
  }

  async add(connection: NewConnection): Promise<AddedConnection> {
    const { registry, events, log } = this.#options
    const baseUrl = normalizeBaseUrl(connection.baseUrl)
    if (this.byName(connection.name)) {
      throw new AppError(
        'conflict',
        `A connection named "${connection.name.trim()}" already exists.`,
      )
    }
    const vaults = await checkToken(baseUrl, connection.token, this.#options)
    const record = await registry.add({
      name: connection.name,
      baseUrl,
      token: connection.token,
      tokenStorage: connection.sessionOnly ? 'session' : 'keychain',
    })
    log.info('connection added', {
      connectionId: record.id,
      baseUrl,
      tokenPlace: record.tokenStorage,
    })
    events.emit('connections.changed', { connectionIds: [record.id] })
    this.#options.sync.track(record.id)
    return {
      connection: summaryOf(record),
      tokenPlace: record.tokenStorage,
      vaults: vaults.map((vault) => ({ id: vault.id, name: vault.name ?? null })),
    }
  }

  /** Checks a new token for a saved connection, keeps it, and resumes its sync. */
  async updateToken(update: {
    connectionId: string
    token: string
    sessionOnly: boolean
  }): Promise<ConnectionStatus> {
    const { registry, runtimes, events, log } = this.#options
    const record = registry.get(update.connectionId)
    await checkToken(record.baseUrl, update.token, this.#options)
    const storage = update.sessionOnly ? 'session' : 'keychain'
    await registry.setToken(record.id, update.token, storage)
    runtimes.get(record.id).useToken(update.token.trim())
    log.info('connection token replaced', { connectionId: record.id, tokenPlace: storage })
    events.emit('connections.changed', { connectionIds: [record.id] })
    this.#options.sync.track(record.id)
    const statuses = await this.statuses()
    return statuses.find((status) => status.connectionId === record.id)!
  }

  /**
   * Removes a saved connection: stops its sync, forgets its token (refused, with the keychain's
   * message, rather than leave it behind in an unreachable keychain), and deletes its cache files
   * when the person confirmed it (`deleteCache`).
   */
  async remove(
    connectionId: string,
    options: { deleteCache: boolean },
  ): Promise<{ connectionId: string; deletedFiles: string[] }> {
    const { registry, runtimes, events, log, sync, settings } = this.#options
    const record = registry.get(connectionId)
    this.#refuseRemovingNewerCopy(record)
    await sync.untrack(connectionId)
    const { deletedFiles } = await runtimes.removing(connectionId, () =>
      registry.remove(connectionId, options),
    )
    if (this.isDemo(connectionId)) settings.delete(demoKey)
    log.info('connection removed', { connectionId, deletedFiles: deletedFiles.length })
    events.emit('connections.changed', { connectionIds: [connectionId] })
    return { connectionId, deletedFiles }
  }

  /**
   * A connection whose local copy a newer Vault Desk wrote belongs to that version: removing it
   * here would take its saved connection and token away from the newer version too (they share the
   * data folder), and deleting the copy would lose what it holds.
   */
  #refuseRemovingNewerCopy(record: ConnectionRecord): void {
    try {
      this.#options.runtimes.get(record.id)
    } catch (error) {
      if (!(error instanceof NewerSchemaError)) return
      throw new AppError(
        'conflict',
        `"${record.name}" belongs to a newer Vault Desk (its local copy is that version's), so it ` +
          'was not removed and nothing of it was deleted. Remove it from the newer Vault Desk.',
      )
    }
  }

  /**
   * Adds the demo vault's connection, or points the existing one (same id, same cache) at the
   * simulator's new address, with the token it derives again, kept for this session.
   */
  async openDemo(name: string, baseUrl: string, token: string): Promise<AddedConnection> {
    const { settings, registry, runtimes, events, sync } = this.#options
    const existing = settings.get(demoKey)
    if (!existing || !this.list().some((connection) => connection.id === existing)) {
      const added = await this.add({
        name: this.#freeName(name),
        baseUrl,
        token,
        sessionOnly: true,
      })
      settings.set(demoKey, added.connection.id)
      return added
    }
    const vaults = await checkToken(baseUrl, token, this.#options)
    await sync.untrack(existing)
    await runtimes.close(existing)
    this.#options.moveConnection(existing, baseUrl)
    await registry.setToken(existing, token, 'session')
    events.emit('connections.changed', { connectionIds: [existing] })
    sync.track(existing)
    return {
      connection: summaryOf(registry.get(existing)),
      tokenPlace: 'session',
      vaults: vaults.map((vault) => ({ id: vault.id, name: vault.name ?? null })),
    }
  }

  #freeName(name: string): string {
    for (let suffix = 1; ; suffix++) {
      const candidate = suffix === 1 ? name : `${name} ${suffix}`
      if (!this.byName(candidate)) return candidate
    }
  }
}

function summaryOf({ id, name, baseUrl, createdAt }: ConnectionRecord): ConnectionSummary {
  return { id, name, baseUrl, createdAt }
}
