import { VaultClient, type VaultClientOptions } from '../api/index.ts'
import { AppError } from '../shared/app-error.ts'
import type { Logger } from '../shared/logger.ts'
import type { Redactor } from '../shared/redactor.ts'
import type { VaultCache } from '../store/vault-cache.ts'
import {
  ConnectivityMonitor,
  type ConnectivityState,
  type ProbeBackoff,
} from '../sync/connectivity-monitor.ts'

/** Client settings the composition root may tune (tests poll exports and back off faster). */
export type ClientTuning = Pick<
  VaultClientOptions,
  'exportPolling' | 'retry' | 'timeoutMs' | 'limiters'
>

export interface ConnectionRuntimeOptions {
  id: string
  name: string
  baseUrl: string
  /** The connection's cache, as open now (a damaged cache is replaced by a fresh one). */
  cache: () => VaultCache
  /** Reads the token when a request first needs it; null when none is known. */
  readToken: () => Promise<string | null>
  log: Logger
  redactor: Redactor
  tuning: ClientTuning
  /** Delays between probes while the API is out of reach. */
  probeBackoff: ProbeBackoff | undefined
  onConnectivity: (state: ConnectivityState) => void
  onTokenRefused: (message: string) => void
}

/**
 * A connection at work: its client (with the token read once and kept in memory), its cache, its
 * connectivity, and how many requests its client has sent.
 */
export class ConnectionRuntime {
  readonly id: string
  readonly name: string
  readonly baseUrl: string
  readonly client: VaultClient
  readonly monitor: ConnectivityMonitor
  #requests = 0
  #token: string | null | undefined
  readonly #readToken: () => Promise<string | null>
  readonly #cache: () => VaultCache

  constructor(options: ConnectionRuntimeOptions) {
    this.id = options.id
    this.name = options.name
    this.baseUrl = options.baseUrl
    this.#cache = options.cache
    this.#readToken = options.readToken
    this.monitor = new ConnectivityMonitor({
      probe: async () => {
        await this.client.vaults.list({ priority: 'background' })
      },
      onChange: options.onConnectivity,
      ...(options.probeBackoff ? { backoff: options.probeBackoff } : {}),
    })
    this.client = new VaultClient({
      ...options.tuning,
      baseUrl: options.baseUrl,
      token: () => this.#requireToken(),
      logger: options.log,
      redactor: options.redactor,
    })
    this.client.onCall((call) => {
      this.#requests++
      this.monitor.observe(call)
    })
    this.client.onNeedsNewToken((rejection) => options.onTokenRefused(rejection.message))
  }

  get cache(): VaultCache {
    return this.#cache()
  }

  /** HTTP requests sent so far (retries included). */
  get requests(): number {
    return this.#requests
  }

  /** The token, read from where it is kept on first use; null when none is known. */
  async token(): Promise<string | null> {
    if (this.#token === undefined) this.#token = await this.#readToken()
    return this.#token
  }

  /** A token the person just gave, checked already. */
  useToken(token: string): void {
    this.#token = token
    this.client.setToken(() => this.#requireToken())
  }

  /** Stops probing; the cache is closed by whoever opened it. */
  stop(): void {
    this.monitor.stop()
  }

  async #requireToken(): Promise<string> {
    const token = await this.token()
    if (token === null) {
      throw new AppError(
        'authentication',
        `No API token is known for the connection "${this.name}": give it again.`,
      )
    }
    return token
  }
}
