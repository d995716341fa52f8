import { createHash } from 'node:crypto'
import { Limiter } from './limiter.ts'

/** The service allows 3 requests in flight per user and 3 running exports (spec, Limits). */
const maxRequestsInFlight = 3
const maxRunningExports = 3

export interface ConnectionLimits {
  readonly requests: Limiter
  readonly exports: Limiter
}

/**
 * Limits belong to a user on a server, not to one client object: every window, the sync
 * scheduler and the CLI share them through one registry per process, keyed by origin and token.
 * The key holds a hash of the token so that the token itself is kept in fewer places.
 */
export class LimiterRegistry {
  readonly #limits = new Map<string, ConnectionLimits>()

  forConnection(origin: string, token: string): ConnectionLimits {
    const key = `${origin} ${createHash('sha256').update(token).digest('hex')}`
    let limits = this.#limits.get(key)
    if (!limits) {
      limits = {
        requests: new Limiter(maxRequestsInFlight),
        exports: new Limiter(maxRunningExports),
      }
      this.#limits.set(key, limits)
    }
    return limits
  }
}

export const processLimiters = new LimiterRegistry()
