import type { ErrorCode } from '../shared/app-error.ts'

/** The documented exit codes of `vault-desk` (see README.md). */
export const exitCodes = {
  ok: 0,
  failure: 1,
  usage: 2,
  offline: 3,
  authentication: 4,
  /** A command that syncs or sends found another process (the app) doing so for its data folder. */
  dataFolderBusy: 5,
} as const

export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes]

export function exitCodeFor(code: ErrorCode): ExitCode {
  switch (code) {
    case 'invalid_argument':
      return exitCodes.usage
    case 'offline':
      return exitCodes.offline
    case 'authentication':
    case 'keychain_unavailable':
      return exitCodes.authentication
    default:
      return exitCodes.failure
  }
}
