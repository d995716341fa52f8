export type SyncReason = 'start' | 'interval' | 'reconnect' | 'demand'

export interface SyncSchedulerOptions {
  intervalMs: number
  /** Starts a sync of a connection (the caller ignores it while one runs). */
  run: (connectionId: string, reason: SyncReason) => void
  /** A connection's next scheduled sync changed. */
  onScheduled?: (connectionId: string, at: Date | null) => void
}

/**
 * When each connection syncs: once at start (as it is added), again when its API answers after
 * being out of reach, every interval after its last sync ended, and whenever asked.
 */
export class SyncScheduler {
  readonly #options: SyncSchedulerOptions
  #intervalMs: number
  readonly #timers = new Map<string, { timer: NodeJS.Timeout; at: Date }>()
  #stopped = false

  constructor(options: SyncSchedulerOptions) {
    this.#options = options
    this.#intervalMs = options.intervalMs
  }

  get intervalMs(): number {
    return this.#intervalMs
  }

  /** A connection to keep in sync; its first sync starts now. */
  add(connectionId: string): void {
    this.#run(connectionId, 'start')
  }

  remove(connectionId: string): void {
    this.#clear(connectionId)
    this.#options.onScheduled?.(connectionId, null)
  }

  syncNow(connectionId: string): void {
    this.#run(connectionId, 'demand')
  }

  reconnected(connectionId: string): void {
    this.#run(connectionId, 'reconnect')
  }

  /** A sync of the connection ended (however it ended): the next one is one interval away. */
  finished(connectionId: string): void {
    this.#schedule(connectionId, this.#intervalMs)
  }

  /** Changes the interval; every connection's next sync is moved to match. */
  setInterval(intervalMs: number): void {
    const previousMs = this.#intervalMs
    this.#intervalMs = intervalMs
    for (const [connectionId, { at }] of [...this.#timers]) {
      const lastEndedAt = at.getTime() - previousMs
      this.#schedule(connectionId, Math.max(0, lastEndedAt + intervalMs - Date.now()))
    }
  }

  nextSyncAt(connectionId: string): Date | null {
    return this.#timers.get(connectionId)?.at ?? null
  }

  stop(): void {
    this.#stopped = true
    for (const connectionId of [...this.#timers.keys()]) this.#clear(connectionId)
  }

  #run(connectionId: string, reason: SyncReason): void {
    if (this.#stopped) return
    this.#clear(connectionId)
    this.#options.run(connectionId, reason)
  }

  #schedule(connectionId: string, delayMs: number): void {
    if (this.#stopped) return
    this.#clear(connectionId)
    const at = new Date(Date.now() + delayMs)
    const timer = setTimeout(() => {
      this.#timers.delete(connectionId)
      this.#options.run(connectionId, 'interval')
    }, delayMs)
    timer.unref()
    this.#timers.set(connectionId, { timer, at })
    this.#options.onScheduled?.(connectionId, at)
  }

  #clear(connectionId: string): void {
    const scheduled = this.#timers.get(connectionId)
    if (scheduled) clearTimeout(scheduled.timer)
    this.#timers.delete(connectionId)
  }
}
