import type { AppStatus } from './app-status.ts'

/** Every event main pushes to the UI, by name. */
export interface AppEvents {
  'status.changed': AppStatus
  'connections.changed': { connectionIds: string[] }
  'storage.failed': { message: string; details: string }
}

export type AppEventName = keyof AppEvents

export const appEventNames = [
  'status.changed',
  'connections.changed',
  'storage.failed',
] as const satisfies readonly AppEventName[]

/** Fails to compile when an event of AppEvents is missing from appEventNames. */
export type EveryEventListed = AssertNever<Exclude<AppEventName, (typeof appEventNames)[number]>>
type AssertNever<T extends never> = T

type Listener<E extends AppEventName> = (payload: AppEvents[E]) => void
type AnyListener = <E extends AppEventName>(event: E, payload: AppEvents[E]) => void

/** A typed, synchronous event bus; a throwing listener never stops the others. */
export class EventBus {
  readonly #listeners = new Map<AppEventName, Set<Listener<never>>>()
  readonly #onListenerError: (error: unknown) => void

  constructor(onListenerError: (error: unknown) => void = () => {}) {
    this.#onListenerError = onListenerError
  }

  on<E extends AppEventName>(event: E, listener: Listener<E>): () => void {
    let set = this.#listeners.get(event)
    if (!set) {
      set = new Set()
      this.#listeners.set(event, set)
    }
    const stored = listener as Listener<never>
    set.add(stored)
    return () => set.delete(stored)
  }

  /** Subscribes one listener to every event, as the hosts do to forward events to a window. */
  onAny(listener: AnyListener): () => void {
    const offs = appEventNames.map((event) => this.on(event, (payload) => listener(event, payload)))
    return () => offs.forEach((off) => off())
  }

  emit<E extends AppEventName>(event: E, payload: AppEvents[E]): void {
    for (const listener of this.#listeners.get(event) ?? []) {
      try {
        ;(listener as Listener<E>)(payload)
      } catch (error) {
        this.#onListenerError(error)
      }
    }
  }
}
