/**
 * The simulator's notion of now. Record timestamps, export progress and the default ranges of
 * api_executions all read it, so a test can move time instead of waiting.
 */
export class SimClock {
  #offsetMicros = 0
  #frozenAtMicros: number | undefined

  /** Microseconds since the epoch (inventory samples keep this precision). */
  nowMicros(): number {
    if (this.#frozenAtMicros !== undefined) return this.#frozenAtMicros
    return Math.round((performance.timeOrigin + performance.now()) * 1000) + this.#offsetMicros
  }

  nowMillis(): number {
    return Math.floor(this.nowMicros() / 1000)
  }

  /** Whole seconds since the epoch: the precision of every other stored timestamp. */
  nowSeconds(): number {
    return Math.floor(this.nowMicros() / 1_000_000)
  }

  advance(milliseconds: number): void {
    if (!Number.isFinite(milliseconds))
      throw new Error(`Cannot advance the clock by ${milliseconds}`)
    if (this.#frozenAtMicros !== undefined) this.#frozenAtMicros += Math.round(milliseconds * 1000)
    else this.#offsetMicros += Math.round(milliseconds * 1000)
  }

  /** Jumps to a moment; the clock keeps running from there unless it is frozen. */
  set(moment: Date | number): void {
    const targetMicros = (typeof moment === 'number' ? moment : moment.getTime()) * 1000
    if (!Number.isFinite(targetMicros)) throw new Error(`Cannot set the clock to ${String(moment)}`)
    if (this.#frozenAtMicros !== undefined) this.#frozenAtMicros = targetMicros
    else this.#offsetMicros += targetMicros - this.nowMicros()
  }

  freeze(): void {
    this.#frozenAtMicros = this.nowMicros()
  }

  resume(): void {
    if (this.#frozenAtMicros === undefined) return
    const frozenAt = this.#frozenAtMicros
    this.#frozenAtMicros = undefined
    this.#offsetMicros += frozenAt - this.nowMicros()
  }
}
