import keytar from 'keytar'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConnectionTokens } from '../../src-main/secrets/connection-tokens.ts'
import { keychainService, KeychainTokenStore } from '../../src-main/secrets/keychain-token-store.ts'
import { SessionTokenStore } from '../../src-main/secrets/session-token-store.ts'
import { Redactor } from '../../src-main/shared/redactor.ts'
import { requirement } from '../support/environment.ts'
import {
  secretServiceInstalled,
  startSecretService,
  type SecretService,
} from '../support/secret-service.ts'

const canRun =
  process.platform === 'linux' && requirement(secretServiceInstalled(), 'D-Bus with GNOME Keyring')

describe.runIf(canRun)('KeychainTokenStore against a real Secret Service', () => {
  let service: SecretService
  const savedEnv = { ...process.env }

  beforeAll(async () => {
    service = await startSecretService('unlocked')
    // Before keytar's first call: libsecret connects to the bus lazily, once per process.
    Object.assign(process.env, service.env)
  })

  afterAll(async () => {
    await service?.stop()
    process.env = savedEnv
  })

  it('stores under service "Vault Desk" with the connection id as account, reads and deletes', async () => {
    const store = new KeychainTokenStore(new Redactor())
    await store.store('conn-a', 'token-a-0001')

    expect(await keytar.getPassword(keychainService, 'conn-a')).toBe('token-a-0001')
    expect(keychainService).toBe('Vault Desk')
    expect(await store.read('conn-a')).toBe('token-a-0001')
    expect(await store.remove('conn-a')).toBe(true)
    expect(await store.read('conn-a')).toBeNull()
    expect(await store.remove('conn-a')).toBe(false)
  })

  it('keeps the tokens of different connections apart and replaces a token on store', async () => {
    const store = new KeychainTokenStore(new Redactor())
    await store.store('conn-b', 'token-b-0001')
    await store.store('conn-c', 'token-c-0001')
    await store.store('conn-b', 'token-b-0002')

    expect(await store.read('conn-b')).toBe('token-b-0002')
    expect(await store.read('conn-c')).toBe('token-c-0001')
    await store.remove('conn-b')
    expect(await store.read('conn-c')).toBe('token-c-0001')
  })

  it('registers a token with the redactor when it is stored and when it is read', async () => {
    const writerRedactor = new Redactor()
    await new KeychainTokenStore(writerRedactor).store('conn-d', 'token-d-secret')
    expect(writerRedactor.redactText('sent token-d-secret')).toBe('sent [redacted]')

    const readerRedactor = new Redactor()
    expect(readerRedactor.redactText('sent token-d-secret')).toBe('sent token-d-secret')
    await new KeychainTokenStore(readerRedactor).read('conn-d')
    expect(readerRedactor.redactText('sent token-d-secret')).toBe('sent [redacted]')
  })

  it('refuses an empty token with a clear error', async () => {
    await expect(new KeychainTokenStore(new Redactor()).store('conn-e', '  ')).rejects.toThrow(
      'The API token is empty.',
    )
  })

  it('reports itself available and leaves no probe entry behind', async () => {
    const store = new KeychainTokenStore(new Redactor())
    expect(await store.checkAvailability()).toEqual({ available: true })
    expect(await keytar.findCredentials(keychainService)).not.toContainEqual(
      expect.objectContaining({ account: 'vault-desk-availability-probe' }),
    )
  })

  it('ConnectionTokens prefers a session token, and forgets a token everywhere', async () => {
    const redactor = new Redactor()
    const keychain = new KeychainTokenStore(redactor)
    const tokens = new ConnectionTokens(keychain, new SessionTokenStore(redactor))

    await tokens.save('conn-f', 'token-f-keychain', 'keychain')
    expect(await tokens.read('conn-f', 'keychain')).toBe('token-f-keychain')
    await tokens.save('conn-f', 'token-f-session', 'session')
    expect(await tokens.read('conn-f', 'keychain')).toBe('token-f-session')
    expect(await keychain.read('conn-f')).toBe('token-f-keychain')

    await tokens.forget('conn-f', 'keychain')
    expect(await tokens.read('conn-f', 'keychain')).toBeNull()
    expect(await keychain.read('conn-f')).toBeNull()
  })

  it('ConnectionTokens never asks the keychain for a session-only connection', async () => {
    const redactor = new Redactor()
    const keychain = new KeychainTokenStore(redactor)
    const tokens = new ConnectionTokens(keychain, new SessionTokenStore(redactor))
    await keychain.store('conn-g', 'token-g-stale')

    expect(await tokens.read('conn-g', 'session')).toBeNull()
    await tokens.forget('conn-g', 'session')
    expect(await keychain.read('conn-g')).toBe('token-g-stale')
  })
})
