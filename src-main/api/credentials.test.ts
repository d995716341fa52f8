import { describe, expect, it } from 'vitest'
import { Redactor } from '../shared/redactor.ts'
import { Credentials } from './credentials.ts'

describe('Credentials', () => {
  it('reads the token from its provider on every call and registers it for redaction', async () => {
    const redactor = new Redactor()
    let reads = 0
    const credentials = new Credentials(async () => {
      reads++
      return 'keychain-token-42'
    }, redactor)
    expect(await credentials.token()).toBe('keychain-token-42')
    expect(await credentials.token()).toBe('keychain-token-42')
    expect(reads).toBe(2)
    expect(redactor.redactText('sent keychain-token-42')).toBe('sent [redacted]')
  })

  it('refuses an empty token', async () => {
    await expect(new Credentials(() => '').token()).rejects.toThrow('gave no token')
  })

  it('needs a new token after a rejection until the provider gives a different one', async () => {
    let current = 'old-token-1'
    const credentials = new Credentials(() => current)
    const heard: string[] = []
    credentials.onRejected((rejection) => heard.push(rejection.message))
    credentials.reject('old-token-1', { operation: 'vaults.list', message: 'refused' })
    credentials.reject('old-token-1', { operation: 'vaults.list', message: 'refused again' })
    expect(credentials.needsNewToken).toBe(true)
    expect(heard).toEqual(['refused'])
    await credentials.token()
    expect(credentials.needsNewToken).toBe(true)
    current = 'new-token-2'
    await credentials.token()
    expect(credentials.needsNewToken).toBe(false)
  })
})
