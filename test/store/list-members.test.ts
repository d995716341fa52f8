/**
 * The members of a molecule its list shows besides its columns (batch count, projects), kept in
 * columns of their own (cache step 10): the record writer fills them for new and replaced records,
 * and a whole list read for an export gives, from them alone (the records left unread), the same
 * cells as the list computes from each record, records waiting in the outbox included.
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { viewColumns } from '../../src-main/export/columns.ts'
import type { PendingInput } from '../../src-main/store/pending-rows.ts'
import { listMembers } from '../../src-main/store/record-rows.ts'
import { unparsedJson } from '../../src-main/store/record-queries.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import type { RecordRow } from '../../src-common/records/record-row.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const temporaryDirectory = useTemporaryDirectory('vd-list-members-')
let cache: VaultCache | undefined
afterEach(async () => {
  await cache?.close()
  cache = undefined
})

/** Molecules with every shape of `batches` and `projects` a vault (or a bad one) may give. */
const molecules: Record<string, unknown>[] = [
  {
    id: 1,
    name: 'Two batches',
    batches: [{ id: 11 }, { id: 12 }],
    projects: [{ id: 2, name: 'B' }],
  },
  { id: 2, name: 'No batches', batches: [], projects: [] },
  { id: 3, name: 'No members' },
  { id: 4, name: 'Nulls', batches: null, projects: null },
  { id: 5, name: 'Odd shapes', batches: { id: 13 }, projects: [7, { id: '8' }, { name: 'x' }] },
  { id: 6, name: 'Unnamed project', batches: [{ id: 14 }], projects: [{ id: 9 }] },
  {
    id: 7,
    name: 'Unicode, "quotes"',
    projects: [
      { id: 10, name: 'Proj "é" 化合物\n2' },
      { id: 11, value: 'By value' },
    ],
  },
]

/** What the cache file holds in the members' columns, by molecule, projects parsed. */
function storedMembers(file: string): Record<number, [unknown, unknown]> {
  const db = new Database(file, { readonly: true })
  const rows = db
    .prepare('SELECT id, batch_count, projects_json FROM molecules WHERE vault_id = 1')
    .raw()
    .all() as [number, unknown, string | null][]
  db.close()
  return Object.fromEntries(
    rows.map(([id, count, projects]) => [
      id,
      [count, projects === null ? null : JSON.parse(projects)],
    ]),
  )
}

function writtenMembers(records: Record<string, unknown>[]): Record<number, [unknown, unknown]> {
  const [count, projects] = listMembers.molecules!
  return Object.fromEntries(
    records.map((record) => {
      const text = projects!.read(record)
      return [record.id, [count!.read(record), text === null ? null : JSON.parse(String(text))]]
    }),
  )
}

describe('molecule list members', () => {
  it('are written with each new and replaced record', async () => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    cache = VaultCache.open(file).cache
    cache.applyPage('molecules', 1, molecules)
    expect(storedMembers(file)).toEqual(writtenMembers(molecules))
    expect(storedMembers(file)[1]).toEqual([2, [{ id: 2, name: 'B' }]])
    expect(storedMembers(file)[3]).toEqual([null, null])
    expect(storedMembers(file)[5]).toEqual([null, [7, { id: '8' }, { name: 'x' }]])

    const replaced = molecules.map((record) => ({
      ...record,
      batches: [{ id: 99 }],
      projects: [{ id: 3, name: 'C' }],
    }))
    cache.applyPage('molecules', 1, replaced)
    expect(storedMembers(file)).toEqual(writtenMembers(replaced))
    expect(storedMembers(file)[3]).toEqual([1, [{ id: 3, name: 'C' }]])
  })

  it('give an export the cells the list shows, without reading the records', async () => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    cache = VaultCache.open(file).cache
    cache.applyPage('molecules', 1, molecules)
    const pending = [
      {
        id: 2,
        json: { ...molecules[1]!, batches: [{ id: 21 }], projects: [{ id: 4, name: 'Queued' }] },
        mark: { state: 'queued', itemIds: [1], createdBy: null },
      },
    ] satisfies PendingInput[]
    const columns = viewColumns('molecules', { similarity: false })
    // By key (name, indexed) and by place (log P, no index), with and without the outbox.
    for (const [sort, waiting] of [
      ['name', []],
      ['name', pending],
      ['log_p', []],
      ['log_p', pending],
    ] as const) {
      const reader = cache.read(
        'molecules',
        1,
        { sort, reading: { listMembers: true, deferJson: true } },
        waiting,
      )
      const rows = reader.next(1000)
      expect(rows).toHaveLength(molecules.length)
      const cells = rows.map((row) => columns.values({ row }))
      // The cached rows' records were never parsed: their cells came from the members.
      expect(rows.filter((row) => row.pending === undefined && unparsedJson(row) === null)).toEqual(
        [],
      )
      // The same list read as the window reads it: each cell computed from its whole record.
      const whole = cache.read('molecules', 1, { sort }, waiting).next(1000)
      expect(whole.map((row) => row.id)).toEqual(rows.map((row) => row.id))
      expect(cells).toEqual(whole.map((row) => columns.values({ row })))
    }
    const shown = cache.read('molecules', 1, {}, pending).next(1000)
    const queued = shown.find((row) => row.id === 2)!
    const batchesAt = columns.headers.indexOf('Batches')
    const projectsAt = columns.headers.indexOf('Projects')
    expect([batchesAt, projectsAt].every((index) => index > 0)).toBe(true)
    expect(columns.values({ row: queued })[projectsAt]).toBe('Queued')
    const odd = shown.find((row) => row.id === 5)!
    expect(columns.values({ row: odd }).slice(batchesAt, projectsAt + 1)).toEqual([null, '#7, #8'])
  })

  it('read for an export hold the same ids, columns and records as the window reads', async () => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    cache = VaultCache.open(file).cache
    cache.applyPage('molecules', 1, molecules)
    const pending = [
      {
        id: 3,
        json: { ...molecules[2]!, name: 'No members, renamed' },
        mark: { state: 'queued', itemIds: [1], createdBy: null },
      },
    ] satisfies PendingInput[]
    // By key (name) and by place (log P), with and without the outbox, JSON read and deferred.
    for (const sort of ['name', 'log_p']) {
      for (const waiting of [[], pending]) {
        for (const deferJson of [false, true]) {
          const reading = { listMembers: true, deferJson }
          const reader = cache.read('molecules', 1, { sort, reading }, waiting)
          const rows: RecordRow[] = []
          // Pages of three: a read by key goes on after its last row (`segmentsAfter`).
          for (let page = reader.next(3); page.length > 0; page = reader.next(3)) rows.push(...page)
          const whole = cache.read('molecules', 1, { sort }, waiting).next(1000)
          const question = `${sort}, ${waiting.length} pending, deferJson ${deferJson}`
          expect(
            rows.map((row) => row.id),
            question,
          ).toEqual(whole.map((row) => row.id))
          rows.forEach((row, index) => {
            const window = whole[index]!
            const names = Object.keys(window.columns)
            expect(names.length, question).toBeGreaterThan(3)
            for (const name of names) {
              expect(row.columns[name], `${question}: ${name}`).toEqual(window.columns[name])
            }
            expect(row.kind).toBe('molecules')
            expect(row.pending).toEqual(window.pending)
            const text = unparsedJson(row)
            if (row.pending === undefined) expect(JSON.parse(text!)).toEqual(window.json)
            expect(row.json, question).toEqual(window.json)
            expect(unparsedJson(row), 'parsed once read').toBeNull()
          })
        }
      }
    }
    // A reader that replaces a row's record (a pending form) reads its own from then on.
    const [row] = cache.read('molecules', 1, { reading: { deferJson: true } }).next(1)
    const replaced = { id: row!.id!, name: 'Replaced' }
    row!.json = replaced
    expect(row!.json).toBe(replaced)
    expect(unparsedJson(row!)).toBeNull()
  })

  it('are read from the records while a cache step still fills them in', async () => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    cache = VaultCache.open(file).cache
    cache.applyPage('molecules', 1, molecules)
    const columns = viewColumns('molecules', { similarity: false })
    const whole = cache.read('molecules', 1, {}).next(1000)
    // As an upgrade from step 9 leaves them: NULL members, their rows waiting for the backfill.
    const db = new Database(file)
    db.exec('UPDATE molecules SET batch_count = NULL, projects_json = NULL')
    db.exec('INSERT INTO cache_backfills (step, next_row_id, last_row_id) VALUES (10, 1, 1000)')
    db.close()
    const reading = { listMembers: true, deferJson: true }
    const rows = cache.read('molecules', 1, { reading }).next(1000)
    expect(rows.map((row) => columns.values({ row }))).toEqual(
      whole.map((row) => columns.values({ row })),
    )
    expect(
      rows.map((row) => columns.values({ row })[columns.headers.indexOf('Batches')]),
    ).toContain(2)
  })

  it('are read in name order from the index by name alone, no table row read (step 12)', async () => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    cache = VaultCache.open(file).cache
    cache.applyPage('molecules', 1, molecules)
    const prepared: string[] = []
    const original = Database.prototype.prepare
    const prepare = vi.spyOn(Database.prototype, 'prepare').mockImplementation(function (
      this: Database.Database,
      sql: string,
    ) {
      prepared.push(sql)
      return original.call(this, sql)
    })
    try {
      const reader = cache.read('molecules', 1, { reading: { listMembers: true, deferJson: true } })
      // Pages of two: the reads after a key take each segment of `segmentsAfter`.
      let read = 0
      for (let rows = reader.next(2); rows.length > 0; rows = reader.next(2)) read += rows.length
      expect(read).toBe(molecules.length)
    } finally {
      prepare.mockRestore()
    }
    const reads = prepared.filter((sql) => /^\s*SELECT row_id, name AS sort_value/.test(sql))
    expect(reads.length).toBeGreaterThan(1)
    const db = new Database(file, { readonly: true })
    try {
      for (const sql of reads) {
        const params = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map(([, name]) => [name, 1]))
        const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]
        expect(plan.map((step) => step.detail).join('; '), sql).toMatch(
          /^SEARCH molecules USING COVERING INDEX molecules_by_name \(vault_id=\?/,
        )
      }
    } finally {
      db.close()
    }
  })
})
