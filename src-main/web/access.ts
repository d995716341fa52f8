/**
 * Who may use the browser harness: only the browser of the person who started it. Every run makes
 * a token that appears only in the address the harness's own output prints; the first load with it
 * trades it for an HttpOnly, SameSite=Strict cookie and is sent on to the same address without the
 * token, so the token leaves the address bar and history at once. Without the cookie nothing is
 * served: another account on a shared machine can reach 127.0.0.1 too, and can forge any Origin.
 *
 * The token is never put in a process's arguments (a browser started with it would show it to every
 * user through `ps`), and never logged.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type http from 'node:http'

export const tokenParameter = 'token'

export type AccessVerdict =
  | { kind: 'allowed' }
  /** A right token: set the cookie and send the browser to `location`, the address without it. */
  | { kind: 'exchange'; location: string; setCookie: string }
  | { kind: 'refused'; reason: string }

export interface HarnessAccess {
  /** The address to open, for example `http://127.0.0.1:5317/?token=…`. */
  readonly entryUrl: string
  /** The verdict for a request whose Host header has already been checked. */
  verdict(request: http.IncomingMessage): AccessVerdict
  /** Whether the request carries this run's cookie (the only credential a WebSocket may use). */
  hasCookie(request: http.IncomingMessage): boolean
}

const refusals = {
  noCookie:
    'This Vault Desk preview serves only the browser that opened the address it printed ' +
    '(the one with ?token=). Open that address.',
  wrongToken: 'Wrong token: open the address this Vault Desk preview printed when it started.',
}

/** `origin` is the harness's own, for example `http://127.0.0.1:5317`. */
export function createHarnessAccess(origin: string): HarnessAccess {
  const token = randomBytes(32).toString('base64url')
  const cookieValue = randomBytes(32).toString('base64url')
  // Cookies are not kept apart by port: a name per port keeps two harnesses in one browser (two
  // data folders, say) from overwriting each other's cookie.
  const cookieName = `vault-desk-${new URL(origin).port}`
  const setCookie = `${cookieName}=${cookieValue}; HttpOnly; SameSite=Strict; Path=/`

  const hasCookie = (request: http.IncomingMessage) =>
    cookiesOf(request).some(
      ([name, value]) => name === cookieName && sameSecret(value, cookieValue),
    )

  return {
    entryUrl: `${origin}/?${tokenParameter}=${token}`,
    hasCookie,
    verdict(request) {
      const target = splitTarget(request.url ?? '/')
      const given = target.query.getAll(tokenParameter)
      if (given.length > 0) {
        if (given.length > 1 || !sameSecret(given[0] ?? '', token)) {
          return { kind: 'refused', reason: refusals.wrongToken }
        }
        target.query.delete(tokenParameter)
        const query = target.query.size > 0 ? `?${target.query.toString()}` : ''
        // Absolute, on this origin: a target such as `//evil.example/` stays a path here.
        const path = target.path.startsWith('/') ? target.path : '/'
        return { kind: 'exchange', location: `${origin}${path}${query}`, setCookie }
      }
      return hasCookie(request)
        ? { kind: 'allowed' }
        : { kind: 'refused', reason: refusals.noCookie }
    },
  }
}

/**
 * Compares a credential someone sent with the real one in time that depends on neither: both are
 * hashed first, so even their lengths are compared without an early exit.
 */
export function sameSecret(given: string, secret: string): boolean {
  return timingSafeEqual(digest(given), digest(secret))
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

function splitTarget(target: string): { path: string; query: URLSearchParams } {
  const mark = target.indexOf('?')
  if (mark === -1) return { path: target, query: new URLSearchParams() }
  return { path: target.slice(0, mark), query: new URLSearchParams(target.slice(mark + 1)) }
}

function cookiesOf(request: http.IncomingMessage): Array<[string, string]> {
  const header = request.headers.cookie ?? ''
  return header.split(';').flatMap((pair) => {
    const equals = pair.indexOf('=')
    if (equals === -1) return []
    return [[pair.slice(0, equals).trim(), pair.slice(equals + 1).trim()] as [string, string]]
  })
}
