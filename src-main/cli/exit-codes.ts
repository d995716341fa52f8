import type { ErrorCode } from '../shared/app-error.ts'
import { NewerSchemaError } from '../store/migrations.ts'

/** The documented exit codes of `vault-desk` (see README.md). */
export const exitCodes = {
  ok: 0,
  failure: 1,
  usage: 2,
  offline: 3,
  authentication: 4,
  /** A command that syncs or sends found another process (the app) doing so for its data folder. */
  dataFolderBusy: 5,
  /** A cache, the outbox or the app database was written by a newer Vault Desk (left untouched). */
  newerVersion: 6,
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

/** The exit code of a command that failed with `error` (a newer build's file, also as a cause). */
export function exitCodeForError(error: unknown, code: ErrorCode): ExitCode {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 4; depth++) {
    if (cause instanceof NewerSchemaError) return exitCodes.newerVersion
    cause = cause.cause
  }
  return exitCodeFor(code)
}
