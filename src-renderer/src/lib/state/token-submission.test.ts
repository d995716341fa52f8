import { describe, expect, it } from 'vitest'
import type { Result } from '../bridge.ts'
import { fieldErrorOf, TokenSubmission } from './token-submission.svelte.ts'

const keychainMessage =
  'The system keychain, where Vault Desk keeps API tokens, cannot be used: no Secret Service provider runs. You can use the token for this session only.'

describe('TokenSubmission', () => {
  it('offers the session-only choice when no keychain can keep the token', async () => {
    const sent: boolean[] = []
    const submission = new TokenSubmission<string>(async (sessionOnly): Promise<Result<string>> => {
      sent.push(sessionOnly)
      return sessionOnly
        ? { ok: true, value: 'added' }
        : { ok: false, error: { code: 'keychain_unavailable', message: keychainMessage } }
    })
    expect(await submission.submit()).toBeNull()
    expect(submission.keychainProblem).toBe(keychainMessage)
    expect(submission.error).toBeNull()
    expect(await submission.useForThisSession()).toBe('added')
    expect(submission.keychainProblem).toBeNull()
    expect(sent).toEqual([false, true])
  })

  it('puts each refusal beside the field it is about', async () => {
    let answer: Result<string> = {
      ok: false,
      error: { code: 'authentication', message: 'The vault refused this token.' },
    }
    const submission = new TokenSubmission<string>(async () => answer)
    await submission.submit()
    expect(submission.error).toEqual({ field: 'token', message: 'The vault refused this token.' })
    answer = { ok: false, error: { code: 'offline', message: 'Nothing answers at that address.' } }
    await submission.submit()
    expect(submission.error?.field).toBe('baseUrl')
    submission.reset()
    expect(submission.error).toBeNull()
  })

  it('sends once at a time', async () => {
    let calls = 0
    const submission = new TokenSubmission<string>(async () => {
      calls++
      return { ok: true, value: 'done' }
    })
    const first = submission.submit()
    expect(await submission.submit()).toBeNull()
    expect(await first).toBe('done')
    expect(calls).toBe(1)
  })
})

describe('fieldErrorOf', () => {
  it('maps error codes to fields', () => {
    expect(fieldErrorOf({ code: 'conflict', message: 'The name is in use.' }).field).toBe('name')
    expect(
      fieldErrorOf({ code: 'invalid_argument', message: 'the API token is empty' }).field,
    ).toBe('token')
    expect(fieldErrorOf({ code: 'invalid_argument', message: 'Use HTTPS.' }).field).toBe('baseUrl')
    expect(fieldErrorOf({ code: 'internal', message: 'Unexpected.' }).field).toBeNull()
  })
})
