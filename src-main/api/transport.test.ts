import { afterEach, describe, expect, it, vi } from 'vitest'
import type { LogFields, Logger } from '../shared/logger.ts'
import { silentLogger } from '../shared/logger.ts'
import {
  loopbackServer,
  sendJson,
  type LoopbackHandler,
  type LoopbackServer,
} from '../../test/api/support/loopback-server.ts'
import { retryAfterCapMs, type RetryPolicy } from './backoff.ts'
import { CallObservers, type ApiCall } from './call-observer.ts'
import { Credentials } from './credentials.ts'
import { ApiError } from './errors.ts'
import { LimiterRegistry } from './limiter-registry.ts'
import { Transport, type RequestSpec } from './transport.ts'
import { defaultMaxBodyBytes } from './whole-body.ts'

const token = 'tok-4f1c-secret'
const quickRetries: RetryPolicy = {
  attempts: 4,
  baseDelayMs: 1,
  maxDelayMs: 5,
  maxRetryAfterMs: 60_000,
}

const servers: LoopbackServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function serve(handler: LoopbackHandler): Promise<LoopbackServer> {
  const server = await loopbackServer(handler)
  servers.push(server)
  return server
}

function transportFor(
  server: LoopbackServer,
  options: {
    retry?: RetryPolicy
    timeoutMs?: number
    logger?: Logger
    observers?: CallObservers
    maxBodyBytes?: number
  } = {},
) {
  const credentials = new Credentials(token)
  const transport = new Transport({
    baseUrl: server.url,
    credentials,
    limiters: new LimiterRegistry(),
    logger: options.logger ?? silentLogger,
    timeoutMs: options.timeoutMs ?? 10_000,
    retry: options.retry ?? quickRetries,
    maxBodyBytes: options.maxBodyBytes ?? defaultMaxBodyBytes,
    random: () => 1,
    ...(options.observers ? { observers: options.observers } : {}),
  })
  return { transport, credentials }
}

const read: RequestSpec = { operation: 'things.get', method: 'GET', path: '/vaults/1/things/2' }

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`)
  return error
}

describe('Transport requests', () => {
  it('sends the token, the path below the base URL, query parameters and a JSON body', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, { ok: true }))
    const { transport } = transportFor(server)
    const answer = await transport.json({
      operation: 'things.query',
      method: 'POST',
      path: '/vaults/1/things/query',
      query: {
        ids: [1, 2, 3],
        flag: true,
        absent: undefined,
        created_after: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)),
      },
      json: { modified_before: '2024-02-03T04:05:06Z', nested: { run_after: new Date(0) } },
    })
    expect(answer).toEqual({ ok: true })
    const [seen] = server.requests
    expect(seen?.headers['x-svc-token']).toBe(token)
    expect(seen?.headers['content-type']).toBe('application/json')
    const url = new URL(seen!.url, server.origin)
    expect(url.pathname).toBe('/api/v1/vaults/1/things/query')
    expect(url.searchParams.get('ids')).toBe('1,2,3')
    expect(url.searchParams.get('flag')).toBe('true')
    expect(url.searchParams.has('absent')).toBe(false)
    expect(url.searchParams.get('created_after')).toBe('2024-01-02T03:04:05+00:00')
    expect(JSON.parse(seen!.body.toString())).toEqual({
      modified_before: '2024-02-03T04:05:06+00:00',
      nested: { run_after: '1970-01-01T00:00:00+00:00' },
    })
  })

  it('refuses an invalid date parameter before sending anything', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, {}))
    const { transport } = transportFor(server)
    const error = await failure(
      transport.json({ ...read, query: { created_after: 'last tuesday' } }),
    )
    expect(error.kind).toBe('validation')
    expect(error.message).toContain('created_after: "last tuesday" is not an ISO 8601 date')
    expect(server.requests).toHaveLength(0)
  })

  it('answers undefined for an empty body', async () => {
    const server = await serve((_request, response) => void response.end())
    const { transport } = transportFor(server)
    expect(await transport.json({ ...read, method: 'DELETE' })).toBeUndefined()
  })

  it('names malformed JSON clearly instead of crashing', async () => {
    const server = await serve((_request, response) => {
      response.setHeader('Content-Type', 'application/json')
      response.end('{"id": 1, "name": ')
    })
    const { transport } = transportFor(server)
    const error = await failure(transport.json(read))
    expect(error.kind).toBe('bad_response')
    expect(error.message).toMatch(/^things\.get: the answer is not valid JSON \(.+\); it begins/)
    expect(server.requests).toHaveLength(1)
  })
})

describe('Transport security', () => {
  it.each(['http://vault.example.org/api/v1', 'ftp://127.0.0.1/api/v1', 'http://10.0.0.8/api/v1'])(
    'refuses %s before any request is made',
    (baseUrl) => {
      expect(
        () =>
          new Transport({
            baseUrl,
            credentials: new Credentials(token),
            limiters: new LimiterRegistry(),
            logger: silentLogger,
            timeoutMs: 1000,
            retry: quickRetries,
            maxBodyBytes: defaultMaxBodyBytes,
          }),
      ).toThrow(/HTTPS is required except for loopback addresses/)
    },
  )

  it('follows a redirect to another origin without the token', async () => {
    const downloads = await serve((_request, response) => void response.end('the,csv,file\n'))
    const server = await serve((_request, response) => {
      response.writeHead(302, { Location: `${downloads.origin}/download/abc?sig=1` })
      response.end()
    })
    const { transport } = transportFor(server)
    const opened = await transport.open({ ...read, accept: '*/*' })
    const chunks: Uint8Array[] = []
    for await (const chunk of opened.chunks) chunks.push(chunk)
    expect(Buffer.concat(chunks).toString()).toBe('the,csv,file\n')
    expect(server.requests[0]?.headers['x-svc-token']).toBe(token)
    expect(downloads.requests).toHaveLength(1)
    expect(downloads.requests[0]?.url).toBe('/download/abc?sig=1')
    expect(downloads.requests[0]?.headers['x-svc-token']).toBeUndefined()
  })

  it('keeps the token on a redirect within its own origin', async () => {
    const server = await serve((request, response) => {
      if (request.url.endsWith('/old')) {
        response.writeHead(307, { Location: '/api/v1/new' })
        response.end()
      } else sendJson(response, 200, { moved: true })
    })
    const { transport } = transportFor(server)
    expect(await transport.json({ ...read, path: '/old' })).toEqual({ moved: true })
    expect(server.requests.map((request) => request.headers['x-svc-token'])).toEqual([token, token])
  })

  it('refuses a redirect to plain HTTP off the machine', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(302, { Location: 'http://downloads.example.org/file' })
      response.end()
    })
    const { transport } = transportFor(server)
    const error = await failure(transport.json(read))
    expect(error.kind).toBe('insecure')
    expect(error.message).toContain('refusing http://downloads.example.org')
  })

  it('never puts the token in errors or log lines', async () => {
    const lines: string[] = []
    const capture: Logger = {
      debug: (message: string, fields?: LogFields) => lines.push(message + JSON.stringify(fields)),
      info: (message: string, fields?: LogFields) => lines.push(message + JSON.stringify(fields)),
      warn: (message: string, fields?: LogFields) => lines.push(message + JSON.stringify(fields)),
      error: (message: string, fields?: LogFields) => lines.push(message + JSON.stringify(fields)),
      child: () => capture,
    }
    let calls = 0
    const server = await serve((_request, response) => {
      calls++
      if (calls === 1) sendJson(response, 503, { code: 503, error: 'busy' })
      else sendJson(response, 401, { code: 401, error: 'not authorized' })
    })
    const { transport } = transportFor(server, { logger: capture })
    const error = await failure(transport.json(read))
    expect(lines.length).toBeGreaterThan(0)
    expect(JSON.stringify([lines, error.message, error.details])).not.toContain(token)
  })
})

describe('Transport and a server elsewhere', () => {
  // A service on another machine, played by a loopback server: fetch is routed there for its
  // HTTPS name, so the transport sees https://vault.remote.test as the origin it talks to.
  const remoteOrigin = 'https://vault.remote.test'
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  async function remoteService(handler: LoopbackHandler) {
    const server = await serve(handler)
    const realFetch = globalThis.fetch
    vi.stubGlobal('fetch', (input: string | URL, init?: RequestInit) => {
      const url = new URL(input)
      if (!url.hostname.endsWith('.remote.test')) return realFetch(input, init)
      return realFetch(new URL(url.pathname + url.search, server.origin), init)
    })
    const transport = new Transport({
      baseUrl: `${remoteOrigin}/api/v1`,
      credentials: new Credentials(token),
      limiters: new LimiterRegistry(),
      logger: silentLogger,
      timeoutMs: 10_000,
      retry: quickRetries,
      maxBodyBytes: defaultMaxBodyBytes,
    })
    return { server, transport }
  }

  const create: RequestSpec = {
    operation: 'things.create',
    method: 'POST',
    path: '/vaults/1/things',
    json: { name: 'reset everything' },
  }

  it.each([
    [307, (port: number) => `http://127.0.0.1:${port}/admin/reset`],
    [308, (port: number) => `http://[::1]:${port}/admin/reset`],
    [303, (port: number) => `http://localhost:${port}/admin/reset`],
  ])('refuses a %i redirect from it to an address on this machine', async (status, location) => {
    const local = await serve((_request, response) => sendJson(response, 200, { reset: true }))
    const port = Number(new URL(local.origin).port)
    const { server, transport } = await remoteService((_request, response) => {
      response.writeHead(status, { Location: location(port) })
      response.end()
    })
    const error = await failure(transport.json(create))
    expect(error.kind).toBe('insecure')
    expect(error.message).toContain(`refusing a redirect from ${remoteOrigin} to http://`)
    expect(error.message).toContain('an address on this machine')
    expect(server.requests).toHaveLength(1)
    expect(local.requests).toHaveLength(0)
  })

  it('still follows its redirect to another origin elsewhere, without the token', async () => {
    const { server, transport } = await remoteService((request, response) => {
      if (request.url.startsWith('/api/')) {
        response.writeHead(302, { Location: 'https://downloads.remote.test/download/abc' })
        response.end()
      } else sendJson(response, 200, { downloaded: true })
    })
    expect(await transport.json(read)).toEqual({ downloaded: true })
    expect(server.requests.map((request) => [request.url, request.headers['x-svc-token']])).toEqual(
      [
        ['/api/v1/vaults/1/things/2', token],
        ['/download/abc', undefined],
      ],
    )
  })
})

describe('Transport errors', () => {
  it.each([
    [400, 'validation'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [405, 'conflict'],
    [409, 'conflict'],
    [422, 'validation'],
  ] as const)(
    'turns %i into a %s error with the server text and operation',
    async (status, kind) => {
      const server = await serve((_request, response) =>
        sendJson(response, status, { code: status, error: `server says ${status}`, state: 'kept' }),
      )
      const { transport } = transportFor(server)
      const error = await failure(transport.json(read))
      expect(error).toMatchObject({
        kind,
        status,
        operation: 'things.get',
        serverMessage: `server says ${status}`,
        details: { code: status, error: `server says ${status}`, state: 'kept' },
      })
      expect(error.message).toBe(`things.get: ${status} server says ${status}`)
      expect(server.requests).toHaveLength(1)
    },
  )

  it('marks the connection as needing a new token when the token itself is refused', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 401, { code: 401, error: 'key not authorized' }),
    )
    const { transport, credentials } = transportFor(server)
    const heard: string[] = []
    credentials.onRejected((rejection) => heard.push(rejection.operation))
    const error = await failure(transport.json(read))
    await failure(transport.json(read))
    expect(error.kind).toBe('authentication')
    expect(error.code).toBe('authentication')
    expect(credentials.needsNewToken).toBe(true)
    expect(heard).toEqual(['things.get'])
    credentials.replace('a-new-token')
    expect(credentials.needsNewToken).toBe(false)
  })

  it('keeps the token when only a vault or an operation beyond the role is refused', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/api/v1/vaults') sendJson(response, 200, [{ id: 1, name: 'Main' }])
      else sendJson(response, 401, { code: 401, error: 'key not authorized for this vault' })
    })
    const { transport, credentials } = transportFor(server)
    const heard: string[] = []
    credentials.onRejected((rejection) => heard.push(rejection.operation))
    const error = await failure(transport.json(read))
    expect(error).toMatchObject({ kind: 'authentication', status: 401 })
    expect(server.requests.map((request) => request.url)).toEqual([
      '/api/v1/vaults/1/things/2',
      '/api/v1/vaults',
    ])
    expect(credentials.needsNewToken).toBe(false)
    expect(heard).toEqual([])
  })

  it('reports a token that cannot be read before sending anything', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, {}))
    const transport = new Transport({
      baseUrl: server.url,
      credentials: new Credentials(() => {
        throw new Error('the keychain is locked')
      }),
      limiters: new LimiterRegistry(),
      logger: silentLogger,
      timeoutMs: 1000,
      retry: quickRetries,
      maxBodyBytes: defaultMaxBodyBytes,
    })
    const error = await failure(transport.json(read))
    expect(error.kind).toBe('authentication')
    expect(error.message).toContain('the keychain is locked')
    expect(server.requests).toHaveLength(0)
  })

  it('reports a server that cannot be reached as a network error', async () => {
    const server = await serve(() => {})
    await server.close()
    const { transport } = transportFor(server, { retry: { ...quickRetries, attempts: 1 } })
    const error = await failure(transport.json(read))
    expect(error.kind).toBe('network')
    expect(error.code).toBe('offline')
    expect(error.message).toContain('ECONNREFUSED')
  })
})

describe('Transport call observers', () => {
  function observed(): { observers: CallObservers; calls: ApiCall[] } {
    const observers = new CallObservers()
    const calls: ApiCall[] = []
    observers.add((call) => calls.push(call))
    return { observers, calls }
  }

  it('tells every attempt with its status, failure and the server clock of its Date header', async () => {
    let calls = 0
    const server = await serve((_request, response) => {
      calls++
      response.setHeader('Date', 'Tue, 05 Mar 2024 10:20:30 GMT')
      if (calls === 1) sendJson(response, 503, { code: 503, error: 'try later' })
      else sendJson(response, 200, { id: 2 })
    })
    const { observers, calls: seen } = observed()
    const { transport } = transportFor(server, { observers })
    await transport.json(read)
    expect(seen).toEqual([
      {
        operation: 'things.get',
        status: 503,
        kind: 'server',
        durationMs: expect.any(Number),
        serverDate: Date.parse('2024-03-05T10:20:30Z'),
      },
      {
        operation: 'things.get',
        status: 200,
        kind: null,
        durationMs: expect.any(Number),
        serverDate: Date.parse('2024-03-05T10:20:30Z'),
      },
    ])
  })

  it('tells an attempt nobody answered with no status and no server clock', async () => {
    const server = await serve((_request, response) => {
      response.socket?.destroy()
    })
    const { observers, calls } = observed()
    const { transport } = transportFor(server, {
      observers,
      retry: { ...quickRetries, attempts: 2 },
    })
    await failure(transport.json(read))
    expect(calls.map(({ status, kind, serverDate }) => ({ status, kind, serverDate }))).toEqual([
      { status: null, kind: 'network', serverDate: null },
      { status: null, kind: 'network', serverDate: null },
    ])
  })

  it('keeps a request going when an observer throws', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, { id: 2 }))
    const observers = new CallObservers()
    observers.add(() => {
      throw new Error('observer bug')
    })
    const { transport } = transportFor(server, { observers })
    expect(await transport.json(read)).toEqual({ id: 2 })
  })
})

describe('Transport retries', () => {
  it('recovers from server errors on reads', async () => {
    let calls = 0
    const server = await serve((_request, response) => {
      calls++
      if (calls <= 2) sendJson(response, 503, { code: 503, error: 'try later' })
      else sendJson(response, 200, { id: 2 })
    })
    const { transport } = transportFor(server)
    expect(await transport.json(read)).toEqual({ id: 2 })
    expect(server.requests).toHaveLength(3)
  })

  it('recovers from dropped connections', async () => {
    let calls = 0
    const server = await serve((_request, response) => {
      calls++
      if (calls === 1) response.socket?.destroy()
      else if (calls === 2) {
        response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' })
        response.write('{"id":')
        setImmediate(() => response.socket?.destroy())
      } else sendJson(response, 200, { id: 2 })
    })
    const { transport } = transportFor(server)
    expect(await transport.json(read)).toEqual({ id: 2 })
    expect(server.requests).toHaveLength(3)
  })

  it('gives up after the configured attempts with the last error', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 502, { code: 502, error: 'bad gateway' }),
    )
    const { transport } = transportFor(server)
    const error = await failure(transport.json(read))
    expect(error).toMatchObject({ kind: 'server', status: 502 })
    expect(server.requests).toHaveLength(quickRetries.attempts)
  })

  it('never retries a create', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 503, { code: 503, error: 'busy' }),
    )
    const { transport } = transportFor(server)
    const error = await failure(
      transport.json({ operation: 'things.create', method: 'POST', path: '/things', json: {} }),
    )
    expect(error.kind).toBe('server')
    expect(server.requests).toHaveLength(1)
  })

  it('retries a request that starts an export only when it was refused with 429', async () => {
    let calls = 0
    const server = await serve((_request, response) => {
      calls++
      if (calls === 1) sendJson(response, 429, { code: 429, error: 'export queue full' })
      else sendJson(response, 500, { code: 500, error: 'oops' })
    })
    const { transport } = transportFor(server)
    const error = await failure(
      transport.json({
        operation: 'things.export',
        method: 'POST',
        path: '/q',
        json: {},
        retry: 'rejected-only',
      }),
    )
    expect(error.status).toBe(500)
    expect(server.requests).toHaveLength(2)
  })

  it('waits as Retry-After says rather than its own backoff', async () => {
    let calls = 0
    const server = await serve((_request, response) => {
      calls++
      if (calls === 1) {
        response.writeHead(429, { 'Retry-After': '0', 'Content-Type': 'application/json' })
        response.end(JSON.stringify({ code: 429, error: 'slow down' }))
      } else sendJson(response, 200, { id: 2 })
    })
    // Without Retry-After this backoff would outlast the test's time limit.
    const { transport } = transportFor(server, {
      retry: { ...quickRetries, baseDelayMs: 600_000, maxDelayMs: 600_000 },
    })
    expect(await transport.json(read)).toEqual({ id: 2 })
  })

  it('hands a Retry-After longer than it will wait to the caller', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(429, { 'Retry-After': '300' })
      response.end()
    })
    const { transport } = transportFor(server)
    const error = await failure(transport.json(read))
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterMs: 300_000 })
    expect(server.requests).toHaveLength(1)
  })

  it.each(['1000000000', '3600', 'Fri, 01 Jan 2100 00:00:00 GMT'])(
    'caps a Retry-After of %s at ten minutes',
    async (retryAfter) => {
      const server = await serve((_request, response) => {
        response.writeHead(429, { 'Retry-After': retryAfter })
        response.end()
      })
      const { transport } = transportFor(server)
      const error = await failure(transport.json(read))
      expect(error).toMatchObject({ kind: 'rate_limited', retryAfterMs: retryAfterCapMs })
      expect(retryAfterCapMs).toBe(600_000)
    },
  )

  it('times out a request the server never answers, then retries it', async () => {
    let calls = 0
    const server = await serve((_request, response) => {
      calls++
      if (calls > 1) sendJson(response, 200, { id: 2 })
    })
    const { transport } = transportFor(server, { timeoutMs: 200 })
    expect(await transport.json(read)).toEqual({ id: 2 })
    expect(server.requests).toHaveLength(2)
  })

  it('reports a timeout when no attempt is answered', async () => {
    const server = await serve(() => {})
    const { transport } = transportFor(server, {
      timeoutMs: 100,
      retry: { ...quickRetries, attempts: 2 },
    })
    const error = await failure(transport.json(read))
    expect(error.kind).toBe('network')
    expect(error.message).toContain('within 100 ms')
  })
})

describe('Transport limits and cancelling', () => {
  it('keeps at most 3 requests in flight for one user', async () => {
    const server = await serve(async (request, response) => {
      await new Promise((resolve) => setTimeout(resolve, 50))
      sendJson(response, 200, { url: request.url })
    })
    const { transport } = transportFor(server)
    const calls = Array.from({ length: 20 }, (_, index) =>
      transport.json({ ...read, path: `/things/${index}` }),
    )
    const answers = await Promise.all(calls)
    expect(answers).toHaveLength(20)
    expect(server.maxInFlight).toBeLessThanOrEqual(3)
    expect(server.maxInFlight).toBeGreaterThanOrEqual(2)
  })

  it('frees the slot of a cancelled request at once for the next caller', async () => {
    const server = await serve((request, response) => {
      if (request.url.endsWith('/quick')) sendJson(response, 200, { quick: true })
    })
    const { transport } = transportFor(server)
    const controllers = [new AbortController(), new AbortController(), new AbortController()]
    const hanging = controllers.map((controller) =>
      failure(transport.json({ ...read, signal: controller.signal })),
    )
    while (server.requests.length < 3) await new Promise((resolve) => setTimeout(resolve, 5))
    const quick = transport.json({ ...read, path: '/quick' })
    controllers[0]!.abort()
    expect(await quick).toEqual({ quick: true })
    expect((await hanging[0])?.kind).toBe('cancelled')
    controllers[1]!.abort()
    controllers[2]!.abort()
    await Promise.all(hanging)
  })

  it('frees the slot when a streamed body is abandoned mid-way', async () => {
    const server = await serve((request, response) => {
      if (request.url.endsWith('/quick')) return sendJson(response, 200, { quick: true })
      response.writeHead(200)
      response.write('first chunk')
    })
    const { transport } = transportFor(server)
    const controller = new AbortController()
    const opened = await Promise.all(
      [1, 2, 3].map(() => transport.open({ ...read, signal: controller.signal })),
    )
    const iterator = opened[0]!.chunks[Symbol.asyncIterator]()
    await iterator.next()
    const quick = transport.json({ ...read, path: '/quick' })
    controller.abort()
    expect(await quick).toEqual({ quick: true })
  })
})
