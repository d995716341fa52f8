import { describe, expect, it } from 'vitest'
import { AppError } from '../shared/app-error.ts'
import { maxErrorTextLength } from '../shared/error-text.ts'
import { Redactor } from '../shared/redactor.ts'
import { initialAppStatus } from '../shared/app-status.ts'
import { silentLogger } from '../shared/logger.ts'
import { createDispatcher, type RequestHandlers } from './dispatcher.ts'

/** The channels these tests call; the dispatcher never reaches the others. */
function handlers(overrides: Partial<RequestHandlers> = {}): RequestHandlers {
  return {
    'app.info': () => ({
      name: 'Vault Desk',
      version: '0.0.0',
      host: 'cli',
      platform: 'linux',
      dataDir: '/tmp/x',
      logFile: '/tmp/x/logs/vault-desk.log',
    }),
    'app.status': () => initialAppStatus,
    'connections.list': () => [],
    ...overrides,
  } as RequestHandlers
}

describe('createDispatcher', () => {
  it('answers a known channel with an ok value', async () => {
    const dispatch = createDispatcher(handlers(), silentLogger)
    expect(await dispatch('app.status', {})).toEqual({ ok: true, value: initialAppStatus })
  })

  it('refuses an unknown channel as a value, naming it', async () => {
    const dispatch = createDispatcher(handlers(), silentLogger)
    expect(await dispatch('fs.readFile', {})).toEqual({
      ok: false,
      error: { code: 'unknown_channel', message: 'Unknown request channel: fs.readFile' },
    })
  })

  it('refuses arguments the schema does not allow, naming the member', async () => {
    const dispatch = createDispatcher(handlers(), silentLogger)
    const result = await dispatch('app.info', { unexpected: 1 })
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.error.code).toBe('invalid_argument')
      expect(result.error.message).toContain('app.info')
      expect(result.error.message).toContain('unexpected')
    }
  })

  it('turns thrown errors into values and keeps AppError codes', async () => {
    const dispatch = createDispatcher(
      handlers({
        'connections.list': () => {
          throw new AppError('storage', 'disk is full')
        },
        'app.status': () => {
          throw new TypeError('boom')
        },
      }),
      silentLogger,
    )
    expect(await dispatch('connections.list', {})).toEqual({
      ok: false,
      error: { code: 'storage', message: 'disk is full' },
    })
    expect(await dispatch('app.status', {})).toEqual({
      ok: false,
      error: { code: 'internal', message: 'boom' },
    })
  })

  it('answers every error redacted of known tokens and at most 2,000 characters long', async () => {
    const secret = 'tok-dispatcher-7c1e'
    new Redactor().add(secret)
    const long = `the server said ${secret}: ${'x'.repeat(200_000)}`
    const dispatch = createDispatcher(
      handlers({
        'connections.list': () => {
          throw new AppError('validation', long)
        },
        'app.status': () => {
          throw new Error(`\u001b[31m${secret}`)
        },
      }),
      silentLogger,
    )
    const refused = await dispatch('connections.list', {})
    expect(refused.ok).toBe(false)
    if (!refused.ok) {
      expect(refused.error.code).toBe('validation')
      expect(refused.error.message).toMatch(/^the server said \[redacted\]: x+…$/)
      expect(refused.error.message).toHaveLength(maxErrorTextLength)
    }
    expect(await dispatch('app.status', {})).toEqual({
      ok: false,
      error: { code: 'internal', message: '\ufffd[31m[redacted]' },
    })
    const unknown = await dispatch('x'.repeat(10_000), {})
    expect(!unknown.ok && unknown.error.message.length).toBe(maxErrorTextLength)
  })
})
