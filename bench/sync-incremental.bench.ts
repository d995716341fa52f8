/**
 * An incremental sync after 1% of the molecules changed, against a full sync of the same vault
 * (requests and time), both measured in the same run: the full sync both as a first sync runs it
 * (one export for the molecules) and page by page (what a client without incremental sync sends
 * every time). Two incremental passes: the typical one (changes only: reference data and deletion
 * checks are not due), and, after another 1% changed, one in which the reference refresh is due
 * (reference data read whole, deletions checked).
 *
 * Environment: BENCH_MOLECULES (default 100000).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { LimiterRegistry, VaultClient } from '../src-main/api/index.ts'
import { silentLogger } from '../src-main/shared/logger.ts'
import { VaultCache } from '../src-main/store/vault-cache.ts'
import { pullConnection } from '../src-main/sync/connection-pull.ts'
import { progress, report } from './report.ts'
import { startBenchSim } from './sync-sim.ts'

const molecules = Number(process.env.BENCH_MOLECULES ?? 100_000)
const changed = Math.round(molecules / 100)

const sim = await startBenchSim(molecules)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-bench-sync-incremental-'))

interface Run {
  seconds: number
  requests: number
  moleculeRequests: number
  byOperation: Record<string, number>
}

async function sync(
  cache: VaultCache,
  options: { exportThreshold?: number; referenceRefreshMs?: number } = {},
): Promise<Run> {
  const byOperation = new Map<string, number>()
  const client = new VaultClient({
    baseUrl: sim.baseUrl,
    token: sim.token,
    limiters: new LimiterRegistry(),
    exportPolling: { minIntervalMs: 50, maxIntervalMs: 100 },
  })
  client.onCall(({ operation }) =>
    byOperation.set(operation, (byOperation.get(operation) ?? 0) + 1),
  )
  const started = performance.now()
  await pullConnection({
    client,
    cache,
    log: silentLogger,
    signal: new AbortController().signal,
    vaultIds: [sim.vaultId],
    ...options,
    observer: { progress: () => {}, changed: () => {} },
  })
  const count = (test: (operation: string) => boolean) =>
    [...byOperation].filter(([operation]) => test(operation)).reduce((sum, [, n]) => sum + n, 0)
  return {
    seconds: (performance.now() - started) / 1000,
    requests: count(() => true),
    moleculeRequests: count((operation) => /^(molecules|batches|exports)\./.test(operation)),
    byOperation: Object.fromEntries([...byOperation].sort()),
  }
}

/**
 * Changes `changed` molecules (ids ending in `digit` after `% 100`) through the API, three at a
 * time (the per-user limit); answers them and the description they now have.
 */
async function changeMolecules(
  cache: VaultCache,
  digit: number,
): Promise<{ ids: number[]; stamp: string }> {
  const client = new VaultClient({
    baseUrl: sim.baseUrl,
    token: sim.token,
    limiters: new LimiterRegistry(),
  })
  const ids: number[] = []
  for (let offset = 0; ids.length < changed; offset += 1000) {
    const page = cache.list('molecules', sim.vaultId, { sort: 'id', limit: 1000, offset }).records
    if (page.length === 0) break
    for (const record of page) {
      if (ids.length < changed && Number(record.id) % 100 === digit) ids.push(Number(record.id))
    }
  }
  const stamp = `changed ${new Date().toISOString()}`
  let next = 0
  await Promise.all(
    [0, 1, 2].map(async () => {
      while (next < ids.length) {
        const id = ids[next++]!
        await client.molecules.update(sim.vaultId, id, { description: stamp })
      }
    }),
  )
  return { ids, stamp }
}

/** Whether every changed molecule is cached as changed. */
function assertPulled(cache: VaultCache, ids: readonly number[], stamp: string): void {
  const missed = ids.filter((id) => cache.get('molecules', sim.vaultId, id)?.description !== stamp)
  if (missed.length > 0) throw new Error(`The incremental sync missed ${missed.length} molecules`)
}

try {
  const open = (name: string) => VaultCache.open(path.join(dir, `${name}.db`)).cache
  progress('full sync, as a first sync (export for the molecules)')
  const exported = open('export')
  const fullByExport = await sync(exported)
  await exported.close()
  progress('full sync, page by page')
  const cache = open('pages')
  const fullByPages = await sync(cache, { exportThreshold: Number.POSITIVE_INFINITY })
  progress(`changing ${changed} molecules`)
  const first = await changeMolecules(cache, 7)
  progress('incremental sync, reference data not due')
  const typical = await sync(cache)
  assertPulled(cache, first.ids, first.stamp)
  progress(`changing ${changed} other molecules`)
  const second = await changeMolecules(cache, 8)
  progress('incremental sync with the reference refresh due')
  const withRefresh = await sync(cache, { referenceRefreshMs: 0 })
  assertPulled(cache, second.ids, second.stamp)
  await cache.close()

  const extra = { molecules, changedMolecules: changed }
  for (const [pass, incremental] of [
    ['typical', typical],
    ['with_reference_refresh', withRefresh],
  ] as const) {
    for (const [name, full] of [
      ['pages', fullByPages],
      ['export', fullByExport],
    ] as const) {
      report({
        name: `sync.incremental.${pass}.requests_vs_full_sync_by_${name}`,
        value: incremental.requests,
        unit: 'requests',
        reference: `full sync of the same vault by ${name}, same run`,
        referenceValue: full.requests,
        ratio: Number((incremental.requests / full.requests).toFixed(4)),
        goal: 'at least 20x fewer requests (ratio at most 0.05)',
        met: incremental.requests / full.requests <= 0.05,
        ...extra,
        moleculeAndBatchRequests: incremental.moleculeRequests,
        fullMoleculeAndBatchRequests: full.moleculeRequests,
        byOperation: incremental.byOperation,
      })
      report({
        name: `sync.incremental.${pass}.seconds_vs_full_sync_by_${name}`,
        value: Number(incremental.seconds.toFixed(2)),
        unit: 's',
        reference: `full sync of the same vault by ${name}, same run`,
        referenceValue: Number(full.seconds.toFixed(2)),
        ratio: Number((incremental.seconds / full.seconds).toFixed(4)),
        goal: 'reported beside the requests goal (no goal of its own)',
        ...extra,
      })
    }
  }
} finally {
  await sim.stop()
  fs.rmSync(dir, { recursive: true, force: true })
}
