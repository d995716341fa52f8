/**
 * How long opening a 250k-molecule cache at step 9 holds the main thread while steps 10 and 11
 * upgrade it, against the same steps with their filling done at once on a copy of it (as they
 * were first written: 5.9 s and 12.2 s on the import-check bench cache at load 5). The filling
 * is the cache writer's worker's (cache-backfills.ts); the main thread keeps two column additions.
 *
 * The cache is synthetic (bench/README.md conventions): molecules with a SMILES, batches and
 * projects in their JSON, and a structure index entry each without fingerprints or pickles, so
 * its pages are fewer than a real cache's.
 *
 *   npx node bench/cache-upgrade.bench.ts      (BENCH_UPGRADE_MOLECULES=250000 by default)
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { hasPendingBackfills } from '../src-main/store/cache-backfills.ts'
import { cacheBackfills, cacheMigrations } from '../src-main/store/cache-migrations.ts'
import { ConnectionCaches } from '../src-main/store/connection-caches.ts'
import { migrate } from '../src-main/store/migrations.ts'
import { configureConnection } from '../src-main/store/sqlite.ts'
import { EventLoopDelay } from './event-loop-delay.ts'
import { progress, report } from './report.ts'

const molecules = Number(process.env.BENCH_UPGRADE_MOLECULES ?? 250_000)
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-bench-cache-upgrade-'))

try {
  const file = path.join(directory, 'caches', 'lab.db')
  progress(`building a cache of ${molecules} molecules at step 9`)
  buildCacheAtStep9(file)
  const twin = path.join(directory, 'twin.db')
  fs.copyFileSync(file, twin)

  progress('steps 10 and 11 filled at once, on the copy')
  let started = performance.now()
  const db = new Database(twin)
  configureConnection(db)
  migrate(db, cacheMigrations, 'the copy')
  for (const [step, backfill] of Object.entries(cacheBackfills)) {
    const { fill, finish } = backfill(db)
    db.transaction(() => {
      fill(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
      finish?.()
      db.prepare('DELETE FROM cache_backfills WHERE step = ?').run(Number(step))
    })()
  }
  db.close()
  const eagerMs = performance.now() - started

  progress('the cache opened as the app opens it')
  const delay = new EventLoopDelay()
  delay.start()
  await sleep(20)
  const caches = new ConnectionCaches(directory)
  started = performance.now()
  caches.open('lab')
  const openMs = performance.now() - started
  await sleep(20)
  const openStallMs = delay.maxMs()
  const during = new EventLoopDelay()
  during.start()
  while (hasPendingBackfills(file)) await sleep(100)
  const backfillS = (performance.now() - started) / 1000
  during.stop()
  delay.stop()
  await caches.closeAll()

  const reference = `steps 10 and 11 with their filling at once, on a copy (${molecules} molecules)`
  report({
    name: 'cache-upgrade.open-event-loop-stall',
    value: openStallMs,
    unit: 'ms',
    reference,
    referenceValue: eagerMs,
    ratio: openStallMs / eagerMs,
    goal: 'ratio < 0.1',
    met: openStallMs / eagerMs < 0.1,
    openMs,
  })
  report({
    name: 'cache-upgrade.backfill-event-loop-p99',
    value: during.percentileMs(99),
    unit: 'ms',
    reference,
    referenceValue: eagerMs,
    ratio: during.percentileMs(99) / eagerMs,
    maxMs: during.maxMs(),
    backfillSeconds: backfillS,
  })
} finally {
  fs.rmSync(directory, { recursive: true, force: true })
}

function buildCacheAtStep9(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const db = new Database(file)
  configureConnection(db)
  migrate(db, cacheMigrations.slice(0, 9), 'the bench cache')
  db.exec(`
    WITH RECURSIVE n(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM n WHERE id < ${molecules})
    INSERT INTO molecules (vault_id, id, name, json)
      SELECT 1, id, 'VD-' || id, json_object('id', id, 'name', 'VD-' || id,
          'smiles', printf('C%.*c', id % 12, 'C') || 'O',
          'batches', iif(id % 5 = 0, NULL, json_array(json_object('id', id * 10))),
          'projects', json_array(json_object('id', id % 7, 'name', 'Project ' || (id % 7))))
        FROM n;
    INSERT INTO structure_index (vault_id, molecule_id, content_hash, computed_at)
      SELECT vault_id, id, 'hash', '2024-05-03T12:01:00.000Z' FROM molecules;
  `)
  db.close()
}
