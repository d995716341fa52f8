/**
 * An answer other than success. The server turns it into the spec's error record
 * `{code, error}`; `body` replaces that record where the spec returns something else (the export
 * progress on a 403, the unchanged record on a 405).
 */
export class HttpError extends Error {
  readonly status: number
  readonly body: Record<string, unknown> | undefined
  readonly headers: Record<string, string>

  constructor(
    status: number,
    message: string,
    options: { body?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message)
    this.name = 'HttpError'
    this.status = status
    this.body = options.body
    this.headers = options.headers ?? {}
  }

  toRecord(): Record<string, unknown> {
    return this.body ?? { code: this.status, error: this.message }
  }
}

export const badRequest = (message: string): HttpError => new HttpError(400, message)

export const unauthorized = (
  message = 'The API key is not authorized for access to this vault',
): HttpError => new HttpError(401, message)

export const forbidden = (message: string, body?: Record<string, unknown>): HttpError =>
  new HttpError(403, message, body === undefined ? {} : { body })

export const notFound = (what: string): HttpError => new HttpError(404, `${what} not found`)

export const conflict = (message: string): HttpError => new HttpError(409, message)

/** A validation failure: `field` names the member at fault so that the message says what to fix. */
export const invalid = (field: string, problem: string): HttpError =>
  new HttpError(422, `${field} ${problem}`)

export const unprocessable = (message: string): HttpError => new HttpError(422, message)

export const tooManyRequests = (message: string, retryAfterSeconds?: number): HttpError =>
  new HttpError(429, message, {
    headers: retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) },
  })

/** 404 for a multi-id lookup, listing every missing id as real vaults do. */
export function missingIds(what: string, missing: readonly number[]): HttpError {
  return new HttpError(404, `${what} not found: ${missing.join(', ')}`)
}
