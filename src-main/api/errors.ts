import { AppError, type ErrorCode } from '../shared/app-error.ts'
import { safeErrorText } from '../shared/error-text.ts'

/**
 * What went wrong with a call, finer than the app-wide ErrorCode: the sync layer and the outbox
 * decide by kind (retry later, ask for a new token, move to "needs attention").
 */
export type ApiErrorKind =
  | 'validation'
  | 'not_found'
  | 'forbidden'
  | 'conflict'
  | 'rate_limited'
  | 'authentication'
  | 'network'
  | 'server'
  | 'bad_response'
  | 'cancelled'
  | 'insecure'
  | 'export_failed'

const codeOfKind: Record<ApiErrorKind, ErrorCode> = {
  validation: 'validation',
  not_found: 'not_found',
  forbidden: 'forbidden',
  conflict: 'conflict',
  rate_limited: 'rate_limited',
  authentication: 'authentication',
  network: 'offline',
  server: 'internal',
  bad_response: 'internal',
  cancelled: 'cancelled',
  insecure: 'invalid_argument',
  export_failed: 'internal',
}

export interface ApiErrorInit {
  kind: ApiErrorKind
  operation: string
  message: string
  status?: number
  /** The `error` text of the server's error record, when it sent one. */
  serverMessage?: string
  /** The parsed error body: 403 on an unfinished export carries progress, 405 the current record. */
  details?: unknown
  retryAfterMs?: number
  cause?: unknown
}

/**
 * A failed call. Its message and the server's message are made safe to show where the error is
 * made (secrets out, control characters replaced, capped: shared/error-text.ts), so that server
 * text reaches the window, the CLI and the outbox's last error only that way.
 */
export class ApiError extends AppError {
  readonly kind: ApiErrorKind
  readonly operation: string
  readonly status: number | undefined
  readonly serverMessage: string | undefined
  readonly details: unknown
  readonly retryAfterMs: number | undefined

  constructor(init: ApiErrorInit) {
    super(codeOfKind[init.kind], safeErrorText(`${init.operation}: ${init.message}`), {
      cause: init.cause,
    })
    this.name = 'ApiError'
    this.kind = init.kind
    this.operation = init.operation
    this.status = init.status
    this.serverMessage =
      init.serverMessage === undefined ? undefined : safeErrorText(init.serverMessage)
    this.details = init.details
    this.retryAfterMs = init.retryAfterMs
  }
}

export function kindOfStatus(status: number): ApiErrorKind {
  if (status === 401) return 'authentication'
  if (status === 403) return 'forbidden'
  if (status === 404 || status === 410) return 'not_found'
  // 405 answers a cancel of a job or export that has moved past cancelling: a state conflict.
  if (status === 405 || status === 409) return 'conflict'
  if (status === 429) return 'rate_limited'
  if (status >= 500) return 'server'
  // 400, 422, and the rest of 4xx (413 too large, 415 wrong type...): the request was refused.
  if (status >= 400) return 'validation'
  return 'bad_response'
}

/** The server's error record is `{code, error}`; real servers also send `message` or `errors`. */
export function serverMessageOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() || undefined
  if (body === null || typeof body !== 'object') return undefined
  const record = body as Record<string, unknown>
  for (const key of ['error', 'message', 'errors']) {
    const value = record[key]
    if (typeof value === 'string' && value.trim()) return value.trim()
    if (Array.isArray(value) && value.length > 0) return value.map(String).join('; ')
    if (value && typeof value === 'object') return JSON.stringify(value)
  }
  return undefined
}
