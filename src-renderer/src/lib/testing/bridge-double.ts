import type {
  AppEventName,
  EventPayload,
  RequestChannel,
  RequestResult,
  Result,
  VaultDeskBridge,
} from '../bridge.ts'

type Answer<C extends RequestChannel> = () => Promise<Result<RequestResult<C>>>

/**
 * A stand-in for `window.vaultDesk` in unit tests of the renderer's state: tests decide each
 * channel's answers (and when they arrive) and push events as main would.
 */
export class BridgeDouble implements VaultDeskBridge {
  readonly calls: { channel: RequestChannel; args: unknown }[] = []
  readonly #answers = new Map<RequestChannel, Answer<RequestChannel>>()
  readonly #listeners = new Map<AppEventName, Set<(payload: never) => void>>()

  answer<C extends RequestChannel>(channel: C, answer: Answer<C>): this {
    this.#answers.set(channel, answer as Answer<RequestChannel>)
    return this
  }

  invoke<C extends RequestChannel>(channel: C, args: unknown): Promise<Result<RequestResult<C>>> {
    this.calls.push({ channel, args })
    const answer = this.#answers.get(channel)
    if (!answer) throw new Error(`The test gave no answer for ${channel}`)
    return answer() as Promise<Result<RequestResult<C>>>
  }

  on<E extends AppEventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
    const set = this.#listeners.get(event) ?? new Set()
    this.#listeners.set(event, set)
    set.add(listener)
    return () => set.delete(listener)
  }

  emit<E extends AppEventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of this.#listeners.get(event) ?? []) listener(payload as never)
  }

  listenerCount(event: AppEventName): number {
    return this.#listeners.get(event)?.size ?? 0
  }

  pathForFile(): string | null {
    return null
  }
}

/** A promise the test settles by hand, to control the order in which answers arrive. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((settle) => (resolve = settle))
  return { promise, resolve }
}

/** Lets pending promise callbacks run. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
