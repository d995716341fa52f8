import type { ApiCall, CallOptions, VaultClient } from '../api/index.ts'
import { ApiError } from '../api/index.ts'
import type { Logger } from '../shared/logger.ts'

const thirtyDaysMs = 30 * 86_400_000
/** Used only when the server cannot tell its time: covers a local clock this far ahead of it. */
const localClockMarginMs = 10 * 60_000

/**
 * The server's time, learned from the `Date` header of its answers, without a request of its own.
 * Passes begin at server time so that records changed while a pass pages through the server are
 * fetched by the next one; only the server's clock stamps `modified_at`, and a lab machine's
 * clock may be off.
 *
 * An answer stamped D (whole seconds, so the true moment is at least D) that arrived at local
 * moment e shows that at any local moment t the server's clock read at least D + (t - e): the
 * largest such bound over the answers seen is kept, on the monotonic local clock. So the server
 * time of a moment before a pass sent its first request is known as soon as any answer came, even
 * that pass's own first answer. Without any Date header (a proxy may drop it), the server is asked
 * GET /api_executions, whose default range ends now and begins 30 days earlier.
 */
export class ServerClock {
  readonly #client: VaultClient
  readonly #log: Logger
  readonly #stop: () => void
  /** The largest (server time - local monotonic time) any answer proved, in milliseconds. */
  #offset: number | null = null

  constructor(client: VaultClient, log: Logger) {
    this.#client = client
    this.#log = log
    this.#stop = client.onCall((call) => this.observe(call))
  }

  /** A local moment (performance.now()) whose server time may be asked for later. */
  moment(): number {
    return performance.now()
  }

  /** Takes the bound of one answer; the client tells every answer once the clock exists. */
  observe(call: Pick<ApiCall, 'serverDate'>, arrivedAt = performance.now()): void {
    if (call.serverDate === null) return
    const offset = call.serverDate - arrivedAt
    if (this.#offset === null || offset > this.#offset) this.#offset = offset
  }

  /**
   * The server's time at `moment`, to whole seconds (ISO, UTC), never later than it was. Asks
   * the server only when no answer so far carried a Date header.
   */
  async at(moment: number, vaultId: number, options: CallOptions): Promise<string> {
    if (this.#offset === null) await this.#askServer(vaultId, options)
    return wholeSeconds(moment + this.#offset!)
  }

  stop(): void {
    this.#stop()
  }

  async #askServer(vaultId: number, options: CallOptions): Promise<void> {
    const fallback = () => {
      this.#offset = Date.now() - localClockMarginMs - performance.now()
    }
    try {
      const usage = await this.#client.vaults.apiUsage(vaultId, {}, options)
      if (this.#offset !== null) return
      const after = usage.after ? Date.parse(usage.after) : Number.NaN
      if (Number.isNaN(after)) {
        this.#log.warn('the server did not say when its usage range begins; using the local clock')
        fallback()
        return
      }
      // The range ends at the server's now while it answered, which is a bound as a Date is.
      this.#offset = after + thirtyDaysMs - performance.now()
    } catch (error) {
      if (
        !(error instanceof ApiError) ||
        ['network', 'authentication', 'cancelled'].includes(error.kind)
      ) {
        throw error
      }
      this.#log.warn('cannot read the server time; using the local clock', {
        reason: error.message,
      })
      fallback()
    }
  }
}

function wholeSeconds(millis: number): string {
  return new Date(Math.floor(millis / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}
