/**
 * What noticing a replaced outbox file costs each write (issue 26): every write transaction of
 * the outbox's store stats the outbox's path and compares its device and inode with its
 * connection's (`OutboxStore`, outbox-file.ts). Measured on an outbox file: the same unsynced
 * write (an item's followed-import result, one UPDATE in its own transaction) through a store
 * that looks (bound to its file) beside one that does not, taking turns; and the stat alone.
 *
 * Environment: BENCH_FOLLOW_WRITES (default 20,000 per round).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { openOutboxDatabase } from '../src-main/sync/outbox/outbox-database.ts'
import { identityOf, openBound } from '../src-main/sync/outbox/outbox-file.ts'
import { OutboxStore } from '../src-main/sync/outbox/outbox-store.ts'
import { progress, report } from './report.ts'

const writes = Number(process.env.BENCH_FOLLOW_WRITES ?? 20_000)
const rounds = 5
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-outbox-follow-'))
const file = path.join(dir, 'outbox.db')

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

try {
  const bound = openBound(file, () => openOutboxDatabase(file))
  const looking = new OutboxStore(bound.db, {
    file,
    identity: bound.identity!,
    reopen: () => openBound(file, () => openOutboxDatabase(file)),
  })
  const plainDb = openOutboxDatabase(file)
  const plain = new OutboxStore(plainDb)
  const item = looking.insert(
    {
      connectionId: 'lab',
      vaultId: 1,
      operation: 'collection.create',
      payload: { name: 'bench' },
      recordKind: 'collections',
      recordId: null,
      recordItem: 'self',
      overlay: { create: { name: 'bench' } },
      baseModifiedAt: null,
      attachment: null,
      dependsOn: [],
    },
    Date.now(),
  )
  const perWrite = (store: OutboxStore) => {
    const started = process.cpuUsage()
    for (let index = 0; index < writes; index++) {
      store.updateResult(item.id, { n: index }, false, index)
    }
    const used = process.cpuUsage(started)
    return (used.user + used.system) / writes
  }
  const withLook: number[] = []
  const without: number[] = []
  perWrite(looking)
  perWrite(plain)
  for (let round = 0; round < rounds; round++) {
    withLook.push(perWrite(looking))
    without.push(perWrite(plain))
    progress(
      `round ${round + 1}: ${withLook.at(-1)!.toFixed(2)} vs ${without.at(-1)!.toFixed(2)} us`,
    )
  }
  const statStarted = process.cpuUsage()
  for (let index = 0; index < writes; index++) identityOf(file)
  const statUsed = process.cpuUsage(statStarted)
  const stat = (statUsed.user + statUsed.system) / writes
  const value = median(withLook)
  const referenceValue = median(without)
  report({
    name: 'outbox.write.cpu_with_replacement_check',
    value,
    unit: 'us',
    reference: 'the same write through a store that does not look (same run, alternating)',
    referenceValue,
    ratio: value / referenceValue,
    statUs: stat,
    writes,
    loadAverage: os.loadavg()[0],
  })
  bound.db.close()
  plainDb.close()
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
