import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requirement } from '../support/environment.ts'
import {
  secretServiceInstalled,
  startSecretService,
  type KeyringState,
  type SecretService,
} from '../support/secret-service.ts'

const run = promisify(execFile)
const child = path.join(import.meta.dirname, 'keychain-child.ts')
const canRun =
  process.platform === 'linux' && requirement(secretServiceInstalled(), 'D-Bus with GNOME Keyring')

interface ChildResult {
  availability: { available: boolean; reason?: string; message?: string }
  keychainSave: { error?: { code: string; message: string } }
  keychainRead: { value?: unknown; error?: { code: string } }
  sessionSave: { value?: unknown; error?: unknown }
  sessionRead: { value?: unknown }
  redactedLine: string
}

async function runChild(env: Record<string, string | undefined>): Promise<ChildResult> {
  const { DBUS_SESSION_BUS_ADDRESS: _bus, DISPLAY: _display, ...inherited } = process.env
  const { stdout } = await run(process.execPath, [child], { env: { ...inherited, ...env } })
  return JSON.parse(stdout) as ChildResult
}

describe.runIf(canRun)('keychain unavailable: a clear message and the session-only choice', () => {
  const services: SecretService[] = []
  const start = async (state: KeyringState) => {
    const service = await startSecretService(state)
    services.push(service)
    return service.env
  }

  afterAll(async () => {
    for (const service of services) await service.stop()
  })

  let noBus: ChildResult
  beforeAll(async () => {
    noBus = await runChild({ HOME: '/nonexistent-vault-desk-home' })
  })

  it('without a D-Bus session bus names the missing bus', () => {
    expect(noBus.availability).toMatchObject({ available: false, reason: 'no_session_bus' })
    expect(noBus.keychainSave.error?.code).toBe('keychain_unavailable')
    expect(noBus.keychainSave.error?.message).toMatch(/no D-Bus session bus/)
    expect(noBus.keychainSave.error?.message).toMatch(/for this session only/)
  })

  it('without a Secret Service on the bus names the missing service and how to get one', async () => {
    const result = await runChild(await start('absent'))
    expect(result.availability).toMatchObject({ available: false, reason: 'no_secret_service' })
    expect(result.keychainSave.error?.message).toMatch(/org\.freedesktop\.secrets/)
    expect(result.keychainSave.error?.message).toMatch(/gnome-keyring/)
    expect(result.keychainRead.error?.code).toBe('keychain_unavailable')
  })

  it('with a locked keyring says it is locked (reading alone would silently find nothing)', async () => {
    const result = await runChild(await start('locked'))
    expect(result.availability).toMatchObject({ available: false, reason: 'locked' })
    expect(result.keychainSave.error?.message).toMatch(/keyring is locked/)
    expect(result.keychainRead).toEqual({ value: null })
  })

  it('keeps a session-only token in memory, redacted from log lines, when the keychain fails', () => {
    expect(noBus.sessionSave).toEqual({ value: undefined })
    expect(noBus.sessionRead).toEqual({ value: 'child-token-7f3a9c' })
    expect(noBus.redactedLine).toBe('Authorization uses [redacted]')
  })

  it('reports the keychain available when an unlocked keyring runs', async () => {
    const result = await runChild(await start('unlocked'))
    expect(result.availability).toEqual({ available: true })
    expect(result.keychainRead).toEqual({ value: 'child-token-7f3a9c' })
  })
})
