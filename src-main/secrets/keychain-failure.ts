import { AppError } from '../shared/app-error.ts'

/** Why the keychain could not be used, as far as its error tells. */
export type KeychainFailureReason =
  'library_missing' | 'no_session_bus' | 'no_secret_service' | 'locked' | 'refused'

const sessionOnlyChoice =
  'You can use the token for this session only: Vault Desk then keeps it in memory and forgets it when it closes.'

/** Patterns of libsecret and GDBus messages, checked in order. */
const linuxPatterns: readonly [KeychainFailureReason, RegExp][] = [
  [
    'no_session_bus',
    /autolaunch D-Bus|DBUS_SESSION_BUS_ADDRESS|Could not connect|Failed to connect/i,
  ],
  ['no_secret_service', /org\.freedesktop\.secrets|ServiceUnknown|not provided by any \.service/i],
  ['locked', /locked|collection\/login|prompt|dismissed/i],
]

const linuxExplanations: Record<KeychainFailureReason, string> = {
  library_missing:
    'its library could not be loaded; on Linux it needs libsecret (Debian and Ubuntu: libsecret-1-0, Fedora: libsecret)',
  no_session_bus:
    'there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset or points to nothing), and the Secret Service is reached through it. Start Vault Desk from a desktop session, or under dbus-run-session with a keyring running',
  no_secret_service:
    'no Secret Service provider (org.freedesktop.secrets) runs on the D-Bus session bus. Install and start GNOME Keyring (package gnome-keyring) or KeePassXC or KWallet with their Secret Service integration enabled',
  locked:
    'the keyring is locked and no unlock prompt could be shown. Unlock your login keyring, for example in "Passwords and Keys" (Seahorse), or log in to a desktop session that unlocks it',
  refused: 'the keychain refused the request',
}

export function classifyKeychainFailure(
  message: string,
  platform: NodeJS.Platform,
): KeychainFailureReason {
  if (platform !== 'linux') return 'refused'
  return linuxPatterns.find(([, pattern]) => pattern.test(message))?.[0] ?? 'refused'
}

/**
 * What a person sees when the keychain cannot be used: what is missing, how to fix it, and that a
 * session-only token is possible. `detail` is the library's own message; it never holds a token.
 */
export class KeychainUnavailableError extends AppError {
  readonly reason: KeychainFailureReason

  constructor(
    reason: KeychainFailureReason,
    detail: string,
    platform: NodeJS.Platform,
    options?: { cause?: unknown },
  ) {
    const explanation =
      platform === 'linux' || reason === 'library_missing'
        ? linuxExplanations[reason]
        : `the ${platform === 'darwin' ? 'macOS Keychain' : 'Windows Credential Manager'} refused the request`
    const suffix = reason === 'refused' || reason === 'library_missing' ? ` (${detail})` : ''
    super(
      'keychain_unavailable',
      `The system keychain, where Vault Desk keeps API tokens, cannot be used: ${explanation}${suffix}. ${sessionOnlyChoice}`,
      options,
    )
    this.reason = reason
  }
}
