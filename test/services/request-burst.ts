import type { LimiterRegistry } from '../../src-main/api/limiter-registry.ts'
import { ApiError, VaultClient } from '../../src-main/api/index.ts'

export interface BurstOutcome {
  ok: number
  /** The HTTP status of each request that failed (null: no answer). */
  failed: (number | null)[]
}

/** Sends `count` requests at once without retries, as one client of one token. */
export async function burst(
  options: { baseUrl: string; token: string; limiters: LimiterRegistry },
  count: number,
): Promise<BurstOutcome> {
  const client = new VaultClient({ ...options, retry: { attempts: 1 } })
  const outcome: BurstOutcome = { ok: 0, failed: [] }
  await Promise.all(
    Array.from({ length: count }, () =>
      client.vaults.list().then(
        () => outcome.ok++,
        (error: unknown) =>
          outcome.failed.push(error instanceof ApiError ? (error.status ?? null) : null),
      ),
    ),
  )
  return outcome
}

/**
 * Runs `count` exports of a vault's molecules at once without retries, as one client of one
 * token, each read to its end; fails the ones the server refuses.
 */
export async function exportBurst(
  options: { baseUrl: string; token: string; limiters: LimiterRegistry },
  vaultId: number,
  count: number,
): Promise<BurstOutcome> {
  const client = new VaultClient({
    ...options,
    retry: { attempts: 1 },
    exportPolling: { minIntervalMs: 50, maxIntervalMs: 100 },
  })
  const outcome: BurstOutcome = { ok: 0, failed: [] }
  await Promise.all(
    Array.from({ length: count }, async () => {
      try {
        const finished = await client.molecules.export(vaultId, {})
        for await (const _ of finished.records()) void _
        outcome.ok++
      } catch (error) {
        outcome.failed.push(error instanceof ApiError ? (error.status ?? null) : null)
      }
    }),
  )
  return outcome
}
