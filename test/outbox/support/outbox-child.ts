/**
 * A process that sends an outbox once and exits, for the crash tests: they kill it while it
 * sends (`--crash-at <point>`, which has its sender's crash hook SIGKILL it at that point of
 * `crash-points.ts`, or SIGKILL from the test) and start it again on the same data directory.
 * Prints the outbox's items as one JSON line when it finishes.
 *
 * Environment: OUTBOX_CHILD_DATA_DIR, OUTBOX_CHILD_BASE_URL, OUTBOX_CHILD_TOKEN.
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { VaultClient } from '../../../src-main/api/client.ts'
import { EventBus } from '../../../src-main/shared/events.ts'
import { silentLogger } from '../../../src-main/shared/logger.ts'
import { VaultCache } from '../../../src-main/store/vault-cache.ts'
import {
  crashPoints,
  type CrashHook,
  type CrashPoint,
} from '../../../src-main/sync/outbox/crash-points.ts'
import { Outbox } from '../../../src-main/sync/outbox/outbox.ts'

const crashAt = crashPointOf(
  parseArgs({ options: { 'crash-at': { type: 'string' } } }).values['crash-at'],
)
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
  ...(crashAt ? { crashHook: killAt(crashAt) } : {}),
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

function crashPointOf(arg: string | undefined): CrashPoint | undefined {
  if (arg === undefined) return undefined
  const point = crashPoints.find((candidate) => candidate === arg)
  if (!point) throw new Error(`--crash-at takes one of ${crashPoints.join(', ')}, not "${arg}".`)
  return point
}

function killAt(point: CrashPoint): CrashHook {
  return (reached) => {
    if (reached === point) process.kill(process.pid, 'SIGKILL')
  }
}
