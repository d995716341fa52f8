import type { ErrorValue } from './app-error.ts'

/** What every request answers across IPC: errors are values, never thrown across the boundary. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorValue }

export const ok = <T>(value: T): Result<T> => ({ ok: true, value })
export const fail = (error: ErrorValue): Result<never> => ({ ok: false, error })
