import type { StreamedBody } from './streamed-body.ts'
import { htmlPageTitle } from '../shared/error-text.ts'
import type { Logger } from '../shared/logger.ts'
import { Attempt } from './attempt.ts'
import { backoffDelay, parseRetryAfter, sleep, type RetryPolicy } from './backoff.ts'
import { serverDateOf, type CallObservers } from './call-observer.ts'
import type { Credentials } from './credentials.ts'
import { ApiError, kindOfStatus, serverMessageOf } from './errors.ts'
import type { ConnectionLimits, LimiterRegistry } from './limiter-registry.ts'
import type { Priority } from './limiter.ts'
import { appendQuery, jsonBody, type QueryParams } from './params.ts'
import { isLoopbackUrl, requireSecureUrl } from './secure-url.ts'
import { sendStreamed } from './streamed-request.ts'
import { maxErrorBodyBytes, readBodyUpTo, readWholeBody } from './whole-body.ts'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

/**
 * When a failed call may be sent again by the transport itself:
 * - `idempotent`: network errors, 5xx and 429 (reads, PUT, DELETE, POST .../query);
 * - `rejected-only`: only a 429, which the server refused before doing anything (requests that
 *   start an export: repeating one that may have arrived would leave a stray export running);
 * - `never`: creates; the outbox decides after looking at the server's state.
 */
export type RetryMode = 'idempotent' | 'rejected-only' | 'never'

export interface CallOptions {
  signal?: AbortSignal
  priority?: Priority
  /**
   * Per attempt, the longest silence allowed: before the answer for ordinary requests; between
   * two chunks of a streamed body (an upload or a download) and then before the answer.
   */
  timeoutMs?: number
}

export interface RequestSpec extends CallOptions {
  operation: string
  method: HttpMethod
  path: string
  query?: QueryParams
  json?: unknown
  streamed?: StreamedBody
  retry?: RetryMode
  accept?: string
}

export interface TransportOptions {
  baseUrl: string
  credentials: Credentials
  limiters: LimiterRegistry
  logger: Logger
  timeoutMs: number
  retry: RetryPolicy
  /** The largest answer read whole (not streamed); a larger one fails as `bad_response`. */
  maxBodyBytes: number
  random?: () => number
  /** Told of every attempt once it is answered or has failed. */
  observers?: CallObservers
}

/** A response whose body the caller streams; the limiter slot is held until `close()`. */
export interface OpenResponse {
  readonly response: Response
  readonly chunks: AsyncIterable<Uint8Array>
  close(): void
}

const redirectStatuses = new Set([301, 302, 303, 307, 308])
const maxRedirects = 5
const unreachableCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH'])

const tokenHeader = 'X-SVC-Token'

/**
 * Every request of a connection goes through here: the HTTPS rule, the token header (only ever to
 * the connection's own origin), the per-user limiter, the deadline, redirects, retries with
 * backoff, and the translation of every failure into an ApiError.
 */
export class Transport {
  readonly baseUrl: URL
  readonly origin: string
  readonly #options: TransportOptions
  readonly #log: Logger
  readonly #tokenChecks = new Map<string, Promise<void>>()

  constructor(options: TransportOptions) {
    if (!Number.isSafeInteger(options.maxBodyBytes) || options.maxBodyBytes <= 0) {
      throw new RangeError(
        `maxBodyBytes must be a whole number of bytes above 0, not ${options.maxBodyBytes}.`,
      )
    }
    this.baseUrl = requireSecureUrl(options.baseUrl, 'connection')
    this.origin = this.baseUrl.origin
    this.#options = options
    this.#log = options.logger
  }

  /** The limits of this connection's user, for the export queue. */
  limits(): ConnectionLimits {
    return this.#options.limiters.forOrigin(this.origin)
  }

  /** Sends a request and answers its parsed JSON body; an empty body answers undefined. */
  async json(spec: RequestSpec): Promise<unknown> {
    return (await this.jsonWithText(spec)).value
  }

  /** As `json`, with the body's text (for a caller that keeps records as the server wrote them). */
  jsonWithText(spec: RequestSpec): Promise<{ value: unknown; text: string }> {
    return this.#send(spec, async (response) => {
      const bytes = await readWholeBody(response, this.#options.maxBodyBytes, spec.operation)
      const text = new TextDecoder().decode(bytes)
      if (text.trim() === '') return { value: undefined, text }
      try {
        return { value: JSON.parse(text) as unknown, text }
      } catch (error) {
        throw new ApiError({
          kind: 'bad_response',
          operation: spec.operation,
          status: response.status,
          message: `the answer is not valid JSON (${(error as Error).message}); it begins ${JSON.stringify(text.slice(0, 80))}.`,
        })
      }
    })
  }

  /** Sends a request and answers its body as bytes (images, small binary answers). */
  bytes(spec: RequestSpec): Promise<{ contentType: string; bytes: Uint8Array }> {
    return this.#send(spec, async (response) => ({
      contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      bytes: await readWholeBody(response, this.#options.maxBodyBytes, spec.operation),
    }))
  }

  /**
   * Sends a request and hands over the body as a stream. Retries cover only failures before the
   * body starts; a body broken halfway is the caller's to restart.
   */
  open(spec: RequestSpec): Promise<OpenResponse> {
    return this.#send(spec, async (response, attempt) => {
      attempt.detach()
      return openResponse(response, attempt, spec.operation)
    })
  }

  async #send<T>(spec: RequestSpec, use: (response: Response, attempt: Attempt) => Promise<T>) {
    const url = this.#url(spec)
    const body = spec.streamed ? spec.streamed.stream : this.#jsonText(spec)
    const mode = spec.retry ?? (spec.method === 'POST' ? 'never' : 'idempotent')
    const policy = this.#options.retry
    for (let attemptNumber = 1; ; attemptNumber++) {
      const token = await this.#token(spec.operation)
      const slot = await this.limits()
        .requests.acquire(spec.priority, spec.signal)
        .catch((error: unknown) => {
          throw cancelled(spec.operation, error)
        })
      const attempt = new Attempt(slot, spec.timeoutMs ?? this.#options.timeoutMs, spec.signal)
      const started = performance.now()
      let failure: ApiError
      let answer: Response | undefined
      try {
        answer = await this.#fetchFollowingRedirects(url, spec, body, token, attempt)
        if (!answer.ok) throw await this.#statusError(spec, answer, token)
        const result = await use(answer, attempt)
        const ms = Math.round(performance.now() - started)
        this.#log.debug('api call', { operation: spec.operation, status: answer.status, ms })
        this.#observe(spec, answer, null, started)
        return result
      } catch (error) {
        failure = this.#asApiError(error, spec, attempt)
      } finally {
        attempt.settle()
      }
      this.#observe(spec, answer, failure, started)
      if (failure.status === 401) await this.#checkToken(token, spec, failure)
      if (!shouldRetry(failure, mode, attemptNumber, policy)) {
        this.#log.debug('api call failed', {
          operation: spec.operation,
          kind: failure.kind,
          status: failure.status,
          ms: Math.round(performance.now() - started),
        })
        throw failure
      }
      const delay =
        failure.retryAfterMs ?? backoffDelay(policy, attemptNumber, this.#options.random)
      this.#log.warn('api call will be retried', {
        operation: spec.operation,
        attempt: attemptNumber,
        delayMs: delay,
        reason: failure.message,
      })
      await sleep(delay, spec.signal).catch((error: unknown) => {
        throw cancelled(spec.operation, error)
      })
    }
  }

  #observe(
    spec: RequestSpec,
    answer: Response | undefined,
    failure: ApiError | null,
    started: number,
  ): void {
    this.#options.observers?.tell({
      operation: spec.operation,
      status: answer?.status ?? null,
      kind: failure?.kind ?? null,
      durationMs: performance.now() - started,
      serverDate: serverDateOf(answer?.headers),
    })
  }

  #url(spec: RequestSpec): URL {
    const url = new URL(this.baseUrl.href.replace(/\/+$/, '') + spec.path)
    try {
      appendQuery(url, spec.query ?? {})
    } catch (error) {
      throw invalidArgument(spec.operation, error)
    }
    return url
  }

  #jsonText(spec: RequestSpec): string | undefined {
    if (spec.json === undefined) return undefined
    try {
      return jsonBody(spec.json)
    } catch (error) {
      throw invalidArgument(spec.operation, error)
    }
  }

  async #token(operation: string): Promise<string> {
    try {
      return await this.#options.credentials.token()
    } catch (error) {
      throw new ApiError({
        kind: 'authentication',
        operation,
        message: `no token is available (${(error as Error).message})`,
        cause: error,
      })
    }
  }

  async #fetchFollowingRedirects(
    url: URL,
    spec: RequestSpec,
    body: string | ReadableStream<Uint8Array> | undefined,
    token: string,
    attempt: Attempt,
  ): Promise<Response> {
    let target = url
    let method: HttpMethod = spec.method
    let requestBody = body
    let sendToken = true
    for (let hop = 0; ; hop++) {
      requireSecureUrl(target, spec.operation)
      sendToken &&= target.origin === this.origin
      const headers: Record<string, string> = { Accept: spec.accept ?? 'application/json' }
      if (sendToken) headers[tokenHeader] = token
      if (typeof requestBody === 'string') headers['Content-Type'] = 'application/json'
      if (spec.streamed && requestBody === spec.streamed.stream) {
        headers['Content-Type'] = spec.streamed.contentType
        headers['Content-Length'] = String(spec.streamed.length)
      }
      // Uploads go through Node's HTTP client: fetch would keep a copy of the whole body.
      const response =
        spec.streamed && requestBody === spec.streamed.stream
          ? await sendStreamed(target, method, headers, spec.streamed, attempt)
          : await fetch(target, {
              method,
              headers,
              body: (requestBody as string | undefined) ?? null,
              redirect: 'manual',
              signal: attempt.signal,
            })
      if (!redirectStatuses.has(response.status)) return response
      await response.body?.cancel()
      const location = response.headers.get('location')
      if (!location || hop >= maxRedirects) {
        throw new ApiError({
          kind: 'bad_response',
          operation: spec.operation,
          status: response.status,
          message: location
            ? `more than ${maxRedirects} redirects.`
            : `redirect ${response.status} without a Location header.`,
        })
      }
      const from = target
      target = new URL(location, target)
      if (isLoopbackUrl(target) && !isLoopbackUrl(from)) {
        // A server elsewhere must not make this machine send a request (with its method and
        // body) to a service listening only on loopback, which trusts whatever comes from here.
        throw new ApiError({
          kind: 'insecure',
          operation: spec.operation,
          status: response.status,
          message: `refusing a redirect from ${from.origin} to ${target.origin}, an address on this machine.`,
        })
      }
      if (target.origin !== this.origin && sendToken) {
        sendToken = false
        attempt.releaseSlot()
      }
      if (response.status === 303 || (response.status <= 302 && method === 'POST')) {
        method = 'GET'
        requestBody = undefined
      } else if (requestBody instanceof ReadableStream) {
        throw new ApiError({
          kind: 'bad_response',
          operation: spec.operation,
          status: response.status,
          message: 'the server redirected an upload, which cannot be sent twice.',
        })
      }
    }
  }

  /**
   * The error of an answer that is not 2xx, with what the server said. Only the start of a long
   * body is read; a page (proxies and gateways answer HTML) counts by its title alone; the token,
   * should the server echo it, is taken out (ApiError makes the rest safe to show).
   */
  async #statusError(spec: RequestSpec, response: Response, token: string): Promise<ApiError> {
    const part = await readBodyUpTo(response, maxErrorBodyBytes).catch(() => undefined)
    const body = new TextDecoder().decode(part?.bytes ?? new Uint8Array(0))
    const text = token.length >= 4 ? body.split(token).join('[redacted]') : body
    const title = htmlPageTitle(text, response.headers.get('content-type'))
    let details: unknown = title ?? text
    if (title === null && part?.complete) {
      try {
        details = text ? JSON.parse(text) : undefined
      } catch {
        // Not JSON: the text itself is the detail (proxies also answer in plain text).
      }
    }
    const serverMessage = title === '' ? undefined : serverMessageOf(details)
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'))
    const said = serverMessage ?? response.statusText
    const error = new ApiError({
      kind: kindOfStatus(response.status),
      operation: spec.operation,
      status: response.status,
      // A page's title often is the status already ("502 Bad Gateway").
      message: said.startsWith(`${response.status} `) ? said : `${response.status} ${said}`,
      ...(serverMessage !== undefined ? { serverMessage } : {}),
      details,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    })
    return error
  }

  /**
   * The service answers 401 for a bad token, but also for a vault the user may not reach and for
   * operations beyond the user's role. Only when the token also fails on GET /vaults, which any
   * valid token may read, is the connection marked as needing a new token.
   */
  async #checkToken(token: string, spec: RequestSpec, failure: ApiError): Promise<void> {
    if (spec.path === '/vaults') {
      this.#options.credentials.reject(token, {
        operation: spec.operation,
        message: failure.message,
      })
      return
    }
    let check = this.#tokenChecks.get(token)
    if (!check) {
      check = this.json({
        operation: spec.operation,
        method: 'GET',
        path: '/vaults',
        retry: 'never',
        ...(spec.signal ? { signal: spec.signal } : {}),
      })
        .then(
          () => {},
          () => {},
        )
        .finally(() => this.#tokenChecks.delete(token))
      this.#tokenChecks.set(token, check)
    }
    await check
  }

  #asApiError(error: unknown, spec: RequestSpec, attempt: Attempt): ApiError {
    if (error instanceof ApiError) return error
    if (attempt.cancelledByCaller) return cancelled(spec.operation, error)
    if (attempt.timedOut) {
      return new ApiError({
        kind: 'network',
        operation: spec.operation,
        message: spec.streamed
          ? `the upload to ${this.origin} stalled: nothing moved for ${attempt.timeoutMs} ms.`
          : `no answer from ${this.origin} within ${attempt.timeoutMs} ms.`,
        cause: error,
      })
    }
    return new ApiError({
      kind: 'network',
      operation: spec.operation,
      message: `cannot reach ${this.origin} (${networkReason(error)}).`,
      cause: error,
    })
  }
}

function shouldRetry(
  error: ApiError,
  mode: RetryMode,
  attemptNumber: number,
  policy: RetryPolicy,
): boolean {
  if (attemptNumber >= policy.attempts || mode === 'never') return false
  if (error.retryAfterMs !== undefined && error.retryAfterMs > policy.maxRetryAfterMs) return false
  if (error.kind === 'rate_limited') return true
  if (mode === 'rejected-only') return false
  if (error.kind === 'network') return true
  return error.kind === 'server' && error.status !== 501
}

function cancelled(operation: string, cause: unknown): ApiError {
  if (cause instanceof ApiError) return cause
  return new ApiError({ kind: 'cancelled', operation, message: 'cancelled.', cause })
}

function invalidArgument(operation: string, cause: unknown): ApiError {
  return new ApiError({
    kind: 'validation',
    operation,
    message: `invalid argument: ${(cause as Error).message}`,
    cause,
  })
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause
  if (typeof cause?.code === 'string') {
    return unreachableCodes.has(cause.code) ? `${cause.code}, server unreachable` : cause.code
  }
  if (typeof cause?.message === 'string') return cause.message
  return error instanceof Error ? error.message : String(error)
}

function openResponse(response: Response, attempt: Attempt, operation: string): OpenResponse {
  const body = response.body
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  const close = () => {
    attempt.end()
    ;(reader ?? body)?.cancel().catch(() => {})
  }
  async function* chunks(): AsyncGenerator<Uint8Array> {
    if (!body) return
    reader = body.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        attempt.touch()
        yield value
      }
    } catch (error) {
      if (attempt.cancelledByCaller) throw cancelled(operation, error)
      throw new ApiError({
        kind: 'network',
        operation,
        message: attempt.timedOut
          ? `the download stalled for ${attempt.timeoutMs} ms.`
          : `the download broke off (${networkReason(error)}).`,
        cause: error,
      })
    } finally {
      close()
    }
  }
  return { response, chunks: chunks(), close }
}
