/** Interactive work (what a person is waiting for) goes ahead of background sync. */
export type Priority = 'interactive' | 'background'

export interface Slot {
  /** Gives the slot back; calling it again does nothing. */
  release(): void
}

/**
 * Slots a limiter shares with other processes (the data folder's request slots): a limiter takes
 * one of these with each of its own, so that every process on one data folder stays within one
 * limit together.
 */
export interface SharedSlots {
  /** A slot, or null while other processes hold them all. */
  tryTake(): Slot | null
  /** Calls `wake` whenever a slot may have come free, until the answered function is called. */
  watch(wake: () => void): () => void
}

interface Waiter {
  grant(slot: Slot): void
  settled: boolean
}

/**
 * A counting semaphore with two priority lanes, first come first served within a lane. A waiter
 * whose signal aborts leaves the queue at once and never takes a slot. With `shared` slots, a
 * slot is granted only with one of those too; while other processes hold them all, the limiter
 * watches for one to come free.
 */
export class Limiter {
  readonly capacity: number
  #active = 0
  readonly #lanes: Record<Priority, Waiter[]> = { interactive: [], background: [] }
  readonly #shared: SharedSlots | undefined
  #stopWatching: (() => void) | undefined

  constructor(capacity: number, shared?: SharedSlots) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`A limiter needs a capacity of at least 1, not ${capacity}.`)
    }
    this.capacity = capacity
    this.#shared = shared
  }

  get active(): number {
    return this.#active
  }

  get waiting(): number {
    return this.#lanes.interactive.length + this.#lanes.background.length
  }

  acquire(priority: Priority = 'interactive', signal?: AbortSignal): Promise<Slot> {
    if (signal?.aborted) return Promise.reject(signal.reason as unknown)
    if (this.#active < this.capacity && this.waiting === 0) {
      const slot = this.#take()
      if (slot) return Promise.resolve(slot)
    }
    return new Promise<Slot>((resolve, reject) => {
      const lane = this.#lanes[priority]
      const onAbort = () => {
        if (waiter.settled) return
        waiter.settled = true
        lane.splice(lane.indexOf(waiter), 1)
        if (this.waiting === 0) this.#unwatch()
        reject(signal?.reason)
      }
      const waiter: Waiter = {
        settled: false,
        grant: (slot) => {
          waiter.settled = true
          signal?.removeEventListener('abort', onAbort)
          resolve(slot)
        },
      }
      lane.push(waiter)
      signal?.addEventListener('abort', onAbort, { once: true })
      // Room here but none elsewhere: only another process's release will let it through.
      if (this.#active < this.capacity) this.#watch()
    })
  }

  /** A slot of this limiter and, with shared slots, one of those; null when none is free. */
  #take(): Slot | null {
    const shared = this.#shared?.tryTake()
    if (shared === null) return null
    this.#active++
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        shared?.release()
        this.#active--
        this.#grantNext()
      },
    }
  }

  #grantNext(): void {
    while (this.#active < this.capacity && this.waiting > 0) {
      const slot = this.#take()
      if (!slot) return this.#watch()
      const waiter = (this.#lanes.interactive.shift() ?? this.#lanes.background.shift())!
      waiter.grant(slot)
    }
    if (this.waiting === 0) this.#unwatch()
  }

  #watch(): void {
    this.#stopWatching ??= this.#shared?.watch(() => this.#grantNext())
  }

  #unwatch(): void {
    this.#stopWatching?.()
    this.#stopWatching = undefined
  }
}
