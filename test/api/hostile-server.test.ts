import type http from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { VaultClient, type VaultClientOptions } from '../../src-main/api/client.ts'
import { ApiError } from '../../src-main/api/errors.ts'
import { LimiterRegistry } from '../../src-main/api/limiter-registry.ts'
import { maxErrorTextLength } from '../../src-main/shared/error-text.ts'
import {
  loopbackServer,
  type LoopbackHandler,
  type LoopbackServer,
} from './support/loopback-server.ts'

/** What a broken proxy or a hostile server sends back: the client must stay whole and clear. */

const token = 'tok-9d2e-hostile-secret'
const servers: LoopbackServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function clientOf(
  handler: LoopbackHandler,
  options: Partial<VaultClientOptions> = {},
): Promise<{ client: VaultClient; server: LoopbackServer }> {
  const server = await loopbackServer(handler)
  servers.push(server)
  const client = new VaultClient({
    baseUrl: server.url,
    token,
    limiters: new LimiterRegistry(),
    retry: { attempts: 1 },
    ...options,
  })
  return { client, server }
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`)
  return error
}

/** Writes `chunk` for as long as the client reads, and never ends the body. */
function endless(response: http.ServerResponse, chunk: Buffer): void {
  const pump = () => {
    while (!response.destroyed && response.write(chunk)) {
      // The socket takes more: keep writing until it asks to wait.
    }
  }
  response.on('drain', pump)
  pump()
}

describe('error text from a hostile server', () => {
  it('reduces a 200 KB HTML error page that echoes the token to its title', async () => {
    const page =
      '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>502 Bad Gateway &amp; friends</title></head><body>' +
      `<p>Your request carried X-SVC-Token: ${token}</p>\n`.repeat(4000) +
      '</body></html>'
    expect(page.length).toBeGreaterThan(200_000)
    const { client } = await clientOf((_request, response) => {
      response.writeHead(502, { 'Content-Type': 'text/html; charset=utf-8' })
      response.end(page)
    })
    const error = await failure(client.vaults.list())
    expect(error.message).toBe('vaults.list: 502 Bad Gateway & friends')
    expect(error.serverMessage).toBe('502 Bad Gateway & friends')
    expect(JSON.stringify(error.details)).not.toContain(token)
  })

  it('names a page without a title by its status', async () => {
    const { client } = await clientOf((_request, response) => {
      response.writeHead(503, { 'Content-Type': 'text/html' })
      response.end(`<html><body>${'<div>maintenance</div>'.repeat(10_000)}</body></html>`)
    })
    const error = await failure(client.vaults.list())
    expect(error.message).toBe('vaults.list: 503 Service Unavailable')
    expect(error.serverMessage).toBeUndefined()
  })

  it('caps a long plain-text error, takes out the echoed token and its escape sequences', async () => {
    const { client } = await clientOf((_request, response) => {
      response.writeHead(400, { 'Content-Type': 'text/plain' })
      response.end(`\u001b[2J\u001b[31mrefused ${token}\r\n`.repeat(8000))
    })
    const error = await failure(client.vaults.list())
    expect(error.message.length).toBe(maxErrorTextLength)
    expect(error.message.endsWith('…')).toBe(true)
    expect(error.message).toMatch(/^vaults\.list: 400 \ufffd\[2J\ufffd\[31mrefused \[redacted\]/)
    expect(error.message).not.toContain(token)
    expect(error.message).not.toContain('\u001b')
    expect(error.serverMessage!.length).toBeLessThanOrEqual(maxErrorTextLength)
  })

  it('takes the echoed token out of an error record', async () => {
    const { client } = await clientOf((_request, response) => {
      response.writeHead(403, { 'Content-Type': 'application/json' })
      response.end(JSON.stringify({ code: 403, error: `the token ${token} may not read this` }))
    })
    const error = await failure(client.vaults.list())
    expect(error.kind).toBe('forbidden')
    expect(error.serverMessage).toBe('the token [redacted] may not read this')
    expect(error.message).toBe('vaults.list: 403 the token [redacted] may not read this')
  })
})

describe('answers without end', () => {
  it('stops reading an endless answer at the configured limit, naming it', async () => {
    const { client, server } = await clientOf(
      (_request, response) => {
        response.writeHead(200, { 'Content-Type': 'application/json' })
        endless(response, Buffer.alloc(64 * 1024, ' '))
      },
      { maxBodyBytes: 1024 ** 2 },
    )
    const error = await failure(client.vaults.list())
    expect(error.kind).toBe('bad_response')
    expect(error.message).toBe(
      'vaults.list: the answer is larger than 1 MiB, the most read whole (more than that arrived); it was not read further.',
    )
    expect(server.requests).toHaveLength(1)
  })

  it('holds an endless answer to 64 MiB by default', async () => {
    const { client } = await clientOf((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' })
      endless(response, Buffer.alloc(1024 ** 2, ' '))
    })
    const error = await failure(client.vaults.list())
    expect(error.kind).toBe('bad_response')
    expect(error.message).toContain('larger than 64 MiB')
  })

  it('refuses an answer that announces more than the limit before reading it', async () => {
    const { client } = await clientOf(
      (_request, response) => {
        response.writeHead(200, {
          'Content-Type': 'application/json',
          'Content-Length': String(10 * 1024 ** 3),
        })
        response.write('[')
      },
      { maxBodyBytes: 1024 ** 2 },
    )
    const error = await failure(client.vaults.list())
    expect(error.message).toContain('larger than 1 MiB, the most read whole (it announced 10 GiB)')
  })

  it('reads an error answer without end only as far as its message', async () => {
    const { client } = await clientOf((_request, response) => {
      response.writeHead(500, { 'Content-Type': 'text/plain' })
      endless(response, Buffer.from('out of order '.repeat(5000)))
    })
    const error = await failure(client.vaults.list())
    expect(error.kind).toBe('server')
    expect(error.message).toMatch(/^vaults\.list: 500 out of order out of order/)
    expect(error.message.length).toBe(maxErrorTextLength)
  })

  it.each([0, -1, 1.5, Number.NaN])('refuses a limit of %s', (maxBodyBytes) => {
    expect(
      () => new VaultClient({ baseUrl: 'https://vault.example.org/api/v1', token, maxBodyBytes }),
    ).toThrow(/maxBodyBytes must be a whole number of bytes above 0/)
  })
})
