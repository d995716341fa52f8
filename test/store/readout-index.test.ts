/**
 * The readout value index (cache step 7, store/readout-index.ts) on a real cache: every cell a
 * typed value in its definition's unit, and per batch and molecule an aggregate with the
 * definition's aggregation, outliers and control wells left out. Expected aggregates are computed
 * by hand in the comments, not by the code under test.
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCacheDatabase } from '../../src-main/store/cache-database.ts'
import { CacheWrites } from '../../src-main/store/cache-writes.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const vault = 1
const protocol = {
  id: 17,
  name: 'Kinase IC50 (ADP-Glo)',
  readout_definitions: [
    { id: 101, name: 'IC50', data_type: 'Number', unit_label: 'uM', aggregation: 'Geometric Mean' },
    { id: 102, name: '% Inhibition', data_type: 'Number', unit_label: '%', aggregation: 'Mean' },
    { id: 103, name: 'Comment', data_type: 'Text' },
  ],
}

const row = (
  id: number,
  batch: number | null,
  molecule: number | null,
  readouts: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => ({
  id,
  class: 'readout row',
  type: 'detail row',
  protocol: 17,
  run: { id: 5, run_date: '2026-03-01' },
  batch,
  molecule,
  readouts,
  ...extra,
})

const rows = [
  row(1, 201, 101, { 101: { value: 2 }, 102: { value: 80 } }),
  row(2, 201, 101, { 101: { value: 8 }, 102: { value: 60 } }),
  row(3, 201, 101, { 101: { value: 1000, outlier: true }, 102: { value: 70 } }),
  row(4, 202, 101, { 101: { value: '500 nM' }, 102: 90 }),
  row(5, 203, 102, { 101: { value: 30, modifier: '>' }, 102: { value: 'ND' } }),
  row(6, null, null, { 102: { value: 100 } }, { control_state: '+', well: 'A01' }),
  row(7, 203, 102, { 101: '>30', 103: { note: 'precipitated' } }),
]

interface AggregateRow {
  level: string
  subject_id: number
  definition_id: number
  source: string
  kind: string
  number: number | null
  modifier: string | null
  text: string | null
  n: number
}

describe('the readout value index', () => {
  const temporaryDirectory = useTemporaryDirectory()
  let cache: VaultCache
  let file: string
  let reader: Database.Database

  beforeEach(() => {
    file = path.join(temporaryDirectory(), 'cache.db')
    cache = VaultCache.open(file).cache
    cache.applyPage('protocols', vault, [protocol])
    cache.applyPage('readout_rows', vault, rows)
    reader = new Database(file, { readonly: true })
  })
  afterEach(async () => {
    reader.close()
    await cache.close()
  })

  const aggregate = (level: string, subject: number, definition: number) =>
    reader
      .prepare(
        `SELECT level, subject_id, definition_id, source, kind, number, modifier, text, n
           FROM readout_aggregates WHERE vault_id = ? AND level = ? AND subject_id = ?
             AND definition_id = ?`,
      )
      .get(vault, level, subject, definition) as AggregateRow | undefined
  const value = (rowId: number, definition: number) =>
    reader
      .prepare(
        `SELECT kind, number, modifier, text, outlier, control_state, note FROM readout_values
           WHERE vault_id = ? AND row_id = ? AND definition_id = ?`,
      )
      .get(vault, rowId, definition)

  it('reads every cell as a typed value in its definition unit, and says how far it is', () => {
    expect(cache.readoutIndex().backlog()).toEqual({ rows: 7, groups: 0 })
    cache.readoutIndex().complete()
    expect(cache.readoutIndex().backlog()).toEqual({ rows: 0, groups: 0 })
    // 500 nM on a definition kept in µM is 0.5.
    expect(value(4, 101)).toMatchObject({ kind: 'number', number: 0.5, modifier: null })
    expect(value(5, 101)).toMatchObject({ kind: 'number', number: 30, modifier: '>' })
    expect(value(7, 101)).toMatchObject({ kind: 'number', number: 30, modifier: '>' })
    expect(value(5, 102)).toMatchObject({ kind: 'text', number: null, text: 'ND' })
    expect(value(3, 101)).toMatchObject({ number: 1000, outlier: 1 })
    expect(value(6, 102)).toMatchObject({ number: 100, control_state: '+' })
    expect(value(7, 103)).toMatchObject({ kind: 'empty', note: 'precipitated' })
  })

  it('aggregates each batch and molecule by its definition, outliers and controls left out', () => {
    cache.readoutIndex().complete()
    // Batch 201 IC50: geometric mean of 2 and 8 (1000 is an outlier) = sqrt(16) = 4.
    expect(aggregate('batch', 201, 101)).toMatchObject({ number: 4, n: 2, source: 'computed' })
    // Batch 201 % inhibition: (80 + 60 + 70) / 3 = 70.
    expect(aggregate('batch', 201, 102)).toMatchObject({ number: 70, n: 3 })
    // Molecule 101 IC50 over its two batches: geometric mean of 2, 8 and 0.5 = cbrt(8) = 2.
    expect(aggregate('molecule', 101, 101)!.number).toBeCloseTo(2, 12)
    expect(aggregate('molecule', 101, 101)!.n).toBe(3)
    // Molecule 101 % inhibition: (80 + 60 + 70 + 90) / 4 = 75.
    expect(aggregate('molecule', 101, 102)).toMatchObject({ number: 75, n: 4 })
    // Batch 203: two values above 30 make a mean above 30.
    expect(aggregate('batch', 203, 101)).toMatchObject({
      kind: 'number',
      number: 30,
      modifier: '>',
    })
    // "ND" is no number: with no number left, the aggregate shows the text, never a number.
    expect(aggregate('batch', 203, 102)).toMatchObject({ kind: 'text', number: null, text: 'ND' })
    // The positive control belongs to no batch and no molecule.
    const subjects = reader
      .prepare('SELECT DISTINCT subject_id FROM readout_aggregates ORDER BY subject_id')
      .pluck()
      .all()
    expect(subjects).toEqual([101, 102, 201, 202, 203])
  })

  it('keeps with each aggregate only what it left out, and why', () => {
    cache.readoutIndex().complete()
    const details = (level: string, subject: number, definition: number) =>
      JSON.parse(
        reader
          .prepare(
            `SELECT details FROM readout_aggregates WHERE vault_id = ? AND level = ?
               AND subject_id = ? AND definition_id = ?`,
          )
          .pluck()
          .get(vault, level, subject, definition) as string,
      ) as unknown
    // Batch 201's IC50 left its outlier (1000) out; its % inhibition left nothing out.
    expect(details('batch', 201, 101)).toEqual({
      inputs: 'detail rows',
      excluded: { outliers: 1 },
    })
    expect(details('batch', 201, 102)).toEqual({ inputs: 'detail rows' })
    // Batch 203's % inhibition had only "ND": a text, not aggregated.
    expect(details('batch', 203, 102)).toMatchObject({
      inputs: 'detail rows',
      excluded: { text: 1 },
      notAggregated: ['ND'],
    })
  })

  it('reads rows indexed before their protocol came again once it does, as sync stores them', async () => {
    // A sync stores readout rows before protocols: rows indexed in between had no definitions.
    const early = path.join(path.dirname(file), 'early.db')
    const { cache: other } = VaultCache.open(early)
    try {
      other.applyPage('readout_rows', vault, rows)
      other.readoutIndex().complete()
      const read = new Database(early, { readonly: true })
      const cell = () =>
        read
          .prepare(
            'SELECT kind, number FROM readout_values WHERE vault_id = ? AND row_id = 4 AND definition_id = 101',
          )
          .get(vault)
      const ic50 = () =>
        read
          .prepare(
            `SELECT aggregation, number FROM readout_aggregates
               WHERE vault_id = ? AND level = 'batch' AND subject_id = 201 AND definition_id = 101`,
          )
          .get(vault)
      try {
        // Without its definition, "500 nM" is text and IC50 is averaged arithmetically.
        expect(cell()).toEqual({ kind: 'text', number: null })
        expect(ic50()).toMatchObject({ aggregation: 'arithmetic mean' })
        other.applyPage('protocols', vault, [protocol])
        expect(other.readoutIndex().backlog().rows).toBe(rows.length)
        other.readoutIndex().complete()
        expect(cell()).toEqual({ kind: 'number', number: 0.5 })
        // Geometric mean of 2 and 8 (1000 an outlier) = 4.
        expect(ic50()).toEqual({ aggregation: 'geometric mean', number: 4 })
      } finally {
        read.close()
      }
    } finally {
      await other.close()
    }
  })

  it('follows changes: a new outlier, a deleted row, new definitions', () => {
    cache.readoutIndex().complete()
    cache.applyPage('readout_rows', vault, [
      row(2, 201, 101, { 101: { value: 8, outlier: true }, 102: { value: 60 } }),
    ])
    expect(cache.readoutIndex().backlog().rows).toBe(1)
    cache.readoutIndex().complete()
    // Batch 201 IC50 is 2 alone now; molecule 101: geometric mean of 2 and 0.5 = 1.
    expect(aggregate('batch', 201, 101)).toMatchObject({ number: 2, n: 1 })
    expect(aggregate('molecule', 101, 101)!.number).toBeCloseTo(1, 12)

    cache.retainOnly('readout_rows', vault, [1, 2, 3, 5, 6, 7])
    expect(value(4, 101)).toBeUndefined()
    cache.readoutIndex().complete()
    expect(aggregate('batch', 202, 101)).toBeUndefined()
    expect(aggregate('molecule', 101, 101)).toMatchObject({ number: 2, n: 1 })

    // The same rows again change nothing, so nothing is queued.
    cache.applyPage('readout_rows', vault, [rows[0]!])
    expect(cache.readoutIndex().backlog().rows).toBe(0)
    // Definitions kept in nM now: every row of the protocol is read again.
    cache.applyPage('protocols', vault, [
      {
        ...protocol,
        readout_definitions: protocol.readout_definitions.map((definition) =>
          definition.id === 101 ? { ...definition, unit_label: 'nM' } : definition,
        ),
      },
    ])
    expect(cache.readoutIndex().backlog().rows).toBe(6)
    cache.readoutIndex().complete()
    expect(value(1, 101)).toMatchObject({ number: 2 })
  })
})

/**
 * Step 13's counter of readout row writes, raised by the writer once per page, prune or dropped
 * vault since step 16 dropped the triggers that counted each row: every write that can change a
 * search's answer still changes it.
 */
describe('readout row changes counted by the writer', () => {
  const temporaryDirectory = useTemporaryDirectory()

  it('counts each page and prune of readout rows once, and nothing else', () => {
    const { db } = openCacheDatabase(path.join(temporaryDirectory(), 'cache.db'))
    const counter = () =>
      db
        .prepare(`SELECT changes FROM readout_change_counters WHERE topic = 'readout_rows'`)
        .pluck()
        .get() as number
    const inTransaction = <T>(write: () => T): T => db.transaction(write).immediate()
    const rowTriggers = db
      .prepare(`SELECT name FROM sqlite_schema WHERE type = 'trigger' AND sql LIKE '%counters%'`)
      .pluck()
      .all()
    expect(rowTriggers.filter((name) => String(name).startsWith('readout_rows'))).toEqual([])

    const writes = new CacheWrites(db)
    inTransaction(() => writes.applyPage('protocols', vault, [protocol]))
    expect(counter()).toBe(0)
    inTransaction(() => writes.applyPage('readout_rows', vault, rows.slice(0, 3)))
    inTransaction(() => writes.applyPage('readout_rows', vault, rows.slice(3)))
    expect(counter()).toBe(2)
    inTransaction(() => writes.applyPage('readout_rows', vault, []))
    inTransaction(() => writes.applyPage('protocols', vault, [protocol]))
    expect(counter()).toBe(2)
    // A correction of a row already cached.
    inTransaction(() =>
      writes.applyPage('readout_rows', vault, [{ ...rows[0]!, readouts: { 101: { value: 3 } } }]),
    )
    expect(counter()).toBe(3)
    // A prune that deletes rows 6 and 7 counts; one that deletes nothing does not.
    const kept = [1, 2, 3, 4, 5]
    expect(inTransaction(() => writes.retainOnly('readout_rows', vault, kept))).toBe(2)
    expect(counter()).toBe(4)
    expect(inTransaction(() => writes.retainOnly('readout_rows', vault, kept))).toBe(0)
    expect(counter()).toBe(4)
    db.close()
  })
})
