export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  attempts: number
  baseDelayMs: number
  maxDelayMs: number
  /** A `Retry-After` longer than this is not waited out: the error goes to the caller instead. */
  maxRetryAfterMs: number
}

export const defaultRetryPolicy: RetryPolicy = {
  attempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
}

/** Exponential backoff with full jitter, so that many clients that failed together spread out. */
export function backoffDelay(
  policy: RetryPolicy,
  failedAttempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failedAttempt - 1))
  return Math.round(random() * ceiling)
}

/**
 * The longest wait a `Retry-After` is obeyed for. The service's 429s answer limits that clear in
 * seconds (requests or exports in flight); a server asking for more is retried after this, which
 * costs one more refused request every ten minutes at worst. Unbounded, a value like 1e9 seconds
 * (or a date in 2100) would park queued work for decades with no word to the person.
 */
export const retryAfterCapMs = 10 * 60_000

/**
 * `Retry-After` is either delay seconds or an HTTP date, capped at `retryAfterCapMs`; anything
 * else is ignored.
 */
export function parseRetryAfter(
  value: string | null,
  now: number = Date.now(),
): number | undefined {
  if (value === null) return undefined
  const text = value.trim()
  let delay: number
  if (/^\d+(\.\d+)?$/.test(text)) delay = Number(text) * 1000
  else {
    const date = Date.parse(text)
    if (Number.isNaN(date)) return undefined
    delay = date - now
  }
  return Math.round(Math.min(retryAfterCapMs, Math.max(0, delay)))
}

/** Waits, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason)
      return
    }
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
