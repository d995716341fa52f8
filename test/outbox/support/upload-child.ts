/**
 * A process that uploads one file through the outbox and reports its own resident memory, for
 * the large-upload test and benchmark (a process of its own, so that nothing else's memory is
 * counted: the simulator receiving the file runs in the parent). A small upload goes first, so
 * that the measurement is of the large file and not of the HTTP client's first use. Resident
 * memory is sampled every 20 ms from just before the large upload is sent until it has been.
 * Prints one JSON line: {baselineRss, peakRss, state, lastError, serverId, sentBytes, size,
 * seconds, peaks: {heapTotal, external, arrayBuffers}}.
 *
 * Environment: UPLOAD_CHILD_DATA_DIR, UPLOAD_CHILD_BASE_URL, UPLOAD_CHILD_TOKEN,
 * UPLOAD_CHILD_VAULT_ID, UPLOAD_CHILD_ENTRY_ID (the ELN entry the file is attached to),
 * UPLOAD_CHILD_FILE.
 */
import fs from 'node:fs'
import path from 'node:path'
import { VaultClient } from '../../../src-main/api/client.ts'
import { EventBus } from '../../../src-main/shared/events.ts'
import { silentLogger } from '../../../src-main/shared/logger.ts'
import { VaultCache } from '../../../src-main/store/vault-cache.ts'
import { Outbox } from '../../../src-main/sync/outbox/outbox.ts'

const dataDir = required('UPLOAD_CHILD_DATA_DIR')
const file = required('UPLOAD_CHILD_FILE')
const vaultId = Number(required('UPLOAD_CHILD_VAULT_ID'))
const entryId = Number(required('UPLOAD_CHILD_ENTRY_ID'))
const client = new VaultClient({
  baseUrl: required('UPLOAD_CHILD_BASE_URL'),
  token: required('UPLOAD_CHILD_TOKEN'),
  retry: { attempts: 1 },
})
const { cache } = VaultCache.open(path.join(dataDir, 'caches', 'lab.db'))
const events = new EventBus()
let sentBytes = 0
events.on('outbox.changed', (change) => {
  for (const progress of change.progress) sentBytes = Math.max(sentBytes, progress.sentBytes)
})
const outbox = new Outbox({
  dataDir,
  connection: () => ({ client, cache }),
  connectionName: () => 'Lab',
  events,
  log: silentLogger,
  progressIntervalMs: 100,
})
outbox.start()

const attach = (source: string) =>
  outbox.queue({
    connectionId: 'lab',
    vaultId,
    operation: 'file.attach',
    file: source,
    target: { kind: 'eln_entry', ref: { id: entryId } },
  })

const warmUp = path.join(dataDir, 'warm-up.txt')
fs.writeFileSync(warmUp, 'warm up')
await attach(warmUp)
await outbox.flush()

const [item] = await attach(file)
globalThis.gc?.()
const baselineRss = process.memoryUsage.rss()
let peakRss = baselineRss
const peaks = { heapTotal: 0, external: 0, arrayBuffers: 0 }
const sample = () => {
  const usage = process.memoryUsage()
  peakRss = Math.max(peakRss, usage.rss)
  peaks.heapTotal = Math.max(peaks.heapTotal, usage.heapTotal)
  peaks.external = Math.max(peaks.external, usage.external)
  peaks.arrayBuffers = Math.max(peaks.arrayBuffers, usage.arrayBuffers)
}
const sampler = setInterval(sample, 20)
const started = performance.now()
await outbox.flush()
const seconds = (performance.now() - started) / 1000
clearInterval(sampler)
sample()
const { state, lastError, serverId, file: queuedFile } = outbox.item(item!.id)
process.stdout.write(
  `${JSON.stringify({ baselineRss, peakRss, peaks, state, lastError, serverId, sentBytes, size: queuedFile?.size, seconds })}\n`,
)
await outbox.close()
cache.close()

function required(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set.`)
  return value
}
