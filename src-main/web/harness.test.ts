import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import vm from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { createDispatcher } from '../ipc/dispatcher.ts'
import { createHandlers } from '../ipc/handlers.ts'
import { createServices, type Services } from '../services/index.ts'
import type { Logger } from '../shared/logger.ts'
import { startHarness, type Harness } from './harness.ts'

interface RawResponse {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

let workDir: string
let services: Services
let harness: Harness
let hostHeader: string
/** The `name=value` this test's client got for the run's token; sent unless a test says not. */
let signedIn: string
const logged: string[] = []

/** Keeps every line the harness logs, fields included, to look for secrets in. */
const recordingLogger: Logger = {
  debug: (message, fields) => void logged.push(`${message} ${JSON.stringify(fields ?? {})}`),
  info: (message, fields) => void logged.push(`${message} ${JSON.stringify(fields ?? {})}`),
  warn: (message, fields) => void logged.push(`${message} ${JSON.stringify(fields ?? {})}`),
  error: (message, fields) => void logged.push(`${message} ${JSON.stringify(fields ?? {})}`),
  child: () => recordingLogger,
}

/**
 * A request sent byte for byte as given: no URL normalisation, any Host header, the signed-in
 * cookie unless `cookie` is given (null sends none).
 */
function rawRequest(
  rawPath: string,
  options: { host?: string; method?: string; cookie?: string | null; origin?: string } = {},
  origin = harness.origin,
): Promise<RawResponse> {
  const { port } = new URL(origin)
  const cookie = options.cookie === undefined ? signedIn : options.cookie
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: rawPath,
        method: options.method ?? 'GET',
        headers: {
          host: options.host ?? new URL(origin).host,
          ...(cookie === null ? {} : { cookie }),
          ...(options.origin === undefined ? {} : { origin: options.origin }),
        },
      },
      (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        )
      },
    )
    request.on('error', reject)
    request.end()
  })
}

async function pageSecret(): Promise<string> {
  const page = await rawRequest('/')
  const secret = /data-secret="([0-9a-f]+)"/.exec(page.body)?.[1]
  if (!secret) throw new Error(`The page carries no secret:\n${page.body}`)
  return secret
}

/** The cookie a first load with the run's token sets, as a `Cookie` header value. */
async function signIn(entryUrl: string): Promise<string> {
  const url = new URL(entryUrl)
  const answer = await rawRequest(`${url.pathname}${url.search}`, { cookie: null }, url.origin)
  const setCookie = answer.headers['set-cookie']?.[0]
  if (answer.status !== 303 || !setCookie) {
    throw new Error(`The token was not exchanged: ${answer.status} ${answer.body}`)
  }
  return setCookie.split(';')[0] ?? ''
}

interface SocketOptions {
  secret?: string | null
  origin?: string | null
  host?: string
  cookie?: string | null
}

/** Opens a bridge socket; resolves with it, or rejects with the HTTP status of the refusal. */
function openSocket(options: SocketOptions): Promise<WebSocket> {
  const url = new URL('/bridge', harness.origin.replace('http:', 'ws:'))
  if (options.secret != null) url.searchParams.set('secret', options.secret)
  const origin = options.origin === undefined ? harness.origin : options.origin
  const cookie = options.cookie === undefined ? signedIn : options.cookie
  const socket = new WebSocket(url, {
    ...(origin === null ? {} : { origin }),
    headers: { host: options.host ?? hostHeader, ...(cookie === null ? {} : { cookie }) },
  })
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket))
    socket.once('unexpected-response', (_request, response) => {
      reject(new Error(`refused with ${response.statusCode}`))
      socket.terminate()
    })
    socket.once('error', reject)
  })
}

function nextMessage(socket: WebSocket): Promise<Record<string, unknown>> {
  return new Promise((resolve) =>
    socket.once('message', (data) => resolve(JSON.parse(String(data)) as Record<string, unknown>)),
  )
}

function closeOf(socket: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  )
}

beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-harness-'))
  const rendererDir = path.join(workDir, 'renderer')
  fs.mkdirSync(path.join(rendererDir, 'assets'), { recursive: true })
  fs.writeFileSync(
    path.join(rendererDir, 'index.html'),
    '<!doctype html><html><head><script type="module" src="./assets/app.js"></script></head><body></body></html>',
  )
  fs.writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log("app")\n')
  fs.writeFileSync(path.join(workDir, 'outside.txt'), 'OUTSIDE-SECRET')
  fs.symlinkSync(path.join(workDir, 'outside.txt'), path.join(rendererDir, 'assets', 'link.txt'))

  services = createServices({ host: 'web', dataDir: path.join(workDir, 'data') })
  harness = await startHarness({
    dispatch: createDispatcher(createHandlers(services), services.log),
    events: services.events,
    rendererDir,
    log: recordingLogger,
  })
  hostHeader = new URL(harness.origin).host
  signedIn = await signIn(harness.url)
})

afterAll(async () => {
  await harness?.close()
  await services?.close()
  fs.rmSync(workDir, { recursive: true, force: true })
})

describe('the harness over HTTP', () => {
  it('listens on loopback only', () => {
    expect(new URL(harness.url).hostname).toBe('127.0.0.1')
  })

  it('serves the page with the bridge script in its head and a CSP widened only by its socket', async () => {
    const page = await rawRequest('/')
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toContain('text/html')
    expect(page.body).toMatch(
      /<head>.*<script src="\/vault-desk-harness\.js" data-secret="[0-9a-f]{64}"><\/script>\s*<\/head>/s,
    )
    const csp = String(page.headers['content-security-policy'])
    expect(csp).toContain(`connect-src ws://${hostHeader};`)
    expect(csp).toContain("script-src 'self';")
    expect(csp).toContain("style-src 'self';")
    expect(page.headers['x-content-type-options']).toBe('nosniff')
  })

  it('uses a new secret on every run', async () => {
    const other = await startHarness({
      dispatch: createDispatcher(createHandlers(services), services.log),
      events: services.events,
      rendererDir: path.join(workDir, 'renderer'),
    })
    try {
      const otherCookie = await signIn(other.url)
      const otherPage = await rawRequest('/', { cookie: otherCookie }, other.origin)
      expect(otherPage.status).toBe(200)
      expect(otherPage.body).not.toContain(await pageSecret())
    } finally {
      await other.close()
    }
  })

  it('serves the bridge script as plain JavaScript with the CSP header', async () => {
    const script = await rawRequest('/vault-desk-harness.js')
    expect(script.status).toBe(200)
    expect(script.headers['content-type']).toContain('text/javascript')
    expect(script.headers['content-security-policy']).toBeDefined()
    expect(() => new vm.Script(script.body)).not.toThrow()
    expect(script.body).toContain('window')
  })

  it('serves files of the renderer', async () => {
    const asset = await rawRequest('/assets/app.js')
    expect(asset.status).toBe(200)
    expect(asset.body).toBe('console.log("app")\n')
    expect((await rawRequest('/assets/none.js')).status).toBe(404)
  })

  it.each([
    ['a foreign name', () => 'evil.example'],
    ['a foreign name on its port', (port: string) => `evil.example:${port}`],
    ['localhost instead of its address', (port: string) => `localhost:${port}`],
  ])('refuses a Host header with %s (DNS rebinding)', async (_what, hostFor) => {
    const answer = await rawRequest('/', { host: hostFor(new URL(harness.origin).port) })
    expect(answer.status).toBe(403)
    expect(answer.body).not.toContain('data-secret')
  })

  it.each([
    '/../outside.txt',
    '/assets/../../outside.txt',
    '/%2e%2e/outside.txt',
    '/assets/..%2f..%2foutside.txt',
    '/assets/link.txt',
  ])('refuses to leave the renderer folder: %s', async (rawPath) => {
    const answer = await rawRequest(rawPath)
    expect(answer.status).toBe(403)
    expect(answer.body).not.toContain('OUTSIDE-SECRET')
  })

  it('answers malformed paths and other methods with a clear error', async () => {
    const malformed = await rawRequest('/%E0%A4%A')
    expect(malformed.status).toBe(400)
    expect(malformed.body).toContain('percent-encoding')
    const post = await rawRequest('/', { method: 'POST' })
    expect(post.status).toBe(405)
    expect(post.headers.allow).toBe('GET, HEAD')
  })

  it('refuses to start without a built renderer, saying how to build it', async () => {
    await expect(
      startHarness({
        dispatch: createDispatcher(createHandlers(services), services.log),
        events: services.events,
        rendererDir: path.join(workDir, 'nothing-here'),
      }),
    ).rejects.toThrow(/electron-vite build/)
  })
})

describe("the harness to a client without the run's token", () => {
  const token = () => new URL(harness.url).searchParams.get('token') ?? ''

  it('prints an address with a long random token, and a clean page address', () => {
    const entry = new URL(harness.url)
    expect(entry.origin).toBe(harness.origin)
    expect(entry.pathname).toBe('/')
    expect(token()).toMatch(/^[\w-]{43}$/)
    expect(harness.pageUrl).toBe(`${harness.origin}/`)
  })

  it.each([
    ['the page', '/', 'GET'],
    ['the page, HEAD', '/', 'HEAD'],
    ['index.html', '/index.html', 'GET'],
    ['an asset', '/assets/app.js', 'GET'],
    ['the bridge script', '/vault-desk-harness.js', 'GET'],
    ['a missing file', '/assets/none.js', 'GET'],
    ['a path outside', '/../outside.txt', 'GET'],
    ['a POST', '/', 'POST'],
  ])('refuses %s, whatever its Origin says', async (_what, rawPath, method) => {
    for (const origin of [undefined, harness.origin]) {
      const answer = await rawRequest(rawPath, { cookie: null, method, origin })
      expect(answer.status).toBe(403)
      expect(answer.headers['set-cookie']).toBeUndefined()
      expect(answer.body).not.toMatch(/data-secret|console\.log|OUTSIDE-SECRET|window/)
    }
  })

  it('refuses the WebSocket without the cookie, even with the secret and a forged Origin', async () => {
    const secret = await pageSecret()
    await expect(openSocket({ secret, cookie: null })).rejects.toThrow('403')
    await expect(
      openSocket({ secret, cookie: `${signedIn.split('=')[0]}=${'A'.repeat(43)}` }),
    ).rejects.toThrow('403')
  })

  it.each([
    ['a wrong token', () => 'A'.repeat(43)],
    ['the token cut short', () => token().slice(1)],
    ['the token with more after it', () => `${token()}x`],
    ['an empty token', () => ''],
    ['the WebSocket secret instead', () => ''],
  ])('gives %s nothing, cookie included', async (what, tokenFor) => {
    const given = what.includes('secret') ? await pageSecret() : tokenFor()
    const answer = await rawRequest(`/?token=${given}`, { cookie: null })
    expect(answer.status).toBe(403)
    expect(answer.body).toContain('Wrong token')
    expect(answer.headers['set-cookie']).toBeUndefined()
    expect(answer.headers.location).toBeUndefined()
  })

  it('refuses the right token given twice beside a wrong one', async () => {
    const answer = await rawRequest(`/?token=${'A'.repeat(43)}&token=${token()}`, { cookie: null })
    expect(answer.status).toBe(403)
    expect(answer.headers['set-cookie']).toBeUndefined()
  })

  it('trades the token for a strict, HttpOnly cookie and sends the browser on to a clean address', async () => {
    const answer = await rawRequest(`/?token=${token()}`, { cookie: null })
    expect(answer.status).toBe(303)
    expect(answer.headers.location).toBe(harness.pageUrl)
    const [cookie, ...attributes] = (answer.headers['set-cookie']?.[0] ?? '').split(/;\s*/)
    expect(cookie).toBe(signedIn)
    expect(attributes.sort()).toEqual(['HttpOnly', 'Path=/', 'SameSite=Strict'])
    expect(answer.body).not.toContain(token())

    const page = await rawRequest('/', { cookie })
    expect(page.status).toBe(200)
    expect(page.body).toContain('data-secret')
    expect((await rawRequest('/assets/app.js', { cookie })).status).toBe(200)
    const socket = await openSocket({ secret: await pageSecret(), cookie })
    socket.close()
  })

  it('keeps the path and the rest of the query, on its own origin, when trading the token', async () => {
    const kept = await rawRequest(`/assets/app.js?v=2&token=${token()}&x=%20y`, { cookie: null })
    expect(kept.headers.location).toBe(`${harness.origin}/assets/app.js?v=2&x=+y`)
    const foreign = await rawRequest(`//evil.example/x?token=${token()}`, { cookie: null })
    expect(foreign.status).toBe(303)
    expect(foreign.headers.location).toBe(`${harness.origin}//evil.example/x`)
  })

  it("refuses another run's cookie and a forged one under this run's name", async () => {
    const other = await startHarness({
      dispatch: createDispatcher(createHandlers(services), services.log),
      events: services.events,
      rendererDir: path.join(workDir, 'renderer'),
    })
    try {
      const otherCookie = await signIn(other.url)
      expect(otherCookie.split('=')[0]).not.toBe(signedIn.split('=')[0])
      expect((await rawRequest('/', { cookie: otherCookie })).status).toBe(403)
      const forged = `${signedIn.split('=')[0]}=${otherCookie.split('=')[1]}`
      expect((await rawRequest('/', { cookie: forged })).status).toBe(403)
      expect((await rawRequest('/', { cookie: `${otherCookie}; ${signedIn}` })).status).toBe(200)
    } finally {
      await other.close()
    }
  })

  it('never writes the token or the cookie to its log', async () => {
    await rawRequest(`/?token=${token()}`, { cookie: null })
    await expect(openSocket({ secret: token(), origin: null })).rejects.toThrow('403')
    expect(logged.some((line) => line.includes('refused a WebSocket'))).toBe(true)
    for (const line of logged) {
      expect(line).not.toContain(token())
      expect(line).not.toContain(signedIn.split('=')[1])
    }
  })
})

describe('the harness WebSocket', () => {
  it('refuses another Origin, no Origin, a wrong or missing secret and a foreign Host', async () => {
    const secret = await pageSecret()
    await expect(openSocket({ secret, origin: 'http://evil.example' })).rejects.toThrow('403')
    await expect(openSocket({ secret, origin: null })).rejects.toThrow('403')
    await expect(openSocket({ secret: 'f'.repeat(64) })).rejects.toThrow('403')
    await expect(openSocket({ secret: secret.slice(1) })).rejects.toThrow('403')
    await expect(openSocket({ secret: null })).rejects.toThrow('403')
    await expect(openSocket({ secret, host: 'evil.example' })).rejects.toThrow('403')
  })

  it('round trips requests through the real dispatcher, errors as values', async () => {
    const socket = await openSocket({ secret: await pageSecret() })
    try {
      socket.send(JSON.stringify({ id: 1, channel: 'app.info', args: {} }))
      const info = await nextMessage(socket)
      expect(info).toMatchObject({
        id: 1,
        result: { ok: true, value: { name: 'Vault Desk', host: 'web' } },
      })

      socket.send(JSON.stringify({ id: 'two', channel: 'fs.readFile', args: {} }))
      expect(await nextMessage(socket)).toEqual({
        id: 'two',
        result: {
          ok: false,
          error: { code: 'unknown_channel', message: 'Unknown request channel: fs.readFile' },
        },
      })

      socket.send(JSON.stringify({ id: 3, channel: 'app.status', args: { extra: true } }))
      expect(await nextMessage(socket)).toMatchObject({
        id: 3,
        result: { ok: false, error: { code: 'invalid_argument' } },
      })
    } finally {
      socket.close()
    }
  })

  it('pushes events to every connected page', async () => {
    const secret = await pageSecret()
    const first = await openSocket({ secret })
    const second = await openSocket({ secret })
    try {
      const received = Promise.all([nextMessage(first), nextMessage(second)])
      services.status.update({ online: true, outboxPending: 2 })
      for (const message of await received) {
        expect(message).toEqual({
          event: 'status.changed',
          payload: { online: true, syncing: false, lastSyncAt: null, outboxPending: 2 },
        })
      }
    } finally {
      first.close()
      second.close()
    }
  })

  it.each([
    ['text that is not JSON', 'not json', 1007],
    ['a request without an id', JSON.stringify({ channel: 'app.info', args: {} }), 1008],
    ['a bare array', JSON.stringify([1, 'app.info']), 1008],
  ])('closes the socket on %s, saying why', async (_what, message, code) => {
    const socket = await openSocket({ secret: await pageSecret() })
    const closed = closeOf(socket)
    socket.send(message)
    const { code: closeCode, reason } = await closed
    expect(closeCode).toBe(code)
    expect(reason.length).toBeGreaterThan(0)
  })

  it('closes the socket on an oversized message and keeps serving others', async () => {
    const secret = await pageSecret()
    const socket = await openSocket({ secret })
    const closed = closeOf(socket)
    socket.send('x'.repeat(16 * 1024 * 1024 + 1))
    expect((await closed).code).toBe(1009)

    const next = await openSocket({ secret })
    try {
      next.send(JSON.stringify({ id: 1, channel: 'app.status', args: {} }))
      expect(await nextMessage(next)).toMatchObject({ id: 1, result: { ok: true } })
    } finally {
      next.close()
    }
  })

  it('closes the socket on binary messages', async () => {
    const socket = await openSocket({ secret: await pageSecret() })
    const closed = closeOf(socket)
    socket.send(Buffer.from([1, 2, 3]))
    expect(await closed).toEqual({ code: 1003, reason: 'Binary messages are not supported.' })
  })
})

describe('the harness saving exports as downloads', () => {
  /** Sends one request over a fresh bridge socket and answers its result. */
  async function request(channel: string, args: unknown): Promise<Record<string, unknown>> {
    const socket = await openSocket({ secret: await pageSecret() })
    try {
      socket.send(JSON.stringify({ id: 1, channel, args }))
      return (await nextMessage(socket)).result as Record<string, unknown>
    } finally {
      socket.close()
    }
  }

  async function chooseCsv(suggestedName: string): Promise<{ path: string; download: string }> {
    const result = await request('app.chooseSavePath', { format: 'csv', suggestedName })
    expect(result).toMatchObject({ ok: true })
    return result.value as { path: string; download: string }
  }

  it('names a file in the data folder and an unguessable address for it', async () => {
    const first = await chooseCsv('Molecules: “aspirin” / filtered')
    const second = await chooseCsv('Molecules: “aspirin” / filtered')
    const downloads = path.join(workDir, 'data', 'downloads')
    expect(first.path.startsWith(downloads + path.sep)).toBe(true)
    expect(path.basename(first.path)).toBe('Molecules “aspirin” filtered.csv')
    expect(fs.existsSync(path.dirname(first.path))).toBe(true)
    expect(first.download).toMatch(/^\/downloads\/[\w-]{32}\/Molecules%20/)
    expect(second.download).not.toBe(first.download)
    expect(second.path).not.toBe(first.path)
  })

  it('serves the file once it is complete, once, to the signed-in browser only', async () => {
    const target = await chooseCsv('Plates')
    expect((await rawRequest(target.download)).status).toBe(404)

    fs.writeFileSync(target.path, 'ID,Name\n1,Ünïcode\n')
    expect((await rawRequest(target.download, { cookie: null })).status).toBe(403)
    const forged = target.download.replace(/\/downloads\/./, '/downloads/A')
    expect((await rawRequest(forged)).status).toBe(404)
    const head = await rawRequest(target.download, { method: 'HEAD' })
    expect(head.status).toBe(200)

    const answer = await rawRequest(target.download)
    expect(answer.status).toBe(200)
    expect(answer.body).toBe('ID,Name\n1,Ünïcode\n')
    expect(answer.headers['content-disposition']).toBe(
      `attachment; filename="Plates.csv"; filename*=UTF-8''Plates.csv`,
    )
    expect(answer.headers['x-content-type-options']).toBe('nosniff')
    await expect.poll(() => fs.existsSync(path.dirname(target.path))).toBe(false)
    expect((await rawRequest(target.download)).status).toBe(404)
  })

  it('forgets the address of an export that was cancelled or failed', async () => {
    const target = await chooseCsv('Runs')
    services.events.emit('exports.progress', {
      exportId: '00000000-0000-4000-8000-000000000000',
      state: 'cancelled',
      path: target.path,
      written: 0,
      total: 10,
      bytes: 0,
    })
    await expect.poll(() => fs.existsSync(path.dirname(target.path))).toBe(false)
    fs.mkdirSync(path.dirname(target.path), { recursive: true })
    fs.writeFileSync(target.path, 'late')
    expect((await rawRequest(target.download)).status).toBe(404)
  })

  it('forgets the address of a saved search run on the vault that failed or was cancelled', async () => {
    const run = {
      runId: 'run-1',
      connectionId: 'c1',
      vaultId: 1,
      searchId: 7,
      name: 'Kinase hits',
      format: 'csv' as const,
      exportId: 12,
      queuePosition: null,
      bytes: 0,
      checkedAt: null,
    }
    const running = await chooseCsv('Kinase hits')
    services.events.emit('searches.vaultRun', { ...run, path: running.path, state: 'running' })
    const failed = await chooseCsv('Kinase hits')
    services.events.emit('searches.vaultRun', {
      ...run,
      path: failed.path,
      state: 'failed',
      error: { code: 'export_failed', message: 'The vault could not run the search.' },
    })
    const cancelled = await chooseCsv('Kinase hits')
    services.events.emit('searches.vaultRun', { ...run, path: cancelled.path, state: 'cancelled' })

    for (const target of [failed, cancelled]) {
      await expect.poll(() => fs.existsSync(path.dirname(target.path))).toBe(false)
      fs.mkdirSync(path.dirname(target.path), { recursive: true })
      fs.writeFileSync(target.path, 'late')
      expect((await rawRequest(target.download)).status).toBe(404)
    }
    expect(fs.existsSync(path.dirname(running.path))).toBe(true)
    fs.writeFileSync(running.path, 'ID\n1\n')
    expect((await rawRequest(running.download)).body).toBe('ID\n1\n')
  })

  it('refuses to show a folder, and a bad argument, as values', async () => {
    expect(await request('app.showInFolder', { path: '/etc/passwd' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_argument', message: expect.stringMatching(/downloads/) },
    })
    expect(
      await request('app.chooseSavePath', { format: 'pdf', suggestedName: 'Molecules' }),
    ).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_argument',
        message: expect.stringMatching(/^Invalid argument for app.chooseSavePath: format/),
      },
    })
  })
})
