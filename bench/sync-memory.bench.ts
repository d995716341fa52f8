/**
 * Main-process memory after caching 250k molecules: the first sync of a 250k-molecule vault (an
 * export, as a first sync reads it) into a fresh cache, then the resident set size and heap once
 * the sync is over and the cache writer (a worker thread, whose heap and page cache count in the
 * process) has merged the search index and stopped, against the same process before the sync,
 * measured in the same run. The peak during the sync, and the size right after it, are reported
 * too.
 *
 * Environment: BENCH_MOLECULES (default 250000).
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

const molecules = Number(process.env.BENCH_MOLECULES ?? 250_000)
const megabyte = 1024 * 1024

const sim = await startBenchSim(molecules)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-bench-sync-memory-'))
try {
  const { cache } = VaultCache.open(path.join(dir, 'cache.db'))
  globalThis.gc?.()
  const before = process.memoryUsage()
  let peak = before.rss
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100)
  progress(`first sync of ${molecules} molecules`)
  const started = performance.now()
  await pullConnection({
    client: new VaultClient({
      baseUrl: sim.baseUrl,
      token: sim.token,
      limiters: new LimiterRegistry(),
      exportPolling: { minIntervalMs: 50, maxIntervalMs: 100 },
    }),
    cache,
    log: silentLogger,
    signal: new AbortController().signal,
    vaultIds: [sim.vaultId],
    observer: { progress: () => {}, changed: () => {} },
  })
  const seconds = (performance.now() - started) / 1000
  globalThis.gc?.()
  const rightAfter = process.memoryUsage().rss
  progress('waiting for the cache writer to settle and stop')
  while (cache.writer.running) await new Promise((resolve) => setTimeout(resolve, 500))
  clearInterval(sampler)
  globalThis.gc?.()
  const after = process.memoryUsage()
  peak = Math.max(peak, after.rss)
  const cached = cache.counts()[sim.vaultId]?.molecules ?? 0
  await cache.close()
  report({
    name: 'sync.memory.rss_after_caching_molecules',
    value: Math.round(after.rss / megabyte),
    unit: 'MB',
    reference: 'resident set size of the same process before the sync',
    referenceValue: Math.round(before.rss / megabyte),
    ratio: Number((after.rss / before.rss).toFixed(3)),
    goal: 'under 500 MB after caching 250k molecules',
    met: after.rss < 500 * megabyte && cached >= molecules,
    molecules: cached,
    peakRssMB: Math.round(peak / megabyte),
    rightAfterTheSyncMB: Math.round(rightAfter / megabyte),
    heapUsedMB: Math.round(after.heapUsed / megabyte),
    heapUsedBeforeMB: Math.round(before.heapUsed / megabyte),
    seconds: Number(seconds.toFixed(1)),
  })
} finally {
  await sim.stop()
  fs.rmSync(dir, { recursive: true, force: true })
}
