import crypto from 'node:crypto'
import type http from 'node:http'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { createHarnessAccess, sameSecret } from './access.ts'

// A pass-through spy: the comparison must go through Node's constant-time primitive.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof crypto>()
  const timingSafeEqual = vi.fn(actual.timingSafeEqual)
  return { ...actual, default: { ...actual, timingSafeEqual }, timingSafeEqual }
})

const origin = 'http://127.0.0.1:40123'

function requestTo(url: string, cookie?: string): http.IncomingMessage {
  return { url, headers: cookie === undefined ? {} : { cookie } } as http.IncomingMessage
}

beforeEach(() => {
  vi.mocked(crypto.timingSafeEqual).mockClear()
})

describe('sameSecret', () => {
  it('tells the same text from any other', () => {
    expect(sameSecret('abc', 'abc')).toBe(true)
    expect(sameSecret('abd', 'abc')).toBe(false)
    expect(sameSecret('ab', 'abc')).toBe(false)
    expect(sameSecret('', 'abc')).toBe(false)
    expect(sameSecret('abc\u0000', 'abc')).toBe(false)
  })

  it('compares in constant time, lengths included: equal-length digests, no early exit', () => {
    for (const given of ['x', 'a'.repeat(43), 'a'.repeat(10_000)]) {
      sameSecret(given, 'b'.repeat(43))
    }
    const calls = vi.mocked(crypto.timingSafeEqual).mock.calls
    expect(calls).toHaveLength(3)
    for (const [given, secret] of calls) {
      expect(Buffer.from(given as Uint8Array).length).toBe(32)
      expect(Buffer.from(secret as Uint8Array).length).toBe(32)
    }
  })
})

describe('createHarnessAccess', () => {
  it('checks the token and the cookie through the constant-time comparison', () => {
    const access = createHarnessAccess(origin)
    const token = new URL(access.entryUrl).searchParams.get('token') ?? ''
    const exchange = access.verdict(requestTo(`/?token=${token}`))
    expect(vi.mocked(crypto.timingSafeEqual)).toHaveBeenCalledTimes(1)
    if (exchange.kind !== 'exchange') throw new Error(`expected an exchange, got ${exchange.kind}`)
    const cookie = exchange.setCookie.split(';')[0] ?? ''
    expect(access.verdict(requestTo('/', cookie))).toEqual({ kind: 'allowed' })
    expect(vi.mocked(crypto.timingSafeEqual)).toHaveBeenCalledTimes(2)
  })

  it('makes a new token and cookie every time', () => {
    const first = createHarnessAccess(origin)
    const second = createHarnessAccess(origin)
    expect(first.entryUrl).not.toBe(second.entryUrl)
    const cookieOf = (access: typeof first) => {
      const token = new URL(access.entryUrl).searchParams.get('token') ?? ''
      const verdict = access.verdict(requestTo(`/?token=${token}`))
      return verdict.kind === 'exchange' ? verdict.setCookie : ''
    }
    const firstCookie = cookieOf(first).split(';')[0] ?? ''
    expect(firstCookie).toMatch(/^vault-desk-40123=[\w-]{43}$/)
    expect(second.hasCookie(requestTo('/', firstCookie))).toBe(false)
  })

  it('reads the cookie among others and ignores malformed pairs', () => {
    const access = createHarnessAccess(origin)
    const token = new URL(access.entryUrl).searchParams.get('token') ?? ''
    const verdict = access.verdict(requestTo(`/?token=${token}`))
    const cookie = verdict.kind === 'exchange' ? (verdict.setCookie.split(';')[0] ?? '') : ''
    expect(access.hasCookie(requestTo('/', `a=1; junk; ${cookie}; b=2`))).toBe(true)
    expect(access.hasCookie(requestTo('/', 'junk; =; a=1'))).toBe(false)
    expect(access.hasCookie(requestTo('/'))).toBe(false)
  })
})
