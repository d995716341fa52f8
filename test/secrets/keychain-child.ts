/**
 * Runs in a child process with the environment under test (libsecret keeps its first D-Bus
 * connection for the life of a process, so each keychain situation needs its own process).
 * Prints one JSON document: what the keychain and the session-only fallback answered.
 */
import { AppError } from '../../src-main/shared/app-error.ts'
import { Redactor } from '../../src-main/shared/redactor.ts'
import { ConnectionTokens } from '../../src-main/secrets/connection-tokens.ts'
import { KeychainTokenStore } from '../../src-main/secrets/keychain-token-store.ts'
import { SessionTokenStore } from '../../src-main/secrets/session-token-store.ts'

const token = 'child-token-7f3a9c'
const redactor = new Redactor()
const keychain = new KeychainTokenStore(redactor)
const tokens = new ConnectionTokens(keychain, new SessionTokenStore(redactor))

async function outcome(operation: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: await operation() }
  } catch (error) {
    if (error instanceof AppError) return { error: { code: error.code, message: error.message } }
    return { error: { code: 'thrown', message: String(error) } }
  }
}

const result = {
  availability: await keychain.checkAvailability(),
  keychainSave: await outcome(() => tokens.save('conn-1', token, 'keychain')),
  keychainRead: await outcome(() => keychain.read('conn-1')),
  sessionSave: await outcome(() => tokens.save('conn-1', token, 'session')),
  sessionRead: await outcome(() => tokens.read('conn-1', 'session')),
  redactedLine: redactor.redactText(`Authorization uses ${token}`),
}
process.stdout.write(JSON.stringify(result))
