import type { Slot } from './limiter.ts'

/**
 * One try of one request: its limiter slot and its deadline. The deadline is idle time, restarted
 * by `touch()` as a body streams in, so a large download is not cut off while data still flows.
 * When the caller's signal aborts or the deadline passes, the slot goes back at once, even if the
 * code holding the response is not running at that moment.
 */
export class Attempt {
  readonly signal: AbortSignal
  readonly #slot: Slot
  readonly #deadline = new AbortController()
  readonly #timeoutMs: number
  readonly #callerSignal: AbortSignal | undefined
  #timer: NodeJS.Timeout | undefined
  #detached = false
  #timedOut = false

  constructor(slot: Slot, timeoutMs: number, callerSignal: AbortSignal | undefined) {
    this.#slot = slot
    this.#timeoutMs = timeoutMs
    this.#callerSignal = callerSignal
    this.signal = callerSignal
      ? AbortSignal.any([callerSignal, this.#deadline.signal])
      : this.#deadline.signal
    this.signal.addEventListener('abort', () => this.end(), { once: true })
    this.touch()
  }

  get timedOut(): boolean {
    return this.#timedOut
  }

  get timeoutMs(): number {
    return this.#timeoutMs
  }

  get cancelledByCaller(): boolean {
    return this.#callerSignal?.aborted === true
  }

  touch(): void {
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => {
      this.#timedOut = true
      this.#deadline.abort(
        new DOMException(`No answer within ${this.#timeoutMs} ms.`, 'TimeoutError'),
      )
    }, this.#timeoutMs)
  }

  /** The request left the service's origin (a download redirect): it no longer counts there. */
  releaseSlot(): void {
    this.#slot.release()
  }

  /** Hands the attempt to whoever streams the body; they call `end()`. */
  detach(): void {
    this.#detached = true
  }

  /** Called by the retry loop when the try is over; a detached attempt outlives it. */
  settle(): void {
    if (!this.#detached) this.end()
  }

  end(): void {
    clearTimeout(this.#timer)
    this.#slot.release()
  }
}
