import fs from 'node:fs'
import path from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { hasPendingBackfills } from '../../src-main/store/cache-backfills.ts'
import { cacheBackfills, cacheMigrations } from '../../src-main/store/cache-migrations.ts'
import { ConnectionCaches } from '../../src-main/store/connection-caches.ts'
import { migrate } from '../../src-main/store/migrations.ts'
import { databaseAtStep } from './fixtures/schema-steps.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

/*
 * Steps 10 and 11 fill every molecule row and every structure index entry of an existing cache
 * (5.9 s and 12.2 s for 250k on the bench machine). A cache opens on the main thread, so that work
 * is done later by the writer's worker (cache-backfills.ts), and what opening still does there is
 * constant: two columns added, one index made over empty keys.
 *
 * The bound: the longest stall of the event loop while the cache opens must stay under a quarter
 * of the stall that the same work done at once makes on an identical copy, measured in the same
 * run (so the load of the machine weighs on both alike). At 40k molecules that work is seconds
 * long and opening a few tens of milliseconds: were the filling back on the main thread, the
 * stall would be about the same as the copy's, four times the bound.
 */

const molecules = 40_000
const temporaryDirectory = useTemporaryDirectory('vd-cache-upgrade-blocking-')
let caches: ConnectionCaches | undefined
afterEach(async () => {
  await caches?.closeAll()
  caches = undefined
})

/** A cache at step 9 with `count` molecules and an entry of the structure index for each. */
function cacheAtStep9(file: string, count = molecules): void {
  const db = databaseAtStep(file, cacheMigrations, 9)
  try {
    db.exec(`
      WITH RECURSIVE n(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM n WHERE id < ${count})
      INSERT INTO molecules (vault_id, id, name, json)
        SELECT 1, id, 'VD-' || id, json_object('id', id, 'name', 'VD-' || id,
            'smiles', printf('C%.*c', id % 12, 'C') || 'O',
            'batches', iif(id % 5 = 0, NULL, json_array(json_object('id', id * 10))),
            'projects', json_array(json_object('id', id % 7, 'name', 'Project ' || (id % 7))))
          FROM n;
      INSERT INTO structure_index (vault_id, molecule_id, content_hash, computed_at)
        SELECT vault_id, id, 'hash', '2024-05-03T12:01:00.000Z' FROM molecules;
    `)
  } finally {
    db.close()
  }
}

/** The longest stall of the event loop, in milliseconds, while `work` runs. */
async function longestStall(work: () => void): Promise<number> {
  const delay = monitorEventLoopDelay({ resolution: 5 })
  delay.enable()
  await sleep(20)
  work()
  await sleep(20)
  delay.disable()
  return delay.max / 1e6
}

/** Until the writer's worker has done the backfills; a clear failure if it never does. */
async function backfilled(file: string): Promise<void> {
  for (let waited = 0; hasPendingBackfills(file); waited += 100) {
    if (waited > 120_000) throw new Error(`The backfills of ${file} did not finish in 2 minutes.`)
    await sleep(100)
  }
}

function filledColumns(file: string): unknown[] {
  const db = new Database(file, { readonly: true })
  try {
    return db
      .prepare(
        `SELECT m.id, m.batch_count, m.projects_json, s.structure_hash
           FROM molecules AS m JOIN structure_index AS s
             ON s.vault_id = m.vault_id AND s.molecule_id = m.id
           ORDER BY m.id`,
      )
      .raw()
      .all()
  } finally {
    db.close()
  }
}

describe('opening a cache that steps 10 to 12 upgrade', () => {
  it('holds the event loop for a fraction of the work, which the writer then does', async () => {
    const dataDir = temporaryDirectory()
    const file = path.join(dataDir, 'caches', 'lab.db')
    cacheAtStep9(file)
    const twin = path.join(dataDir, 'twin.db')
    fs.copyFileSync(file, twin)

    // The reference: the same steps with their filling done at once, as they were first written.
    const eagerStall = await longestStall(() => {
      const db = new Database(twin)
      try {
        migrate(db, cacheMigrations, 'the twin cache')
        const pending = db.prepare('SELECT step FROM cache_backfills').pluck().all() as number[]
        for (const step of pending) {
          const { fill, finish } = cacheBackfills[step]!(db)
          db.transaction(() => {
            fill(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
            finish?.()
          })()
          db.prepare('DELETE FROM cache_backfills WHERE step = ?').run(step)
        }
      } finally {
        db.close()
      }
    })

    caches = new ConnectionCaches(dataDir)
    const openStall = await longestStall(() => {
      caches!.open('lab')
    })
    expect(hasPendingBackfills(file)).toBe(true)
    expect(openStall).toBeLessThan(eagerStall / 4)

    await backfilled(file)
    const filled = filledColumns(file)
    expect(filled).toEqual(filledColumns(twin))
    expect(filled.every((row) => (row as unknown[])[3] !== null)).toBe(true)
    expect(filled[0]).toEqual([1, 1, '[{"id":1,"name":"Project 1"}]', expect.any(String)])
    expect((filled[4] as unknown[])[1]).toBeNull()
  })
})

describe('a backfill stopped midway', () => {
  it('goes on where it stopped when the cache opens again', async () => {
    const dataDir = temporaryDirectory()
    const file = path.join(dataDir, 'caches', 'lab.db')
    cacheAtStep9(file, 5000)
    caches = new ConnectionCaches(dataDir)
    caches.open('lab')
    await caches.closeAll()
    // Whatever the worker did before it was stopped, leave step 10 half done and step 11 undone.
    const db = new Database(file)
    try {
      db.exec(`
        UPDATE molecules SET batch_count = iif(json_type(json, '$.batches') = 'array',
            json_array_length(json, '$.batches'), NULL), projects_json = json -> '$.projects';
        UPDATE molecules SET batch_count = NULL, projects_json = NULL
          WHERE row_id >= (SELECT min(row_id) + 2500 FROM molecules);
        UPDATE structure_index SET structure_hash = NULL;
        DROP INDEX IF EXISTS structure_index_readable_by_structure_hash;
        DELETE FROM cache_backfills;
        INSERT INTO cache_backfills SELECT 10, min(row_id) + 2500, max(row_id) FROM molecules;
        INSERT INTO cache_backfills SELECT 11, min(rowid), max(rowid) FROM structure_index;
      `)
    } finally {
      db.close()
    }

    caches = new ConnectionCaches(dataDir)
    caches.open('lab')
    await backfilled(file)
    const reader = new Database(file, { readonly: true })
    try {
      // The reference: SQLite's own reading of each record's members.
      const wrong = reader
        .prepare(
          `SELECT count(*) FROM molecules WHERE batch_count IS NOT
             iif(json_type(json, '$.batches') = 'array', json_array_length(json, '$.batches'), NULL)
             OR projects_json IS NOT json(json_extract(json, '$.projects'))`,
        )
        .pluck()
        .get()
      expect(wrong).toBe(0)
      expect(
        reader
          .prepare('SELECT count(*) FROM structure_index WHERE structure_hash IS NULL')
          .pluck()
          .get(),
      ).toBe(0)
      expect(
        reader
          .prepare(
            "SELECT count(*) FROM sqlite_schema WHERE name = 'structure_index_readable_by_structure_hash'",
          )
          .pluck()
          .get(),
      ).toBe(1)
    } finally {
      reader.close()
    }
  })
})
