/**
 * The built renderer is served from `vault-desk://app/` rather than `file://`: a standard, secure
 * scheme gives the page a real origin of its own, so the CSP header applies, `'self'` means only
 * the app's own files, and the IPC host can recognise its page by URL.
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import { protocol } from 'electron'
import type { Logger } from '../shared/logger.ts'
import { contentSecurityPolicy } from '../shared/content-security-policy.ts'
import { appHost, appScheme } from './app-origin.ts'

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
}

/** Must run before the app is ready: Chromium fixes the scheme list at start-up. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: appScheme,
      privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
    },
  ])
}

/** Answers every `vault-desk:` request from the files under `rendererDir`. */
export function serveRenderer(rendererDir: string, log: Logger): void {
  protocol.handle(appScheme, createRendererHandler(rendererDir, log))
}

/**
 * Only GET of files inside `rendererDir` on host `app`; anything that would resolve outside the
 * folder (`..`, encoded slashes or backslashes, NUL) is answered 404 without touching the disk.
 */
export function createRendererHandler(
  rendererDir: string,
  log: Logger,
): (request: Request) => Promise<Response> {
  const root = path.resolve(rendererDir)
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return answer(405, 'Method not allowed')
    }
    const file = fileFor(request.url, root)
    if (!file) {
      log.warn('refused an app request outside the renderer folder', { url: request.url })
      return answer(404, 'Not found')
    }
    let body: Buffer
    try {
      body = await fs.readFile(file)
    } catch {
      return answer(404, 'Not found')
    }
    const type = contentTypes[path.extname(file).toLowerCase()] ?? 'application/octet-stream'
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
      status: 200,
      headers: headers(type),
    })
  }
}

function fileFor(url: string, root: string): string | undefined {
  let parsed: URL
  let relative: string
  try {
    parsed = new URL(url)
    relative = decodeURIComponent(parsed.pathname)
  } catch {
    return undefined
  }
  if (parsed.protocol !== `${appScheme}:` || parsed.host !== appHost) return undefined
  if (relative.includes('\0')) return undefined
  if (relative.endsWith('/')) relative += 'index.html'
  const file = path.resolve(root, `.${relative}`)
  const inside = path.relative(root, file)
  const escapes = inside === '..' || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside)
  if (inside === '' || escapes) return undefined
  return file
}

function answer(status: number, text: string): Response {
  return new Response(text, { status, headers: headers('text/plain; charset=utf-8') })
}

function headers(contentType: string): Record<string, string> {
  return {
    'Content-Type': contentType,
    'Content-Security-Policy': contentSecurityPolicy(),
    'X-Content-Type-Options': 'nosniff',
  }
}
