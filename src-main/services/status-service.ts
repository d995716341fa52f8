import { initialAppStatus, type AppStatus } from '../shared/app-status.ts'
import type { EventBus } from '../shared/events.ts'

/** Holds the top bar's status and pushes every change as a `status.changed` event. */
export class StatusService {
  #status: AppStatus = initialAppStatus
  readonly #events: EventBus

  constructor(events: EventBus) {
    this.#events = events
  }

  current(): AppStatus {
    return this.#status
  }

  update(change: Partial<AppStatus>): void {
    const next = { ...this.#status, ...change }
    if (
      Object.entries(next).every(([key, value]) => this.#status[key as keyof AppStatus] === value)
    ) {
      return
    }
    this.#status = next
    this.#events.emit('status.changed', next)
  }
}
