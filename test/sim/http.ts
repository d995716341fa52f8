/**
 * Raw HTTP for the conformance suites: a fetch per call, nothing hidden, redirects not followed
 * (the suites check the 302 themselves).
 */
export interface RawAnswer {
  status: number
  headers: Headers
  /** Parsed JSON when the answer is JSON, else undefined. */
  json: unknown
  bytes: Uint8Array
}

export interface RawRequest {
  token?: string | undefined
  body?: unknown
  /** Sent as-is (not JSON-encoded), with its content type. */
  rawBody?: { bytes: string | Uint8Array<ArrayBuffer> | FormData; contentType?: string }
  query?: Record<string, string | number | boolean>
  headers?: Record<string, string>
  signal?: AbortSignal
}

export async function raw(
  baseUrl: string,
  method: string,
  path: string,
  request: RawRequest = {},
): Promise<RawAnswer> {
  const url = new URL(`${baseUrl}${path}`)
  for (const [key, value] of Object.entries(request.query ?? {}))
    url.searchParams.set(key, String(value))
  const headers: Record<string, string> = { ...request.headers }
  if (request.token !== undefined) headers['X-SVC-Token'] = request.token
  let body: string | Uint8Array<ArrayBuffer> | FormData | undefined
  if (request.rawBody) {
    body = request.rawBody.bytes
    if (request.rawBody.contentType) headers['Content-Type'] = request.rawBody.contentType
  } else if (request.body !== undefined) {
    body = JSON.stringify(request.body)
    headers['Content-Type'] = 'application/json'
  }
  const response = await fetch(url, {
    method,
    headers,
    body,
    redirect: 'manual',
    signal: request.signal,
  })
  const bytes = new Uint8Array(await response.arrayBuffer())
  const isJson =
    (response.headers.get('content-type') ?? '').includes('application/json') && bytes.length > 0
  return {
    status: response.status,
    headers: response.headers,
    json: isJson ? (JSON.parse(new TextDecoder().decode(bytes)) as unknown) : undefined,
    bytes,
  }
}

/** A client bound to one simulator and one token. */
export function client(baseUrl: string, token: string | undefined) {
  const call = (method: string, path: string, request: Omit<RawRequest, 'token'> = {}) =>
    raw(baseUrl, method, path, { ...request, token })
  return {
    get: (path: string, query?: RawRequest['query']) => call('GET', path, query ? { query } : {}),
    post: (path: string, body?: unknown) => call('POST', path, body === undefined ? {} : { body }),
    put: (path: string, body?: unknown) => call('PUT', path, body === undefined ? {} : { body }),
    delete: (path: string, query?: RawRequest['query']) =>
      call('DELETE', path, query ? { query } : {}),
    call,
  }
}

export type Client = ReturnType<typeof client>

/** Narrows an answer's JSON to a record, failing the test clearly when it is not one. */
export function record(answer: RawAnswer): Record<string, unknown> {
  const value = answer.json
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`Expected a JSON object, got ${answer.status} ${JSON.stringify(value)}`)
  }
  return value as Record<string, unknown>
}

export function list(answer: RawAnswer): Record<string, unknown>[] {
  const value = answer.json
  if (!Array.isArray(value))
    throw new Error(`Expected a JSON array, got ${answer.status} ${JSON.stringify(value)}`)
  return value as Record<string, unknown>[]
}
