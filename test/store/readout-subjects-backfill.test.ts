/**
 * Cache step 9 in a cache that already holds readout aggregates: the main thread only makes two
 * empty tables, and the cache writer's worker fills each protocol's subjects a slice at a time,
 * then counts them and makes the step's two indexes in place of step 7's
 * (cache-migrations.ts, cache-backfills.ts). Results tables read the same rows before, during
 * and after. Checked against subjects and counts computed here in plain JavaScript from the
 * aggregates inserted.
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { IdleBackfills } from '../../src-main/store/cache-backfills.ts'
import { configureCache } from '../../src-main/store/cache-database.ts'
import { cacheBackfills, cacheMigrations } from '../../src-main/store/cache-migrations.ts'
import { migrate } from '../../src-main/store/migrations.ts'
import { ReadoutQueries } from '../../src-main/store/readout-queries.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const temporaryDirectory = useTemporaryDirectory('vd-readout-subjects-')

/** [vault, level, subject, protocol, definition, number] as step 7's indexer wrote them. */
type Aggregate = [number, 'molecule' | 'batch', number, number, number, number]

/**
 * Two vaults, two protocols of two readouts each, both levels: 3,000 molecules and their batches
 * (ids spread with gaps), not every one tested in every protocol or with every readout, so that
 * the fill takes several slices of each vault and level.
 */
function aggregatesOf(): Aggregate[] {
  const aggregates: Aggregate[] = []
  for (const vault of [1, 2]) {
    for (let molecule = 1; molecule <= 3000; molecule++) {
      const id = molecule * 3 + vault
      for (const protocol of [5, 6]) {
        if ((molecule + protocol) % 4 === 0) continue
        for (const definition of [protocol * 10, protocol * 10 + 1]) {
          if ((molecule * definition) % 7 === 0) continue
          const value = ((molecule * 37 + definition) % 1000) / 10
          aggregates.push([vault, 'molecule', id, protocol, definition, value])
          if (molecule % 2 === 0)
            aggregates.push([vault, 'batch', id * 10, protocol, definition, value])
        }
      }
    }
  }
  return aggregates
}

/** A cache file at step 8 with the aggregates, migrated to this build's step. */
function upgradedCache(aggregates: readonly Aggregate[]): Database.Database {
  const file = path.join(temporaryDirectory(), 'lab.db')
  const db = new Database(file)
  configureCache(db)
  migrate(db, cacheMigrations.slice(0, 8), 'the cache at step 8')
  const insert = db.prepare(
    `INSERT INTO readout_aggregates (vault_id, level, subject_id, protocol_id, definition_id,
       source, aggregation, kind, number, modifier, text, n, details)
     VALUES (?, ?, ?, ?, ?, 'computed', 'arithmetic mean', 'number', ?, NULL, NULL, 2, '{}')`,
  )
  db.transaction(() => {
    for (const aggregate of aggregates) insert.run(...aggregate)
  })()
  migrate(db, cacheMigrations, 'the cache')
  return db
}

/** Subjects and counts as step 9 keeps them, from the aggregates. */
function expectedOf(aggregates: readonly Aggregate[]) {
  const subjects = new Set(
    aggregates.map(([vault, level, subject, protocol]) =>
      JSON.stringify([vault, level, protocol, subject]),
    ),
  )
  const counts = new Map<string, number>()
  for (const key of subjects) {
    const [vault, level, protocol] = JSON.parse(key) as [number, string, number]
    const group = JSON.stringify([vault, level, protocol])
    counts.set(group, (counts.get(group) ?? 0) + 1)
  }
  const sorted = (rows: unknown[][]) =>
    rows.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
  return {
    subjects: sorted([...subjects].map((key) => JSON.parse(key) as unknown[])),
    counts: sorted([...counts].map(([key, count]) => [...(JSON.parse(key) as unknown[]), count])),
  }
}

function keptOf(db: Database.Database) {
  const sorted = (rows: unknown[][]) =>
    rows.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
  return {
    subjects: sorted(
      db
        .prepare('SELECT vault_id, level, protocol_id, subject_id FROM readout_subjects')
        .raw()
        .all() as unknown[][],
    ),
    counts: sorted(
      db
        .prepare('SELECT vault_id, level, protocol_id, subjects FROM readout_subject_counts')
        .raw()
        .all() as unknown[][],
    ),
  }
}

const indexNames = (db: Database.Database) =>
  db
    .prepare(
      `SELECT name FROM sqlite_schema WHERE type = 'index'
         AND tbl_name IN ('readout_values', 'readout_aggregates') ORDER BY name`,
    )
    .pluck()
    .all()

/** Results tables of both levels, by name, sorted by a readout both ways, and filtered. */
function tablesOf(db: Database.Database) {
  const queries = new ReadoutQueries(db)
  const columns = [
    { protocolId: 5, definitionId: 50 },
    { protocolId: 5, definitionId: 51 },
  ]
  const answers = []
  for (const level of ['molecule', 'batch'] as const) {
    answers.push(queries.table(2, { level, columns }))
    answers.push(queries.table(2, { level, columns, limit: 5, offset: 40 }))
    for (const direction of ['asc', 'desc'] as const) {
      answers.push(queries.table(2, { level, columns, sort: { column: 0, direction } }))
    }
    answers.push(
      queries.table(2, { level, columns: [...columns, { protocolId: 6, definitionId: 60 }] }),
    )
  }
  return answers.map((page) => ({
    total: page.total,
    rows: page.rows.map((row) => [row.subjectId, ...row.cells.map((cell) => cell?.number)]),
  }))
}

/** Runs the writer's backfills on the connection until they settle. */
async function backfill(db: Database.Database): Promise<void> {
  await new Promise<void>((resolve) => new IdleBackfills(db, resolve).idle())
}

/** How many slices step 9's work takes, from where they end. */
function slicesOf(db: Database.Database): number {
  const { sliceEnd } = cacheBackfills[9]!(db)
  let slices = 1
  for (let end = sliceEnd!(Number.MIN_SAFE_INTEGER); end !== null; end = sliceEnd!(end + 1)) {
    slices++
  }
  return slices
}

describe('cache step 9 in a cache with readout aggregates', () => {
  it('leaves the subjects, their counts and the indexes to the writer, which fills them in slices', async () => {
    const aggregates = aggregatesOf()
    const db = upgradedCache(aggregates)
    try {
      expect(db.prepare('SELECT step FROM cache_backfills').pluck().all()).toContain(9)
      expect(keptOf(db)).toEqual({ subjects: [], counts: [] })
      expect(indexNames(db)).toEqual([
        'readout_aggregates_by_subject',
        'readout_aggregates_by_value',
        'readout_values_by_batch',
        'readout_values_by_definition',
        'readout_values_by_molecule',
        // Step 15's, made at once: these caches hold aggregates but no readout rows.
        'readout_values_for_curves',
      ])
      // Read from the aggregates while the subjects are not filled.
      const before = tablesOf(db)
      expect(before[0]!.total).toBe(
        new Set(
          aggregates
            .filter(
              ([vault, level, , protocol]) => vault === 2 && level === 'molecule' && protocol === 5,
            )
            .map(([, , subject]) => subject),
        ).size,
      )

      // A slice ends after about a thousand aggregates of one vault and level.
      const perVaultAndLevel = [1, 2].flatMap((vault) =>
        ['molecule', 'batch'].map(
          (level) => aggregates.filter(([v, l]) => v === vault && l === level).length,
        ),
      )
      const slices = slicesOf(db)
      expect(slices).toBeGreaterThanOrEqual(Math.ceil(Math.max(...perVaultAndLevel) / 1000))
      expect(slices).toBeLessThanOrEqual(
        perVaultAndLevel.reduce((sum, count) => sum + Math.ceil(count / 1000), 0),
      )
      await backfill(db)
      expect(keptOf(db)).toEqual(expectedOf(aggregates))
      expect(db.prepare('SELECT count(*) FROM cache_backfills').pluck().get()).toBe(0)
      expect(indexNames(db)).toEqual([
        'readout_aggregates_by_cell',
        'readout_aggregates_by_subject',
        'readout_values_by_batch',
        'readout_values_by_cell',
        'readout_values_by_molecule',
        // Step 15's, made at once: these caches hold aggregates but no readout rows.
        'readout_values_for_curves',
      ])
      // The same answers from the kept subjects, counts and the step's indexes.
      expect(tablesOf(db)).toEqual(before)
    } finally {
      db.close()
    }
  })

  it("keeps subjects right when the indexer changes a group's aggregates midway", async () => {
    const aggregates = aggregatesOf()
    const db = upgradedCache(aggregates)
    try {
      const { sliceEnd, fill } = cacheBackfills[9]!(db)
      const end = sliceEnd!(Number.MIN_SAFE_INTEGER)!
      fill(Number.MIN_SAFE_INTEGER, end)
      db.prepare('UPDATE cache_backfills SET next_row_id = ? WHERE step = 9').run(end + 1)
      // As the indexer does for a group whose rows changed: its aggregates and subjects replaced.
      // One subject already filled loses its aggregates, one not yet filled too, one is new.
      const filled = aggregates.find(([vault, , subject]) => vault === 1 && subject <= end)!
      const later = aggregates.find(([vault, , subject]) => vault === 1 && subject > end + 100)!
      const gone = (aggregate: Aggregate) => (other: Aggregate) =>
        other[0] === aggregate[0] &&
        other[1] === aggregate[1] &&
        other[2] === aggregate[2] &&
        other[3] === aggregate[3]
      const remove = db.prepare(
        `DELETE FROM readout_aggregates WHERE vault_id = ? AND level = ? AND subject_id = ? AND protocol_id = ?`,
      )
      const removeSubject = db.prepare(
        `DELETE FROM readout_subjects WHERE vault_id = ? AND level = ? AND subject_id = ? AND protocol_id = ?`,
      )
      for (const aggregate of [filled, later]) {
        remove.run(...aggregate.slice(0, 4))
        removeSubject.run(...aggregate.slice(0, 4))
      }
      const added: Aggregate = [1, 'molecule', 1, 5, 50, 4.2]
      db.prepare(
        `INSERT INTO readout_aggregates (vault_id, level, subject_id, protocol_id, definition_id,
           source, aggregation, kind, number, modifier, text, n, details)
         VALUES (?, ?, ?, ?, ?, 'computed', 'arithmetic mean', 'number', ?, NULL, NULL, 2, '{}')`,
      ).run(...added)
      db.prepare(
        'INSERT INTO readout_subjects (vault_id, level, subject_id, protocol_id) VALUES (?, ?, ?, ?)',
      ).run(...added.slice(0, 4))
      const now = [
        ...aggregates.filter((aggregate) => !gone(filled)(aggregate) && !gone(later)(aggregate)),
        added,
      ]

      await backfill(db)
      expect(keptOf(db)).toEqual(expectedOf(now))
    } finally {
      db.close()
    }
  })

  it('makes the two indexes in transactions of their own, readers answering the same between', () => {
    const aggregates = aggregatesOf()
    const db = upgradedCache(aggregates)
    try {
      const before = tablesOf(db)
      const { fill, finish } = cacheBackfills[9]!(db)
      fill(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
      // The first finish counts and makes the index of values; the second, that of aggregates.
      expect(db.transaction(() => finish!())()).toBe(false)
      expect(indexNames(db)).toEqual([
        'readout_aggregates_by_subject',
        'readout_aggregates_by_value',
        'readout_values_by_batch',
        'readout_values_by_cell',
        'readout_values_by_molecule',
        // Step 15's, made at once: these caches hold aggregates but no readout rows.
        'readout_values_for_curves',
      ])
      expect(keptOf(db)).toEqual(expectedOf(aggregates))
      expect(tablesOf(db)).toEqual(before)
      expect(db.transaction(() => finish!())()).toBe(true)
      expect(indexNames(db)).toContain('readout_aggregates_by_cell')
      expect(indexNames(db)).not.toContain('readout_aggregates_by_value')
      expect(tablesOf(db)).toEqual(before)
    } finally {
      db.close()
    }
  })

  it('does everything at once in a cache without readout values or aggregates', () => {
    const db = upgradedCache([])
    try {
      expect(db.prepare('SELECT count(*) FROM cache_backfills WHERE step = 9').pluck().get()).toBe(
        0,
      )
      expect(indexNames(db)).toContain('readout_aggregates_by_cell')
      expect(indexNames(db)).toContain('readout_values_by_cell')
    } finally {
      db.close()
    }
  })
})
