import { backoffDelay, type RetryPolicy } from '../api/backoff.ts'
import type { ApiCall } from '../api/index.ts'

export interface ConnectivityState {
  online: boolean
  /** When the API last answered (ISO), or null. */
  lastContactAt: string | null
  /** When the next probe runs while offline (ISO), else null. */
  nextProbeAt: string | null
}

export type ProbeBackoff = Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>

export interface ConnectivityOptions {
  /** Asks the API something cheap (GET /vaults); resolves when it answered at all. */
  probe: () => Promise<void>
  onChange: (state: ConnectivityState) => void
  /** Delays between probes while offline; exponential with full jitter. */
  backoff?: ProbeBackoff
  random?: () => number
}

const defaultBackoff = { baseDelayMs: 2_000, maxDelayMs: 5 * 60_000 }

/**
 * Whether a connection's API answers. Online means it answered the last request; a request the
 * network could not deliver switches it offline, and from then on a probe runs with growing
 * delays until the API answers again. `navigator.onLine` is never consulted: a lab network may be
 * up while the service is out of reach.
 */
export class ConnectivityMonitor {
  readonly #options: ConnectivityOptions
  #state: ConnectivityState = { online: false, lastContactAt: null, nextProbeAt: null }
  #timer: NodeJS.Timeout | undefined
  #failedProbes = 0
  #stopped = false

  constructor(options: ConnectivityOptions) {
    this.#options = options
  }

  get state(): ConnectivityState {
    return this.#state
  }

  /**
   * Feeds every attempt of the connection's clients (VaultClient.onCall). An answer of any status
   * means the API is there; an attempt the network lost (a body broken halfway too) means it may
   * not be; a cancelled one says nothing.
   */
  observe(call: Pick<ApiCall, 'status' | 'kind'>): void {
    if (call.kind === 'network') this.unreachable()
    else if (call.status !== null) this.answered()
  }

  answered(): void {
    this.#clearProbe()
    this.#failedProbes = 0
    this.#set({ online: true, lastContactAt: new Date().toISOString(), nextProbeAt: null })
  }

  unreachable(): void {
    if (this.#stopped || this.#timer) return
    const delay = backoffDelay(
      { attempts: Infinity, maxRetryAfterMs: 0, ...(this.#options.backoff ?? defaultBackoff) },
      this.#failedProbes + 1,
      this.#options.random,
    )
    this.#timer = setTimeout(() => void this.#probe(), delay)
    this.#timer.unref()
    this.#set({
      ...this.#state,
      online: false,
      nextProbeAt: new Date(Date.now() + delay).toISOString(),
    })
  }

  stop(): void {
    this.#stopped = true
    this.#clearProbe()
  }

  async #probe(): Promise<void> {
    this.#timer = undefined
    try {
      await this.#options.probe()
      this.answered()
    } catch {
      // The probe's own request has reported what it saw (an answer puts the state online).
      if (this.#state.online) return
      this.#failedProbes++
      this.unreachable()
    }
  }

  #clearProbe(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
  }

  #set(next: ConnectivityState): void {
    const changed =
      next.online !== this.#state.online || next.nextProbeAt !== this.#state.nextProbeAt
    this.#state = next
    if (changed) this.#options.onChange(next)
  }
}
