import { describe, expect, it } from 'vitest'
import { ApiError } from '../../api/index.ts'
import { AppError } from '../../shared/app-error.ts'
import { failureVerdict } from './failure-verdict.ts'

const sent = { requestMayHaveLeft: true, tokenRefused: false }

function networkError(code: string): ApiError {
  const cause = Object.assign(new TypeError('fetch failed'), {
    cause: Object.assign(new Error(code), { code }),
  })
  return new ApiError({ kind: 'network', operation: 'files.attach', message: code, cause })
}

describe('what a failed attempt becomes', () => {
  it('retries a request the network never delivered, without doubt', () => {
    expect(failureVerdict(networkError('ECONNREFUSED'), sent)).toMatchObject({
      action: 'retry',
      inDoubt: false,
    })
  })

  it('retries a connection broken after the request left, in doubt', () => {
    expect(failureVerdict(networkError('ECONNRESET'), sent)).toMatchObject({
      action: 'retry',
      inDoubt: true,
    })
    expect(
      failureVerdict(networkError('ECONNRESET'), { ...sent, requestMayHaveLeft: false }),
    ).toMatchObject({ inDoubt: false })
  })

  it('retries 5xx and 429 keeping the server’s wait, in doubt unless the work was not begun', () => {
    const status = (code: number, kind: 'server' | 'rate_limited') =>
      new ApiError({
        kind,
        operation: 'x',
        message: String(code),
        status: code,
        retryAfterMs: 5000,
      })
    expect(failureVerdict(status(503, 'server'), sent)).toMatchObject({
      action: 'retry',
      inDoubt: false,
    })
    expect(failureVerdict(status(501, 'server'), sent)).toMatchObject({ inDoubt: false })
    for (const code of [500, 502, 504]) {
      expect(failureVerdict(status(code, 'server'), sent)).toMatchObject({
        action: 'retry',
        inDoubt: true,
      })
    }
    expect(
      failureVerdict(status(500, 'server'), { ...sent, requestMayHaveLeft: false }),
    ).toMatchObject({ inDoubt: false })
    expect(failureVerdict(status(429, 'rate_limited'), sent)).toMatchObject({
      action: 'retry',
      inDoubt: false,
      retryAfterMs: 5000,
    })
  })

  it('stops a refused request for the person, with the server’s own message', () => {
    const refused = new ApiError({
      kind: 'validation',
      operation: 'plates.create',
      message: '422 wells[2].pos: must be a well label',
      status: 422,
      serverMessage: 'wells[2].pos: must be a well label',
    })
    expect(failureVerdict(refused, sent)).toEqual({
      action: 'attention',
      message: 'wells[2].pos: must be a well label',
      kind: 'validation',
    })
    expect(failureVerdict(new AppError('storage', 'copy lost'), sent)).toMatchObject({
      action: 'attention',
      kind: 'storage',
    })
  })

  it('pauses the connection for a refused token, not for a refusal of the operation', () => {
    const unauthorized = new ApiError({
      kind: 'authentication',
      operation: 'x',
      message: '401',
      status: 401,
    })
    expect(failureVerdict(unauthorized, { ...sent, tokenRefused: true }).action).toBe('pause')
    expect(failureVerdict(unauthorized, sent).action).toBe('attention')
  })
})
