import { describe, expect, it } from 'vitest'
import { ApiError } from './errors.ts'
import { requireSecureUrl } from './secure-url.ts'

describe('requireSecureUrl', () => {
  it.each([
    'https://vault.example.org/api/v1',
    'http://127.0.0.1:8080/api/v1',
    'http://127.8.9.10/api/v1',
    'http://localhost:3000/api/v1',
    'http://LOCALHOST:3000/api/v1',
    'http://[::1]:9000/api/v1',
    'http://[::ffff:127.0.0.1]:9000/api/v1',
    'http://127.1/api/v1',
  ])('accepts %s', (address) => {
    expect(requireSecureUrl(address, 'connection').href).toBe(new URL(address).href)
  })

  it.each([
    ['http://vault.example.org/api/v1', 'HTTPS is required except for loopback addresses'],
    ['http://192.168.1.5/api/v1', 'HTTPS is required'],
    ['http://127.0.0.1.example.org/api/v1', 'HTTPS is required'],
    ['http://localhost.example.org/api/v1', 'HTTPS is required'],
    // Names below localhost go to the system resolver, and from there possibly to DNS.
    ['http://sim.localhost/api/v1', 'HTTPS is required'],
    ['http://localhost./api/v1', 'HTTPS is required'],
    ['http://[::ffff:10.0.0.1]/api/v1', 'HTTPS is required'],
    ['http://[::2]/api/v1', 'HTTPS is required'],
    ['http://0.0.0.0/api/v1', 'HTTPS is required'],
    ['ws://127.0.0.1/api/v1', 'HTTPS is required'],
    ['https://user:secret@vault.example.org/api/v1', 'credentials in the URL are not allowed'],
    ['vault.example.org/api/v1', 'is not a valid URL'],
  ])('refuses %s', (address, message) => {
    const error = (() => {
      try {
        requireSecureUrl(address, 'connection')
      } catch (caught) {
        return caught
      }
    })()
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).kind).toBe('insecure')
    expect((error as ApiError).message).toContain(message)
    expect((error as ApiError).message).not.toContain('secret')
  })
})
