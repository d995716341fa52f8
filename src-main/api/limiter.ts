/** Interactive work (what a person is waiting for) goes ahead of background sync. */
export type Priority = 'interactive' | 'background'

export interface Slot {
  /** Gives the slot back; calling it again does nothing. */
  release(): void
}

interface Waiter {
  grant(slot: Slot): void
  settled: boolean
}

/**
 * A counting semaphore with two priority lanes, first come first served within a lane. A waiter
 * whose signal aborts leaves the queue at once and never takes a slot.
 */
export class Limiter {
  readonly capacity: number
  #active = 0
  readonly #lanes: Record<Priority, Waiter[]> = { interactive: [], background: [] }

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`A limiter needs a capacity of at least 1, not ${capacity}.`)
    }
    this.capacity = capacity
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
      this.#active++
      return Promise.resolve(this.#newSlot())
    }
    return new Promise<Slot>((resolve, reject) => {
      const lane = this.#lanes[priority]
      const onAbort = () => {
        if (waiter.settled) return
        waiter.settled = true
        lane.splice(lane.indexOf(waiter), 1)
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
    })
  }

  #newSlot(): Slot {
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        this.#active--
        this.#grantNext()
      },
    }
  }

  #grantNext(): void {
    while (this.#active < this.capacity) {
      const waiter = this.#lanes.interactive.shift() ?? this.#lanes.background.shift()
      if (!waiter) return
      this.#active++
      waiter.grant(this.#newSlot())
    }
  }
}
