import { ApiError } from '../api/index.ts'
import { toId } from '../../src-common/values.ts'
import type { VaultCache } from '../store/vault-cache.ts'
import type { PullContext } from './pull-context.ts'

/**
 * Runs without plate statistics fetched per pass at most (one request each): a first sync of a
 * vault with many runs spreads them over its next passes instead of doubling its requests.
 */
export const statisticsPerPass = 100

/**
 * Plate statistics come only with a single run (GET /runs/{id}), never in the run listing. They
 * are fetched for the runs whose readout rows changed in this pass (the statistics are computed
 * from them), then for cached runs that have none yet, up to `statisticsPerPass` in all, and
 * stored with the run; a listing that replaces the run later keeps them (see kind-plans.ts).
 */
export async function pullRunStatistics(
  cache: VaultCache,
  context: PullContext,
  changed: ReadonlySet<number>,
): Promise<void> {
  const { client, vaultId, call } = context
  const wanted = [...changed, ...runsWithoutStatistics(cache, vaultId)]
  const runs: unknown[] = []
  for (const id of [...new Set(wanted)].slice(0, statisticsPerPass)) {
    try {
      runs.push(await client.runs.get(vaultId, id, call))
    } catch (error) {
      // Deleted since it was listed: the next listing prunes it.
      if (!(error instanceof ApiError && error.kind === 'not_found')) throw error
    }
  }
  if (runs.length > 0) await cache.writer.applyPage('runs', vaultId, runs)
}

function runsWithoutStatistics(cache: VaultCache, vaultId: number): number[] {
  const ids: number[] = []
  for (let offset = 0; ids.length < statisticsPerPass; offset += 1000) {
    const page = cache.list('runs', vaultId, { sort: 'id', limit: 1000, offset })
    for (const run of page.records) {
      const id = toId(run.id)
      if (id !== null && !('plate_statistics' in run)) ids.push(id)
    }
    if (page.records.length < 1000) break
  }
  return ids
}
