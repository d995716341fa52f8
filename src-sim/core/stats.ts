/**
 * Counters a test reads to prove what a client did: above all `concurrencyRejections`, the 429s
 * the per-user in-flight limit produced, which a well-behaved client never causes.
 */
export interface SimStats {
  requests: number
  byStatus: Record<string, number>
  /** Keyed by operation, e.g. `POST /vaults/{vault_id}/molecules/query`. */
  byOperation: Record<string, number>
  inFlight: number
  /** The most requests one user had in flight at once (including the one refused). */
  maxInFlightPerUser: number
  concurrencyRejections: number
  exportQueueRejections: number
  /** The most exports one user had started (running) at once. */
  maxRunningExportsPerUser: number
  downloads: number
  /** Molecules the structure index's background pass has given search forms, and InChI. */
  backgroundIdentities: { searchForms: number; inchi: number }
  injected: {
    latency: number
    serverErrors: number
    tooManyRequests: number
    drops: number
    hangs: number
    /** Requests answered by a `refusals` fault. */
    refusals: number
  }
}

export function createStats(): SimStats {
  return {
    requests: 0,
    byStatus: {},
    byOperation: {},
    inFlight: 0,
    maxInFlightPerUser: 0,
    concurrencyRejections: 0,
    exportQueueRejections: 0,
    maxRunningExportsPerUser: 0,
    downloads: 0,
    backgroundIdentities: { searchForms: 0, inchi: 0 },
    injected: {
      latency: 0,
      serverErrors: 0,
      tooManyRequests: 0,
      drops: 0,
      hangs: 0,
      refusals: 0,
    },
  }
}

/** Zeroes every counter in place (a test holds a reference to the object). */
export function resetStats(stats: SimStats): void {
  const inFlight = stats.inFlight
  Object.assign(stats, createStats(), { inFlight })
}

export function countStatus(stats: SimStats, status: number): void {
  stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1
}
