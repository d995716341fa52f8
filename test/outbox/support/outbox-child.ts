/**
 * A process that sends an outbox once and exits, for the crash tests: they kill it while it
 * sends (VAULT_DESK_TEST_CRASH_AT, or SIGKILL from the test) and start it again on the same data
 * directory. Prints the outbox's items as one JSON line when it finishes.
 *
 * Environment: OUTBOX_CHILD_DATA_DIR, OUTBOX_CHILD_BASE_URL, OUTBOX_CHILD_TOKEN.
 */
import path from 'node:path'
import { VaultClient } from '../../../src-main/api/client.ts'
import { EventBus } from '../../../src-main/shared/events.ts'
import { silentLogger } from '../../../src-main/shared/logger.ts'
import { VaultCache } from '../../../src-main/store/vault-cache.ts'
import { Outbox } from '../../../src-main/sync/outbox/outbox.ts'

const dataDir = required('OUTBOX_CHILD_DATA_DIR')
const client = new VaultClient({
  baseUrl: required('OUTBOX_CHILD_BASE_URL'),
  token: required('OUTBOX_CHILD_TOKEN'),
  retry: { attempts: 1 },
})
const { cache } = VaultCache.open(path.join(dataDir, 'caches', 'lab.db'))
const outbox = new Outbox({
  dataDir,
  connection: () => ({ client, cache }),
  connectionName: () => 'Lab vault',
  events: new EventBus(),
  log: silentLogger,
  retry: { baseDelayMs: 1, maxDelayMs: 1 },
  pollMs: 20,
})
if (!outbox.start()) throw new Error('Another process holds the outbox.')
await outbox.flush()
process.stdout.write(
  `${JSON.stringify(outbox.list({ states: ['sent', 'uncertain', 'needs_attention', 'queued', 'conflict'] }))}\n`,
)
await outbox.close()
cache.close()

function required(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set.`)
  return value
}
