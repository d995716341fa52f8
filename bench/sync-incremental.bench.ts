/**
 * An incremental sync after 1% of the molecules changed, against a full sync of the same vault
 * (requests and time), both measured in the same run: the full sync both as a first sync runs it
 * (one export for the molecules) and page by page (what a client without incremental sync sends
 * every time).
 *
 * Environment: BENCH_MOLECULES (default 100000).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { LimiterRegistry, VaultClient } from '../src-main/api/index.ts'
import { silentLogger, type Logger } from '../src-main/shared/logger.ts'
import { VaultCache } from '../src-main/store/vault-cache.ts'
import { pullConnection } from '../src-main/sync/connection-pull.ts'
import { progress, report } from './report.ts'
import { startBenchSim } from './sync-sim.ts'

const molecules = Number(process.env.BENCH_MOLECULES ?? 100_000)
const changed = Math.round(molecules / 100)

const sim = await startBenchSim(molecules)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-bench-sync-incremental-'))

interface Requests {
  total: number
  byOperation: Map<string, number>
}

/** Counts the client's requests by operation from the lines its transport logs per attempt. */
function countingLogger(requests: Requests): Logger {
  const count = (message: string, fields: Record<string, unknown> | undefined) => {
    if (!['api call', 'api call failed', 'api call will be retried'].includes(message)) return
    const operation = String(fields?.operation)
    requests.total++
    requests.byOperation.set(operation, (requests.byOperation.get(operation) ?? 0) + 1)
  }
  const logger: Logger = {
    ...silentLogger,
    debug: count,
    warn: count,
    child: () => logger,
  }
  return logger
}

interface Run {
  seconds: number
  requests: number
  moleculeRequests: number
}

async function sync(cache: VaultCache, exportThreshold?: number): Promise<Run> {
  const requests: Requests = { total: 0, byOperation: new Map() }
  const client = new VaultClient({
    baseUrl: sim.baseUrl,
    token: sim.token,
    limiters: new LimiterRegistry(),
    logger: countingLogger(requests),
    exportPolling: { minIntervalMs: 50, maxIntervalMs: 100 },
  })
  const started = performance.now()
  await pullConnection({
    client,
    cache,
    log: silentLogger,
    signal: new AbortController().signal,
    vaultIds: [sim.vaultId],
    ...(exportThreshold !== undefined ? { exportThreshold } : {}),
    observer: { progress: () => {}, changed: () => {} },
  })
  const moleculeRequests = [...requests.byOperation]
    .filter(([operation]) => /^(molecules|batches|exports)\./.test(operation))
    .reduce((sum, [, count]) => sum + count, 0)
  return {
    seconds: (performance.now() - started) / 1000,
    requests: requests.total,
    moleculeRequests,
  }
}

/** Changes `changed` molecules through the API, three at a time (the per-user limit). */
async function changeMolecules(cache: VaultCache): Promise<number[]> {
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
      if (ids.length < changed && Number(record.id) % 100 === 7) ids.push(Number(record.id))
    }
  }
  const stamp = new Date().toISOString()
  let next = 0
  await Promise.all(
    [0, 1, 2].map(async () => {
      while (next < ids.length) {
        const id = ids[next++]!
        await client.molecules.update(sim.vaultId, id, { description: `changed ${stamp}` })
      }
    }),
  )
  return ids
}

try {
  const open = (name: string) => VaultCache.open(path.join(dir, `${name}.db`)).cache
  progress('full sync, as a first sync (export for the molecules)')
  const exported = open('export')
  const fullByExport = await sync(exported)
  exported.close()
  progress('full sync, page by page')
  const cache = open('pages')
  const fullByPages = await sync(cache, Number.POSITIVE_INFINITY)
  progress(`changing ${changed} molecules`)
  const ids = await changeMolecules(cache)
  progress('incremental sync')
  const incremental = await sync(cache)
  const described = ids.filter((id) =>
    String(cache.get('molecules', sim.vaultId, id)?.description).startsWith('changed'),
  )
  if (described.length !== ids.length) {
    throw new Error(
      `The incremental sync missed ${ids.length - described.length} changed molecules`,
    )
  }
  cache.close()

  const extra = { molecules, changedMolecules: changed }
  for (const [name, full] of [
    ['pages', fullByPages],
    ['export', fullByExport],
  ] as const) {
    report({
      name: `sync.incremental.requests_vs_full_sync_by_${name}`,
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
      moleculeAndBatchRatio: Number(
        (incremental.moleculeRequests / full.moleculeRequests).toFixed(4),
      ),
    })
    report({
      name: `sync.incremental.seconds_vs_full_sync_by_${name}`,
      value: Number(incremental.seconds.toFixed(2)),
      unit: 's',
      reference: `full sync of the same vault by ${name}, same run`,
      referenceValue: Number(full.seconds.toFixed(2)),
      ratio: Number((incremental.seconds / full.seconds).toFixed(4)),
      goal: 'reported beside the requests goal (no goal of its own)',
      ...extra,
    })
  }
} finally {
  await sim.stop()
  fs.rmSync(dir, { recursive: true, force: true })
}
