import { createHash } from 'node:crypto'
import { AppError } from '../shared/app-error.ts'
import type { EventBus } from '../shared/events.ts'
import type { Logger } from '../shared/logger.ts'
import type { Redactor } from '../shared/redactor.ts'
import type { CacheRecovery } from '../store/cache-database.ts'
import type { ConnectionCaches } from '../store/connection-caches.ts'
import type { ConnectionRegistry } from '../store/connection-registry.ts'
import type { ProbeBackoff } from '../sync/connectivity-monitor.ts'
import { ConnectionRuntime, type ClientTuning } from './connection-runtime.ts'

export interface ConnectionRuntimesOptions {
  registry: ConnectionRegistry
  caches: ConnectionCaches
  events: EventBus
  log: Logger
  redactor: Redactor
  tuning: ClientTuning
  probeBackoff?: ProbeBackoff
  /** The connection's API answered again after being out of reach. */
  onReconnected: (connectionId: string) => void
  /** The server refused the connection's token. */
  onTokenRefused: (runtime: ConnectionRuntime, message: string) => void
}

/**
 * The runtimes of connections, opened on first use (client, connectivity; the cache through
 * ConnectionCaches) and kept until the connection is removed or the services close.
 */
export class ConnectionRuntimes {
  readonly #options: ConnectionRuntimesOptions
  readonly #open = new Map<string, ConnectionRuntime>()
  readonly #verified = new Set<string>()
  /** Connections being removed: nothing may open them again meanwhile. */
  readonly #removing = new Set<string>()

  constructor(options: ConnectionRuntimesOptions) {
    this.#options = options
  }

  get(connectionId: string): ConnectionRuntime {
    const opened = this.#open.get(connectionId)
    if (opened) return opened
    if (this.#removing.has(connectionId)) {
      throw new AppError('not_found', `The connection ${connectionId} is being removed.`)
    }
    const { registry } = this.#options
    const record = registry.get(connectionId)
    return this.#create(record.id, record.name, record.baseUrl, () => registry.token(record.id))
  }

  /** Runtimes opened so far. */
  opened(): ConnectionRuntime[] {
    return [...this.#open.values()]
  }

  /**
   * A runtime for headless use (`--base-url` and `--token-env`): nothing is saved but the cache,
   * whose file is named after a one-way digest of the URL and the token, so that two people's
   * tokens on one machine never share a cache.
   */
  headless(baseUrl: string, token: string): ConnectionRuntime {
    const digest = createHash('sha256').update(`${baseUrl}\n${token}`).digest('hex').slice(0, 24)
    const id = `headless-${digest}`
    return this.#create(id, baseUrl, baseUrl, async () => token)
  }

  /**
   * Checks every page of a connection's cache once per run of the app (in a worker); a damaged
   * cache is set aside, a fresh one opened in its place, and `cache.rebuilt` announced.
   */
  async verifyOnce(connectionId: string): Promise<void> {
    if (this.#verified.has(connectionId)) return
    this.#verified.add(connectionId)
    const recovery = await this.#options.caches.verify(connectionId)
    if (recovery) this.#announceRecovery(connectionId, recovery)
  }

  /** Stops a connection's runtime and closes its cache; both reopen on next use. */
  async close(connectionId: string): Promise<void> {
    this.#open.get(connectionId)?.stop()
    this.#open.delete(connectionId)
    await this.#options.caches.close(connectionId)
  }

  /** Closes a connection's runtime and runs its removal, refusing to open it again meanwhile. */
  async removing<T>(connectionId: string, removal: () => Promise<T>): Promise<T> {
    this.#removing.add(connectionId)
    try {
      await this.close(connectionId)
      return await removal()
    } finally {
      this.#removing.delete(connectionId)
    }
  }

  async closeAll(): Promise<void> {
    for (const runtime of this.#open.values()) runtime.stop()
    this.#open.clear()
    await this.#options.caches.closeAll()
  }

  #create(
    id: string,
    name: string,
    baseUrl: string,
    readToken: () => Promise<string | null>,
  ): ConnectionRuntime {
    const { events, log, caches } = this.#options
    const { recovery } = caches.open(id)
    let outage = false
    const runtime: ConnectionRuntime = new ConnectionRuntime({
      id,
      name,
      baseUrl,
      cache: () => caches.open(id).cache,
      readToken,
      log: log.child({ connectionId: id }),
      redactor: this.#options.redactor,
      tuning: this.#options.tuning,
      probeBackoff: this.#options.probeBackoff,
      onConnectivity: (state) => {
        events.emit('connectivity.changed', { connectionId: id, ...state })
        if (!state.online) outage = true
        else if (outage) {
          outage = false
          this.#options.onReconnected(id)
        }
      },
      onTokenRefused: (message) => this.#options.onTokenRefused(runtime, message),
    })
    this.#open.set(id, runtime)
    // Told once the runtime is open, so that whoever listens finds the connection (its name).
    if (recovery) this.#announceRecovery(id, recovery)
    return runtime
  }

  #announceRecovery(connectionId: string, recovery: CacheRecovery): void {
    this.#options.log.warn('cache rebuilt', { connectionId, ...recovery })
    this.#options.events.emit('cache.rebuilt', { connectionId, ...recovery })
  }
}
