import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { VaultClient } from './client.ts'
import { ApiError } from './errors.ts'
import { LimiterRegistry } from './limiter-registry.ts'
import type { UploadProgress } from './multipart.ts'

const token = 'stream-token-7'
let directory: string
let small: string
let large: string
const servers: http.Server[] = []

beforeAll(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-streamed-'))
  small = path.join(directory, 'small.bin')
  fs.writeFileSync(small, randomBytes(4 * 1024 * 1024))
  // More than loopback socket buffers hold, so a server that stops reading stalls the upload.
  large = path.join(directory, 'large.bin')
  const block = randomBytes(1024 * 1024)
  fs.writeFileSync(large, Buffer.concat(Array.from({ length: 48 }, () => block)))
})
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }))
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        }),
    ),
  )
})

interface Seen {
  method: string
  url: string
  token: string | undefined
  bytes: number
}

async function serve(
  handler: (request: http.IncomingMessage, response: http.ServerResponse, seen: Seen) => void,
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = []
  const server = http.createServer((request, response) => {
    const entry: Seen = {
      method: request.method ?? '',
      url: request.url ?? '',
      token: request.headers['x-svc-token'] as string | undefined,
      bytes: 0,
    }
    seen.push(entry)
    request.on('data', (chunk: Buffer) => (entry.bytes += chunk.length))
    handler(request, response, entry)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, seen }
}

function answer(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(body))
}

/** Reads the body with a pause after every `every` bytes. */
function readWithPauses(
  request: http.IncomingMessage,
  every: number,
  pauseMs: number,
  then: () => void,
): void {
  let sincePause = 0
  request.on('data', (chunk: Buffer) => {
    sincePause += chunk.length
    if (sincePause < every) return
    sincePause = 0
    request.pause()
    setTimeout(() => request.resume(), pauseMs)
  })
  request.on('end', then)
}

function clientFor(url: string): VaultClient {
  return new VaultClient({ baseUrl: url, token, limiters: new LimiterRegistry() })
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`)
  return error
}

const attachment = (file: string) => ({ file, resource_class: 'run' as const, resource_id: 4 })

describe('streamed uploads', () => {
  it('keeps sending while bytes move, however long it takes past the idle deadline', async () => {
    // Pauses shorter than the deadline, adding up to several times it.
    const server = await serve((request, response) =>
      readWithPauses(request, 6 * 1024 * 1024, 150, () =>
        answer(response, 200, { id: 9, name: 'large.bin' }),
      ),
    )
    const progress: UploadProgress[] = []
    const started = performance.now()
    const sent = await clientFor(server.url).files.attach(3, attachment(large), {
      timeoutMs: 600,
      onProgress: (step) => progress.push(step),
    })
    expect(sent).toEqual({ id: 9, name: 'large.bin' })
    expect(performance.now() - started).toBeGreaterThan(900)
    expect(server.seen[0]).toMatchObject({ method: 'POST', url: '/api/v1/vaults/3/files', token })
    expect(server.seen[0]!.bytes).toBe(progress.at(-1)!.totalBytes)
    expect(progress.at(-1)!.sentBytes).toBe(progress.at(-1)!.totalBytes)
  })

  it('gives up on an upload the server stops taking, saying it stalled', async () => {
    const server = await serve((request) => request.pause())
    const started = performance.now()
    const error = await failure(
      clientFor(server.url).files.attach(3, attachment(large), { timeoutMs: 300 }),
    )
    expect(error.kind).toBe('network')
    expect(error.message).toContain('stalled: nothing moved for 300 ms')
    expect(performance.now() - started).toBeLessThan(10_000)
    expect(server.seen[0]!.bytes).toBe(0)
  })

  it('stops sending when the server answers before the body is all sent', async () => {
    const server = await serve((request, response) => {
      request.pause()
      answer(response, 413, { code: 413, error: 'The file is too large' })
    })
    const error = await failure(clientFor(server.url).files.attach(3, attachment(large)))
    expect(error).toMatchObject({ status: 413, serverMessage: 'The file is too large' })
  })

  it('cancels an upload under way when the caller aborts', async () => {
    const server = await serve((request, response) =>
      readWithPauses(request, 1024 * 1024, 20, () => answer(response, 200, { id: 1 })),
    )
    const controller = new AbortController()
    const error = await failure(
      clientFor(server.url).files.attach(3, attachment(small), {
        signal: controller.signal,
        onProgress: (step) => {
          if (step.sentBytes > 1024 * 1024) controller.abort()
        },
      }),
    )
    expect(error.kind).toBe('cancelled')
  })

  it('never sends an upload twice for a redirect, and follows a 303 to its answer', async () => {
    const server = await serve((request, response) => {
      request.resume()
      request.on('end', () => {
        if (request.url === '/api/v1/vaults/3/files') {
          response.writeHead(307, { location: '/api/v1/elsewhere' }).end()
        } else if (request.url === '/api/v1/vaults/4/files') {
          response.writeHead(303, { location: '/api/v1/answers/12' }).end()
        } else answer(response, 200, { id: 12, name: 'small.bin' })
      })
    })
    const client = clientFor(server.url)
    const refused = await failure(client.files.attach(3, attachment(small)))
    expect(refused.message).toContain('the server redirected an upload')
    expect(await client.files.attach(4, attachment(small))).toEqual({ id: 12, name: 'small.bin' })
    expect(server.seen.map((seen) => [seen.method, seen.url, seen.token])).toEqual([
      ['POST', '/api/v1/vaults/3/files', token],
      ['POST', '/api/v1/vaults/4/files', token],
      ['GET', '/api/v1/answers/12', token],
    ])
  })

  it('reports a server it cannot reach with the system’s code, so the upload is known unsent', async () => {
    const server = await serve(() => {})
    const url = server.url
    await new Promise<void>((resolve) => {
      const closing = servers.pop()!
      closing.close(() => resolve())
    })
    const error = await failure(clientFor(url).files.attach(3, attachment(small)))
    expect(error.kind).toBe('network')
    expect(error.message).toContain('ECONNREFUSED')
    expect(error.message).not.toContain(token)
  })
})
