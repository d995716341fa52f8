import type { SimStats } from './stats.ts'

/**
 * At most `limit` requests in flight per user, whatever token or connection they arrive on.
 * `tryAcquire` returns the release function, or undefined when the request must get a 429.
 * A slot is released when the answer has been handed to the socket (or the socket closed), so a
 * client that waits for each answer before sending the next request never trips it.
 */
export class InFlightLimit {
  readonly #limit: number
  readonly #stats: SimStats
  readonly #counts = new Map<number, number>()

  constructor(limit: number, stats: SimStats) {
    this.#limit = limit
    this.#stats = stats
  }

  tryAcquire(userId: number): (() => void) | undefined {
    const current = (this.#counts.get(userId) ?? 0) + 1
    this.#stats.maxInFlightPerUser = Math.max(this.#stats.maxInFlightPerUser, current)
    if (current > this.#limit) {
      this.#stats.concurrencyRejections++
      return undefined
    }
    this.#counts.set(userId, current)
    this.#stats.inFlight++
    let released = false
    return () => {
      if (released) return
      released = true
      this.#stats.inFlight--
      const remaining = (this.#counts.get(userId) ?? 1) - 1
      if (remaining === 0) this.#counts.delete(userId)
      else this.#counts.set(userId, remaining)
    }
  }
}
