/**
 * A process that uploads one file through the outbox and reports its own resident memory, for
 * the large-upload test and benchmark (a process of its own, so that nothing else's memory is
 * counted). A small upload goes first, so that the measurement is of the large file and not of
 * the HTTP client's first use. Prints one JSON line: {baselineRss, peakRss, state, sentBytes,
 * lastError, seconds}.
 *
 * Environment: UPLOAD_CHILD_DATA_DIR, UPLOAD_CHILD_BASE_URL, UPLOAD_CHILD_FILE.
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
const client = new VaultClient({
  baseUrl: required('UPLOAD_CHILD_BASE_URL'),
  token: 'sink-token',
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
  connectionName: () => 'Sink',
  events,
  log: silentLogger,
  progressIntervalMs: 100,
})
outbox.start()

const attach = (source: string) =>
  outbox.queue({
    connectionId: 'lab',
    vaultId: 1,
    operation: 'file.attach',
    file: source,
    target: { kind: 'eln_entry', ref: { id: 1 } },
  })

const warmUp = path.join(dataDir, 'warm-up.txt')
fs.writeFileSync(warmUp, 'warm up')
await attach(warmUp)
await outbox.flush()

const [item] = await attach(file)
globalThis.gc?.()
const baselineRss = process.memoryUsage.rss()
let peakRss = baselineRss
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss())
}, 20)
const started = performance.now()
await outbox.flush()
const seconds = (performance.now() - started) / 1000
clearInterval(sampler)
peakRss = Math.max(peakRss, process.memoryUsage.rss())
const { state, lastError, file: queuedFile } = outbox.item(item!.id)
process.stdout.write(
  `${JSON.stringify({ baselineRss, peakRss, state, lastError, sentBytes, size: queuedFile?.size, seconds })}\n`,
)
await outbox.close()
cache.close()

function required(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set.`)
  return value
}
