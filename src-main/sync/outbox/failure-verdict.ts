import { ApiError } from '../../api/index.ts'
import { AppError } from '../../shared/app-error.ts'

/** What becomes of an item after a failed attempt. */
export type FailureVerdict =
  /** Network, 5xx, 429: later, keeping its place; `inDoubt` when it may have arrived. */
  | {
      action: 'retry'
      inDoubt: boolean
      retryAfterMs: number | undefined
      message: string
      kind: string
    }
  /** The server refused it (4xx) or it cannot be sent as it is: the person decides. */
  | { action: 'attention'; message: string; kind: string }
  /** The token was refused: the connection's queue waits for a new one. */
  | { action: 'pause'; message: string; kind: string }

/** Network failures that mean the request never reached the server. */
const neverSentCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
])

/**
 * Sorts a failure. `requestMayHaveLeft` is false while nothing of the attempt that could change
 * the server has been sent (a failure of the look-ups before it cannot leave anything behind).
 */
export function failureVerdict(
  error: unknown,
  options: { requestMayHaveLeft: boolean; tokenRefused: boolean },
): FailureVerdict {
  if (!(error instanceof ApiError)) {
    const message = error instanceof Error ? error.message : String(error)
    const kind = error instanceof AppError ? error.code : 'internal'
    return { action: 'attention', message, kind }
  }
  const message = error.serverMessage ?? error.message
  const retry = (inDoubt: boolean): FailureVerdict => ({
    action: 'retry',
    inDoubt: inDoubt && options.requestMayHaveLeft,
    retryAfterMs: error.retryAfterMs,
    message,
    kind: error.kind,
  })
  switch (error.kind) {
    case 'rate_limited':
      return retry(false)
    case 'server':
      // Only 503 (not available) and 501 (not implemented) say the work was not begun. A 500 may
      // come after the service committed, a gateway's 502 or 504 does not know what the service
      // behind it did: looked up before any resend, so that nothing is done twice.
      return retry(error.status !== 503 && error.status !== 501)
    case 'network':
      return retry(!neverSentCodes.has(networkCode(error) ?? ''))
    case 'cancelled':
      return retry(true)
    case 'bad_response':
      // The server answered 2xx but the answer could not be read: the work was done.
      return retry(true)
    case 'authentication':
      // 401 also answers role and vault refusals; only a refused token stops the queue.
      return options.tokenRefused || error.status === undefined
        ? { action: 'pause', message, kind: error.kind }
        : { action: 'attention', message, kind: error.kind }
    default:
      return { action: 'attention', message, kind: error.kind }
  }
}

function networkCode(error: ApiError): string | undefined {
  let cause: unknown = error.cause
  for (let depth = 0; depth < 4 && cause; depth++) {
    const code = (cause as { code?: unknown }).code
    if (typeof code === 'string') return code
    cause = (cause as { cause?: unknown }).cause
  }
  return undefined
}
