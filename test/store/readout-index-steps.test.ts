/**
 * The readout value index built in many steps (store/readout-index.ts reads a step's rows, groups
 * and deletions in a few statements and writes many rows per INSERT): two vaults, thousands of
 * rows, replicates across steps, outliers and controls, then rows changed and deleted. Every
 * aggregate is checked against means computed here in plain JavaScript over the rows as sent, and
 * the backlog `complete` reports after each step against the queues counted on another
 * connection.
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { configureCache } from '../../src-main/store/cache-database.ts'
import { ReadoutIndexer } from '../../src-main/store/readout-index.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const protocol = {
  id: 17,
  name: 'Kinase IC50 (ADP-Glo)',
  readout_definitions: [
    { id: 101, name: 'IC50', data_type: 'Number', unit_label: 'uM', aggregation: 'Geometric Mean' },
    { id: 102, name: '% Inhibition', data_type: 'Number', unit_label: '%', aggregation: 'Mean' },
  ],
}

interface Row {
  id: number
  vault: number
  molecule: number | null
  batch: number | null
  control: boolean
  ic50: number
  inhibition: number
  outlier: boolean
}

/** Rows of a vault: replicates of each batch spread over the whole list, so over many steps. */
function rowsOf(vault: number, count: number, molecules: number): Row[] {
  return Array.from({ length: count }, (_, index) => {
    const control = index % 97 === 0
    const molecule = control ? null : 1 + ((index * 7) % molecules)
    return {
      id: index + 1,
      vault,
      molecule,
      batch: molecule === null ? null : molecule * 10 + (index % 2),
      control,
      ic50: Number((0.01 * (1 + ((index * 13) % 400))).toFixed(2)),
      inhibition: (index * 31) % 100,
      outlier: index % 23 === 5,
    }
  })
}

const record = (row: Row) => ({
  id: row.id,
  class: 'readout row',
  type: 'detail row',
  protocol: protocol.id,
  run: { id: 1 + (row.id % 5), run_date: '2026-03-01' },
  batch: row.batch,
  molecule: row.molecule,
  readouts: {
    101: { value: row.ic50, ...(row.outlier ? { outlier: true } : {}) },
    102: { value: row.inhibition },
  },
  ...(row.control ? { control_state: '+', well: 'A11' } : {}),
})

interface Aggregate {
  number: number
  n: number
}

/** Arithmetic and geometric means per batch and molecule, outliers and controls left out. */
function expectedAggregates(rows: readonly Row[]): Map<string, Aggregate> {
  const groups = new Map<string, Row[]>()
  for (const row of rows) {
    if (row.control) continue
    for (const [level, subject] of [
      ['batch', row.batch],
      ['molecule', row.molecule],
    ] as const) {
      const key = `${row.vault}:${level}:${subject}`
      groups.set(key, [...(groups.get(key) ?? []), row])
    }
  }
  const expected = new Map<string, Aggregate>()
  for (const [key, members] of groups) {
    const kept = members.filter((row) => !row.outlier)
    if (kept.length > 0) {
      const logMean = kept.reduce((sum, row) => sum + Math.log(row.ic50), 0) / kept.length
      expected.set(`${key}:101`, { number: Math.exp(logMean), n: kept.length })
    }
    const mean = members.reduce((sum, row) => sum + row.inhibition, 0) / members.length
    expected.set(`${key}:102`, { number: mean, n: members.length })
  }
  return expected
}

describe('the readout value index, built in many steps', () => {
  const temporaryDirectory = useTemporaryDirectory()
  let cache: VaultCache
  let reader: Database.Database
  let writer: Database.Database
  /**
   * Steps far smaller than the writer's and never growing, so that groups and replicates span many
   * of them.
   */
  let indexer: ReadoutIndexer

  beforeEach(() => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    cache = VaultCache.open(file).cache
    for (const vault of [1, 2]) cache.applyPage('protocols', vault, [protocol])
    reader = new Database(file, { readonly: true })
    writer = new Database(file)
    configureCache(writer)
    indexer = new ReadoutIndexer(writer, { rowsPerStep: 250, moleculesPerStep: 20, growth: 1 })
  })
  afterEach(async () => {
    reader.close()
    writer.close()
    await cache.close()
  })

  const storedAggregates = () => {
    const stored = new Map<string, Aggregate>()
    for (const row of reader
      .prepare(
        `SELECT vault_id, level, subject_id, definition_id, number, n FROM readout_aggregates
           WHERE protocol_id = ?`,
      )
      .all(protocol.id) as {
      vault_id: number
      level: string
      subject_id: number
      definition_id: number
      number: number
      n: number
    }[]) {
      stored.set(`${row.vault_id}:${row.level}:${row.subject_id}:${row.definition_id}`, {
        number: row.number,
        n: row.n,
      })
    }
    return stored
  }

  const expectAggregatesOf = (rows: readonly Row[]) => {
    const expected = expectedAggregates(rows)
    const stored = storedAggregates()
    expect([...stored.keys()].sort()).toEqual([...expected.keys()].sort())
    for (const [key, aggregate] of expected) {
      expect(stored.get(key)!.n, key).toBe(aggregate.n)
      expect(stored.get(key)!.number, key).toBeCloseTo(aggregate.number, 9)
    }
    // Each protocol's subjects and their count, kept with the aggregates (cache step 9).
    const subjects = [...new Set([...expected.keys()].map((key) => key.split(':', 3).join(':')))]
    const storedSubjects = (
      reader
        .prepare('SELECT vault_id, level, subject_id FROM readout_subjects WHERE protocol_id = ?')
        .raw()
        .all(protocol.id) as [number, string, number][]
    ).map((row) => row.join(':'))
    expect(storedSubjects.sort()).toEqual(subjects.sort())
    const counts = new Map<string, number>()
    for (const subject of subjects) {
      const group = subject.split(':', 2).join(':')
      counts.set(group, (counts.get(group) ?? 0) + 1)
    }
    const storedCounts = reader
      .prepare(
        `SELECT vault_id, level, subjects FROM readout_subject_counts
           WHERE protocol_id = ? AND subjects > 0`,
      )
      .raw()
      .all(protocol.id) as [number, string, number][]
    expect(
      new Map(storedCounts.map(([vault, level, count]) => [`${vault}:${level}`, count])),
    ).toEqual(counts)
  }

  const queued = () => ({
    rows: reader.prepare('SELECT count(*) FROM readout_index_queue').pluck().get(),
    groups: reader.prepare('SELECT count(*) FROM readout_group_queue').pluck().get(),
  })

  it('aggregates every batch and molecule of two vaults as plain means do', () => {
    const first = rowsOf(1, 2600, 300)
    const second = rowsOf(2, 700, 120)
    for (let start = 0; start < first.length; start += 1000) {
      cache.applyPage('readout_rows', 1, first.slice(start, start + 1000).map(record))
    }
    cache.applyPage('readout_rows', 2, second.map(record))
    const heard: unknown[] = []
    const counted: unknown[] = []
    indexer.complete((backlog) => {
      heard.push(backlog)
      counted.push(queued())
    })
    // Many steps, each reported as the queues stand after it.
    expect(heard.length).toBeGreaterThan(15)
    expect(heard).toEqual(counted)
    expect(heard.at(-1)).toEqual({ rows: 0, groups: 0 })
    const values = reader.prepare('SELECT count(*) FROM readout_values').pluck().get()
    expect(values).toBe((first.length + second.length) * 2)
    expectAggregatesOf([...first, ...second])
  })

  it('follows rows changed and deleted across many groups', () => {
    const rows = rowsOf(1, 1800, 250)
    cache.applyPage('readout_rows', 1, rows.map(record))
    indexer.complete()
    // Every third row an outlier now, with a new value.
    const changed = rows.map((row) =>
      row.id % 3 === 0 ? { ...row, outlier: true, inhibition: row.inhibition + 1 } : row,
    )
    cache.applyPage('readout_rows', 1, changed.filter((row) => row.id % 3 === 0).map(record))
    // Every fifth row deleted, and every row of ten molecules: they leave the protocol.
    const kept = changed.filter((row) => row.id % 5 !== 0 && (row.molecule ?? 0) > 10)
    cache.retainOnly(
      'readout_rows',
      1,
      kept.map((row) => row.id),
    )
    const heard: unknown[] = []
    const counted: unknown[] = []
    indexer.complete((backlog) => {
      heard.push(backlog)
      counted.push(queued())
    })
    expect(heard).toEqual(counted)
    expect(reader.prepare('SELECT count(*) FROM readout_values').pluck().get()).toBe(
      kept.length * 2,
    )
    expectAggregatesOf(kept)
  })

  /**
   * A clock that says each step took `stepMs` (it is read once before and once after a step),
   * so that the sizes steps take follow from it, whatever the machine's speed.
   */
  const steppedClock = () => {
    const clock = { stepMs: 1, reads: 0 }
    return {
      clock,
      now: () => (clock.reads++ % 2 === 0 ? 0 : clock.stepMs),
    }
  }

  it('grows its steps while they are quick and shrinks them when one is slow, to the same index', () => {
    const rows = rowsOf(1, 6000, 300)
    for (let start = 0; start < rows.length; start += 1000) {
      cache.applyPage('readout_rows', 1, rows.slice(start, start + 1000).map(record))
    }
    const { clock, now } = steppedClock()
    const growing = new ReadoutIndexer(writer, {
      rowsPerStep: 100,
      moleculesPerStep: 10,
      growth: 8,
      clock: now,
    })
    const sizes: number[] = []
    const take = () => {
      const done = growing.indexRows()
      if (done > 0) sizes.push(done)
      return done
    }
    // Quick steps double up to eight times the least: 100, 200, 400, 800, 800.
    for (let step = 0; step < 5; step++) take()
    // A slow one halves the next, down to the least at most.
    clock.stepMs = 1000
    for (let step = 0; step < 4; step++) take()
    clock.stepMs = 1
    while (take() > 0);
    expect(sizes.slice(0, 9)).toEqual([100, 200, 400, 800, 800, 800, 400, 200, 100])
    expect(sizes.slice(9, 12)).toEqual([100, 200, 400])
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(rows.length)

    // Aggregate steps grow the same way (molecules per step), and the last takes what is left.
    const groupSizes: number[] = []
    for (;;) {
      const done = growing.aggregate()
      if (done === 0) break
      groupSizes.push(done)
    }
    expect(groupSizes.length).toBeGreaterThan(2)
    expect(groupSizes[1]!).toBeGreaterThan(groupSizes[0]!)
    expect(queued()).toEqual({ rows: 0, groups: 0 })
    expectAggregatesOf(rows)
  })

  it('keeps its steps at the least while each takes longer than its budget', () => {
    const rows = rowsOf(1, 1000, 100)
    cache.applyPage('readout_rows', 1, rows.map(record))
    const { clock, now } = steppedClock()
    clock.stepMs = 1000
    const slow = new ReadoutIndexer(writer, { rowsPerStep: 100, moleculesPerStep: 10, clock: now })
    const sizes: number[] = []
    for (let done = slow.indexRows(); done > 0; done = slow.indexRows()) sizes.push(done)
    expect(sizes).toEqual(Array.from({ length: 10 }, () => 100))
    slow.complete()
    expectAggregatesOf(rows)
  })

  it('refuses step sizes that are not whole numbers of at least 1, naming them', () => {
    expect(() => new ReadoutIndexer(writer, { rowsPerStep: 0 })).toThrow(/not 0/)
    expect(() => new ReadoutIndexer(writer, { moleculesPerStep: 2.5 })).toThrow(/not 2.5/)
    expect(() => new ReadoutIndexer(writer, { growth: -1 })).toThrow(/growth -1/)
  })
})
