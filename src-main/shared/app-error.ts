import { safeErrorText } from './error-text.ts'

/**
 * Error codes that cross process boundaries (IPC, the browser harness, CLI exit codes).
 * Every layer throws AppError; hosts turn it into `{ok: false, error}` values.
 */
export const errorCodes = [
  'invalid_argument',
  'unknown_channel',
  'forbidden_sender',
  'not_found',
  'validation',
  'conflict',
  'forbidden',
  'rate_limited',
  'authentication',
  'offline',
  'cancelled',
  'keychain_unavailable',
  'storage',
  'internal',
] as const

export type ErrorCode = (typeof errorCodes)[number]

export interface ErrorValue {
  code: ErrorCode
  message: string
}

export class AppError extends Error {
  readonly code: ErrorCode

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'AppError'
    this.code = code
  }

  /** The error as it leaves the main process: its message redacted and capped (error-text.ts). */
  toValue(): ErrorValue {
    return safeErrorValue({ code: this.code, message: this.message })
  }
}

/**
 * Anything thrown becomes an ErrorValue fit to leave the main process (IPC, the CLI, the browser
 * harness): unexpected errors keep their message but not their stack, and every message is
 * redacted and capped, whatever server text it carries.
 */
export function toErrorValue(error: unknown): ErrorValue {
  if (error instanceof AppError) return error.toValue()
  if (error instanceof Error && error.name === 'AbortError') {
    return { code: 'cancelled', message: 'The operation was cancelled.' }
  }
  const message = error instanceof Error ? error.message : String(error)
  return safeErrorValue({ code: 'internal', message: message || 'Unexpected error.' })
}

/** An error value with its message made safe to show (secrets out, control characters, length). */
export function safeErrorValue(value: ErrorValue): ErrorValue {
  return { code: value.code, message: safeErrorText(value.message) }
}
