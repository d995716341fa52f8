/**
 * The browser harness: a loopback-only HTTP server that serves the built renderer and gives the
 * page the same `window.vaultDesk` as the Electron preload, over a WebSocket guarded by a secret
 * that is new on every run. Nothing at all is served to a browser that has not opened the run's
 * token address first (`access.ts`). Used by the end-to-end tests in Chromium and by
 * `npm run preview:web`.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import http from 'node:http'
import { stripTypeScriptTypes } from 'node:module'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import type { Duplex } from 'node:stream'
import { WebSocketServer } from 'ws'
import type { AppInfo } from '../shared/app-info.ts'
import { withDesktopShell } from '../ipc/app/desktop-shell.ts'
import type { Dispatch } from '../ipc/dispatcher.ts'
import { AppError } from '../shared/app-error.ts'
import { contentSecurityPolicy } from '../shared/content-security-policy.ts'
import type { EventBus } from '../shared/events.ts'
import { silentLogger, type Logger } from '../shared/logger.ts'
import { createHarnessAccess, sameSecret, type HarnessAccess } from './access.ts'
import { downloadPrefix, Downloads } from './downloads.ts'
import { SocketBridge } from './socket-bridge.ts'
import { contentTypeOf, resolveStaticFile } from './static-files.ts'

export interface HarnessOptions {
  dispatch: Dispatch
  events: EventBus
  /** The built renderer (`out/renderer`, from `electron-vite build`). */
  rendererDir: string
  /** 0 (the default) takes any free port. */
  port?: number
  log?: Logger
}

export interface Harness {
  /**
   * The address to open, with the run's token: `http://127.0.0.1:5317/?token=…`. The first load
   * trades the token for a cookie and lands on `pageUrl`; a hash added to it survives the trade.
   * Show it only to the person who started the harness.
   */
  readonly url: string
  /** The page's own address once in, for example `http://127.0.0.1:5317/`. */
  readonly pageUrl: string
  readonly origin: string
  close(): Promise<void>
}

const host = '127.0.0.1'
const clientScriptPath = '/vault-desk-harness.js'
const bridgePath = '/bridge'
/** Requests and events are small JSON documents; a page sending more than this is broken. */
const maxMessageBytes = 16 * 1024 * 1024

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const log = options.log ?? silentLogger
  const rendererDir = path.resolve(options.rendererDir)
  await readIndexHtml(rendererDir)
  const clientScript = await loadClientScript()
  const secret = randomBytes(32).toString('hex')

  // Exports are saved as downloads: the page has no save dialog here.
  const downloads = new Downloads(await downloadsFolder(options.dispatch), options.events, log)
  const dispatch = withDesktopShell(options.dispatch, downloads)
  const bridge = new SocketBridge(dispatch, options.events, log)
  const sockets = new WebSocketServer({ noServer: true, maxPayload: maxMessageBytes })
  const server = http.createServer()
  await listen(server, options.port ?? 0)
  const { port } = server.address() as AddressInfo
  const origin = `http://${host}:${port}`
  const ownHost = `${host}:${port}`
  const access = createHarnessAccess(origin)
  const securityHeaders = {
    'Content-Security-Policy': contentSecurityPolicy({ connectSources: [`ws://${ownHost}`] }),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  }

  const respond = (
    response: http.ServerResponse,
    status: number,
    body: string | Buffer,
    contentType = 'text/plain; charset=utf-8',
    headOnly = false,
    extraHeaders: http.OutgoingHttpHeaders = {},
  ) => {
    response.writeHead(status, {
      ...securityHeaders,
      ...extraHeaders,
      'Content-Type': contentType,
      'Content-Length': Buffer.byteLength(body),
    })
    response.end(headOnly ? undefined : body)
  }

  server.on('request', (request, response) => {
    void serve(request, response).catch((error: unknown) => {
      // The path only: the query may hold the token.
      log.error('harness failed to answer a request', { path: pathOf(request), error })
      if (!response.headersSent) respond(response, 500, 'Internal error.')
      else response.destroy()
    })
  })

  async function serve(request: http.IncomingMessage, response: http.ServerResponse) {
    if (request.headers.host !== ownHost) {
      respond(response, 403, `Refused: this server answers only to Host ${ownHost}.`)
      return
    }
    const verdict = access.verdict(request)
    if (verdict.kind === 'refused') {
      respond(response, 403, verdict.reason)
      return
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD')
      respond(response, 405, 'Only GET and HEAD are served.')
      return
    }
    const headOnly = request.method === 'HEAD'
    if (verdict.kind === 'exchange') {
      respond(response, 303, 'Signed in; on to the page.', undefined, headOnly, {
        'Set-Cookie': verdict.setCookie,
        Location: verdict.location,
      })
      return
    }
    const rawPath = pathOf(request)
    if (rawPath.startsWith(downloadPrefix)) {
      await downloads.serve(rawPath, response, securityHeaders, headOnly)
      return
    }
    if (rawPath === '/' || rawPath === '/index.html') {
      const html = injectClientScript(await readIndexHtml(rendererDir), secret)
      respond(response, 200, html, contentTypeOf('index.html'), headOnly)
      return
    }
    if (rawPath === clientScriptPath) {
      respond(response, 200, clientScript, contentTypeOf(clientScriptPath), headOnly)
      return
    }
    const lookup = await resolveStaticFile(rendererDir, rawPath)
    switch (lookup.kind) {
      case 'file':
        respond(response, 200, await fs.readFile(lookup.file), contentTypeOf(lookup.file), headOnly)
        return
      case 'malformed':
        respond(response, 400, lookup.reason)
        return
      case 'outside':
        log.warn('harness refused a path outside the renderer', { path: rawPath.slice(0, 200) })
        respond(response, 403, 'Refused: the path leaves the served folder.')
        return
      case 'missing':
        respond(response, 404, 'Not found.')
        return
    }
  }

  server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const refusal = upgradeRefusal(request, { ownHost, origin, secret, access })
    if (refusal) {
      log.warn('harness refused a WebSocket', { reason: refusal.reason })
      socket.end(
        `HTTP/1.1 ${refusal.status}\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\n${refusal.reason}`,
      )
      return
    }
    sockets.handleUpgrade(request, socket, head, (webSocket) => bridge.attach(webSocket))
  })

  log.info('browser harness listening', { origin })
  return {
    url: access.entryUrl,
    pageUrl: `${origin}/`,
    origin,
    async close() {
      bridge.close()
      await new Promise<void>((resolve) => sockets.close(() => resolve()))
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await downloads.close()
    },
  }
}

function upgradeRefusal(
  request: http.IncomingMessage,
  expected: { ownHost: string; origin: string; secret: string; access: HarnessAccess },
): { status: string; reason: string } | undefined {
  let url: URL
  try {
    url = new URL(request.url ?? '/', expected.origin)
  } catch {
    return { status: '400 Bad Request', reason: 'Malformed request target.' }
  }
  if (url.pathname !== bridgePath) return { status: '404 Not Found', reason: 'No such socket.' }
  if (request.headers.host !== expected.ownHost) {
    return { status: '403 Forbidden', reason: 'Foreign Host header.' }
  }
  if (request.headers.origin !== expected.origin) {
    return { status: '403 Forbidden', reason: 'Foreign or missing Origin.' }
  }
  // The Origin header proves nothing from a client that is not a browser; the cookie does.
  if (!expected.access.hasCookie(request)) {
    return { status: '403 Forbidden', reason: 'Missing or wrong cookie.' }
  }
  if (!sameSecret(url.searchParams.get('secret') ?? '', expected.secret)) {
    return { status: '403 Forbidden', reason: 'Missing or wrong secret.' }
  }
  return undefined
}

/** `<dataDir>/downloads`, the data folder as the services tell any page. */
async function downloadsFolder(dispatch: Dispatch): Promise<string> {
  const info = await dispatch('app.info', {})
  if (!info.ok)
    throw new AppError('internal', `No data folder for downloads: ${info.error.message}`)
  return path.join((info.value as AppInfo).dataDir, 'downloads')
}

function pathOf(request: http.IncomingMessage): string {
  return (request.url ?? '/').split('?')[0] ?? '/'
}

/**
 * The bridge script goes into <head> as a classic script, which runs while the page is parsed,
 * before the app's module script (deferred until parsing ends), so `window.vaultDesk` exists when
 * the app starts. The secret rides on the tag, where only a page of this origin can read it.
 */
function injectClientScript(html: string, secret: string): string {
  const tag = `<script src="${clientScriptPath}" data-secret="${secret}"></script>`
  return html.replace(/<\/head>/i, (close) => `  ${tag}\n  ${close}`)
}

async function readIndexHtml(rendererDir: string): Promise<string> {
  const file = path.join(rendererDir, 'index.html')
  let html: string
  try {
    html = await fs.readFile(file, 'utf8')
  } catch {
    throw new AppError(
      'not_found',
      `No built renderer at ${file}. Build it first with \`npx electron-vite build\`.`,
    )
  }
  if (!/<\/head>/i.test(html)) {
    throw new AppError('validation', `${file} has no </head>, so the bridge cannot be injected.`)
  }
  return html
}

async function loadClientScript(): Promise<string> {
  const source = await fs.readFile(new URL('./harness-client.ts', import.meta.url), 'utf8')
  return stripTypeScriptTypes(source)
}

function listen(server: http.Server, port: number): Promise<void> {
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    return Promise.reject(
      new AppError('invalid_argument', `Port must be 0..65535, not ${String(port)}.`),
    )
  }
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new AppError('conflict', `Port ${port} on ${host} is already in use; choose another.`)
          : error,
      )
    }
    server.once('error', onError)
    server.listen(port, host, () => {
      server.off('error', onError)
      resolve()
    })
  })
}
