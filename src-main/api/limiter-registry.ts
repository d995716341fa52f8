import { Limiter, type SharedSlots } from './limiter.ts'

/** The service allows 3 requests in flight per user and 3 running exports (spec, Limits). */
const maxRequestsInFlight = 3
const maxRunningExports = 3

export interface ConnectionLimits {
  readonly requests: Limiter
  readonly exports: Limiter
}

export interface LimiterRegistryOptions {
  /**
   * Request slots shared with the other processes of one data folder, per origin (the app and
   * the CLI together); without it the limits hold within this process only.
   */
  sharedRequestSlots?: (origin: string, capacity: number) => SharedSlots
  /** Running-export places shared the same way: the app and the CLI run 3 exports together. */
  sharedExportSlots?: (origin: string, capacity: number) => SharedSlots
}

/**
 * Limits belong to a user on a server, not to one client object: every window, the sync
 * scheduler and the CLI share them through one registry per process. The service counts requests
 * per user whatever key they carry, and a user may hold several tokens (a second one for the CLI,
 * a new one while the old still works), so the limits are keyed by origin alone: two tokens of
 * one server share them, which at worst makes two users of one server on one machine wait for
 * each other.
 */
export class LimiterRegistry {
  readonly #limits = new Map<string, ConnectionLimits>()
  readonly #options: LimiterRegistryOptions

  constructor(options: LimiterRegistryOptions = {}) {
    this.#options = options
  }

  forOrigin(origin: string): ConnectionLimits {
    let limits = this.#limits.get(origin)
    if (!limits) {
      limits = {
        requests: new Limiter(
          maxRequestsInFlight,
          this.#options.sharedRequestSlots?.(origin, maxRequestsInFlight),
        ),
        exports: new Limiter(
          maxRunningExports,
          this.#options.sharedExportSlots?.(origin, maxRunningExports),
        ),
      }
      this.#limits.set(origin, limits)
    }
    return limits
  }
}

export const processLimiters = new LimiterRegistry()
