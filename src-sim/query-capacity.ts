/**
 * How fast the simulator answers POST /molecules/query at page_size 1000, measured over HTTP like
 * a client would. bench/sim-query.bench.ts reports it, and a client benchmark can call it to print
 * the simulator's capacity beside its own numbers, so that a slow simulator is never mistaken for
 * a slow client.
 */
export interface QueryCapacity {
  pages: number
  records: number
  seconds: number
  recordsPerSecond: number
  requestsPerSecond: number
}

export interface CapacityOptions {
  baseUrl: string
  token: string
  vaultId: number
  /** Pages to read (each page_size 1000), walking offset from `firstPage` × 1000. */
  pages: number
  firstPage?: number
  /** Requests in flight at once (at most 3, the per-user limit). */
  concurrency?: number
  noStructures?: boolean
}

export async function measureQueryCapacity(options: CapacityOptions): Promise<QueryCapacity> {
  const concurrency = Math.min(options.concurrency ?? 1, 3)
  let nextPage = 0
  let records = 0
  const startedAt = performance.now()
  const worker = async () => {
    while (nextPage < options.pages) {
      const page = (options.firstPage ?? 0) + nextPage++
      const response = await fetch(`${options.baseUrl}/vaults/${options.vaultId}/molecules/query`, {
        method: 'POST',
        headers: { 'X-SVC-Token': options.token, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          page_size: 1000,
          offset: page * 1000,
          no_structures: options.noStructures ?? false,
        }),
      })
      if (response.status !== 200)
        throw new Error(`The simulator answered ${response.status}: ${await response.text()}`)
      const body = (await response.json()) as { objects: unknown[] }
      records += body.objects.length
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const seconds = (performance.now() - startedAt) / 1000
  return {
    pages: options.pages,
    records,
    seconds,
    recordsPerSecond: records / seconds,
    requestsPerSecond: options.pages / seconds,
  }
}
