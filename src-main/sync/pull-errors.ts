import { ApiError, type VaultClient } from '../api/index.ts'

/**
 * Whether a failure stops the sync of the whole connection: the network is gone, the token was
 * refused, the server asks to slow down, or the person cancelled. Anything else (a kind the server
 * cannot answer, an answer that breaks the shapes) fails only that kind, and the others go on.
 */
export function stopsConnectionSync(error: unknown, client: VaultClient): boolean {
  if (error instanceof ApiError) {
    if (error.kind === 'authentication') return client.needsNewToken
    return error.kind === 'network' || error.kind === 'cancelled' || error.kind === 'rate_limited'
  }
  // Not the server's doing: the cache cannot be written (disk full), or an abort.
  return true
}

/**
 * Stops a pull the person cancelled between kinds with the error a request cancelled halfway
 * gives, so that callers meet one kind of cancel, not also the signal's bare AbortError.
 */
export function throwIfCancelled(signal: AbortSignal | undefined, operation: string): void {
  if (!signal?.aborted) return
  throw new ApiError({ kind: 'cancelled', operation, message: 'cancelled.', cause: signal.reason })
}

/** A 401 that is not about the token: the vault's API is off, or the role does not allow it. */
export function isRefusal(error: unknown, client: VaultClient): boolean {
  return error instanceof ApiError && error.kind === 'authentication' && !client.needsNewToken
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
