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

  toValue(): ErrorValue {
    return { code: this.code, message: this.message }
  }
}

/** Anything thrown becomes an ErrorValue; unexpected errors keep their message but not their stack. */
export function toErrorValue(error: unknown): ErrorValue {
  if (error instanceof AppError) return error.toValue()
  if (error instanceof Error && error.name === 'AbortError') {
    return { code: 'cancelled', message: 'The operation was cancelled.' }
  }
  const message = error instanceof Error ? error.message : String(error)
  return { code: 'internal', message: message || 'Unexpected error.' }
}
