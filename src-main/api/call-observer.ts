import type { ApiErrorKind } from './errors.ts'

/** One HTTP attempt the transport finished, told to the client's `onCall` listeners. */
export interface ApiCall {
  operation: string
  /** The status of the answer; null when none came (network failure, timeout, cancel). */
  status: number | null
  /** Why the attempt failed; null when it succeeded. */
  kind: ApiErrorKind | null
  /** From sending the request to the end of its answer, or to the failure. */
  durationMs: number
  /**
   * The answer's `Date` header: the server's clock when it answered, in whole seconds (RFC 9110),
   * as epoch milliseconds. Null without an answer or without a readable header.
   */
  serverDate: number | null
}

export type ApiCallListener = (call: ApiCall) => void

/** The listeners of one client; a listener that throws never disturbs the request. */
export class CallObservers {
  readonly #listeners = new Set<ApiCallListener>()

  add(listener: ApiCallListener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  tell(call: ApiCall): void {
    for (const listener of this.#listeners) {
      try {
        listener(call)
      } catch {
        // An observer's failure is its own business; the request has been answered.
      }
    }
  }
}

/** Reads a `Date` header (IMF-fixdate and the obsolete forms `Date.parse` understands). */
export function serverDateOf(headers: Headers | undefined): number | null {
  const value = headers?.get('date')
  if (!value) return null
  const millis = Date.parse(value)
  return Number.isNaN(millis) ? null : millis
}
