import { createHistogram, type RecordableHistogram } from 'node:perf_hooks'

/**
 * How long the main thread's event loop is held, sampled only while started: a timer asks to run
 * every millisecond, and each run records how late it came. Benchmarks that measure in spans,
 * with their own blocking work in between, use it instead of monitorEventLoopDelay: that one,
 * enabled again, records the whole time it was disabled as a single delay (store-ingest reported
 * a 2 s "max" that was its own bare inserts between blocks).
 */
export class EventLoopDelay {
  readonly #histogram: RecordableHistogram = createHistogram()
  #timer: NodeJS.Timeout | undefined

  start(): void {
    if (this.#timer) return
    let due = performance.now() + 1
    this.#timer = setInterval(() => {
      const now = performance.now()
      // The histogram holds positive integers: nanoseconds, at least one.
      this.#histogram.record(Math.max(1, Math.round((now - due) * 1e6)))
      due = now + 1
    }, 1)
  }

  stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }

  /** The delay at a percentile (0 to 100) of the samples taken, in milliseconds. */
  percentileMs(percentile: number): number {
    return this.#histogram.count === 0 ? 0 : this.#histogram.percentile(percentile) / 1e6
  }

  maxMs(): number {
    return this.#histogram.count === 0 ? 0 : this.#histogram.max / 1e6
  }
}
