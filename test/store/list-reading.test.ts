/**
 * Reading whole lists in order (exports, `find`): the pages read by key (`pageAfter`) and the
 * pages of a list reader (`read`) hold exactly the rows of the offset pages the window reads
 * (`page`), in the same order, for every sortable column of a few kinds, both directions, over
 * generated caches full of ties, NULLs, case variants and empty texts, with and without records
 * waiting in the outbox (each comes once, in its pending form).
 */
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RecordRow } from '../../src-common/records/record-row.ts'
import type { PendingInput } from '../../src-main/store/pending-rows.ts'
import { recordKind } from '../../src-main/store/record-kinds.ts'
import type { ListKey, ListOptions } from '../../src-main/store/record-queries.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const vault = 1

/** A small deterministic generator, so that a failing seed can be run again. */
function generator(seed: number): <T>(items: readonly T[]) => T {
  let state = seed * 2654435761 || 1
  return <T>(items: readonly T[]): T => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return items[(state >>> 0) % items.length]!
  }
}

const names = ['Alpha', 'alpha', 'ALPHA', 'beta', 'Beta', 'gamma', null, '', 'Ünïcode', 'zeta']
const numbers = [null, 0, -1, 99.99, 100, 100, 250.5, 1e-7, 12345]
const times = [null, '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z', '2023-06-30T12:00:00Z']
const texts = [null, '', 'A', 'a', 'b', 'CHEMICAL_STRUCTURE', 'NUCLEOTIDE']
const people = [null, 'Ada Lovelace', 'ada lovelace', 'Marie Curie']

function molecules(pick: ReturnType<typeof generator>, count: number): Record<string, unknown>[] {
  let batchId = 1
  return Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    name: pick(names),
    registration_type: pick(texts),
    owner: pick(people),
    formula: pick(texts),
    molecular_weight: pick(numbers),
    log_p: pick(numbers),
    created_at: pick(times),
    modified_at: pick(times),
    projects: [{ id: pick([1, 2]), name: 'Project' }],
    molecule_fields: { Series: pick(['S1', 'S2']) },
    synonyms: [pick(['gamma ray', 'alphabet', 'delta'])],
    batches: Array.from({ length: pick([0, 1, 2]) }, () => ({
      id: batchId++,
      molecule_batch_identifier: pick(['VD-1', 'vd-1', 'VD-2', null, '']),
      owner: pick(people),
      salt_name: pick([null, '', 'HCl', 'hcl']),
      formula_weight: pick(numbers),
      created_at: pick(times),
      modified_at: pick(times),
    })),
  }))
}

function runs(pick: ReturnType<typeof generator>, count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    name: pick(names),
    run_date: pick([null, '2024-01-01', '2023-05-05', '2023-05-05']),
    person: pick(people),
    place: pick(texts),
    protocol: { id: pick([1, 2]) },
    created_at: pick(times),
    modified_at: pick(times),
  }))
}

/** Changes to cached records and records created offline, as the outbox hands them to lists. */
function pendingOf(
  pick: ReturnType<typeof generator>,
  records: readonly Record<string, unknown>[],
  sortable: readonly string[],
): PendingInput[] {
  const mark = { state: 'queued' as const, itemIds: [1], createdBy: null }
  const changed = records.filter((_, index) => index % 9 === 4)
  return [
    ...changed.map((record) => {
      const json: Record<string, unknown> = { ...record, name: pick(names) }
      // A changed value of another sortable column moves the record within that list too.
      const column = pick(sortable.filter((name) => !['id', 'name'].includes(name)))
      json[column] = pick([null, ...numbers, ...texts])
      return { id: record.id as number, json, mark } as PendingInput
    }),
    ...Array.from({ length: 5 }, (_, index) => ({
      id: null,
      json: { id: null, name: pick(names), run_date: pick(times), molecular_weight: pick(numbers) },
      mark: { ...mark, itemIds: [100 + index], createdBy: 100 + index },
    })),
  ]
}

type Row = RecordRow

/** The whole list as the window pages it: by offset, a thousand at a time. */
function offsetPages(
  cache: VaultCache,
  kind: string,
  options: ListOptions,
  pending: readonly PendingInput[],
): { total: number; rows: Row[] } {
  const rows: Row[] = []
  for (let offset = 0; ; offset += 1000) {
    const page = cache.page(kind, vault, { ...options, offset, limit: 1000 }, pending)
    rows.push(...page.rows)
    if (page.rows.length < 1000) return { total: page.total, rows }
  }
}

function keyedPages(
  cache: VaultCache,
  kind: string,
  options: ListOptions,
  pending: readonly PendingInput[],
  limit: number,
): Row[] {
  const rows: Row[] = []
  let after: ListKey | null = null
  for (;;) {
    const page = cache.pageAfter(kind, vault, { ...options, limit }, after, pending)
    rows.push(...page.rows)
    expect(page.rows.length).toBeLessThanOrEqual(limit)
    if (page.next === null) return rows
    after = page.next
  }
}

function readWhole(
  cache: VaultCache,
  kind: string,
  options: ListOptions,
  pending: readonly PendingInput[],
  limit: number,
  between: () => void = () => {},
): { total: number; rows: Row[] } {
  const reader = cache.read(kind, vault, options, pending)
  const rows: Row[] = []
  for (;;) {
    const page = reader.next(limit)
    if (page.length === 0) return { total: reader.total, rows }
    expect(page.length).toBeLessThanOrEqual(limit)
    rows.push(...page)
    between()
  }
}

function placesOf(rows: readonly Row[]): string[] {
  return rows.map((row) => (row.id === null ? `new:${row.pending?.createdBy}` : `id:${row.id}`))
}

describe.each([1, 2, 3])('lists read by key and by reader, seed %i', (seed) => {
  const temporaryDirectory = useTemporaryDirectory()
  const pick = generator(seed)
  const moleculeRecords = molecules(pick, 240)
  const runRecords = runs(pick, 150)
  let cache: VaultCache
  const pendingByKind: Record<string, PendingInput[]> = {}

  beforeAll(() => {
    cache = VaultCache.open(path.join(temporaryDirectory(), 'cache.db')).cache
    cache.applyPage('molecules', vault, moleculeRecords)
    cache.applyPage('runs', vault, runRecords)
    // Another vault's records never show.
    cache.applyPage('molecules', 2, molecules(generator(seed + 100), 30))
    pendingByKind.molecules = pendingOf(pick, moleculeRecords, recordKind('molecules').sortable)
    pendingByKind.runs = pendingOf(pick, runRecords, recordKind('runs').sortable)
    pendingByKind.batches = []
  })
  afterAll(() => cache.close())

  for (const kind of ['molecules', 'batches', 'runs']) {
    for (const sort of recordKind(kind).sortable) {
      for (const direction of ['asc', 'desc'] as const) {
        it(`${kind} by ${sort} ${direction}`, () => {
          const options: ListOptions = { sort, direction }
          for (const pending of [[], pendingByKind[kind]!]) {
            const expected = offsetPages(cache, kind, options, pending)
            expect(expected.rows.length).toBeGreaterThan(100)
            const limit = pick([1, 7, 64, 1000])
            const keyed = keyedPages(cache, kind, options, pending, limit)
            expect(placesOf(keyed)).toEqual(placesOf(expected.rows))
            expect(keyed).toEqual(expected.rows)
            const read = readWhole(cache, kind, options, pending, pick([3, 50, 1000]))
            expect(read.total).toBe(expected.total)
            expect(read.rows).toEqual(expected.rows)
            expect(new Set(placesOf(read.rows)).size).toBe(read.rows.length)
          }
        })
      }
    }
  }

  it('reads searched, filtered and project lists as the window pages them, pending included', () => {
    const questions: [string, ListOptions][] = [
      ['molecules', { text: 'alpha' }],
      ['molecules', { text: 'gamma', sort: 'molecular_weight', direction: 'desc' }],
      ['molecules', { projectId: 2, sort: 'name' }],
      ['molecules', { filters: { owner: 'Marie Curie' }, sort: 'modified_at', direction: 'desc' }],
      ['molecules', { filters: { formula: 'A' }, sort: 'formula' }],
      ['molecules', { fields: { Series: 'S1' }, sort: 'name', direction: 'desc' }],
      ['molecules', { ids: [3, 1, 2, 40, 41, 999], sort: 'log_p' }],
      ['batches', { text: 'alpha', sort: 'identifier', direction: 'desc' }],
      ['runs', { filters: { protocol_id: 1 }, sort: 'run_date' }],
      ['molecules', { text: 'nothing matches this' }],
    ]
    for (const [kind, options] of questions) {
      for (const pending of [[], pendingByKind[kind]!]) {
        const expected = offsetPages(cache, kind, options, pending)
        const read = readWhole(cache, kind, options, pending, pick([1, 9, 1000]))
        expect(read.total, JSON.stringify(options)).toBe(expected.total)
        expect(read.rows, JSON.stringify(options)).toEqual(expected.rows)
        expect(keyedPages(cache, kind, options, pending, 13)).toEqual(expected.rows)
      }
    }
  })

  it('starts a reading at an offset', () => {
    for (const options of [{ sort: 'name' }, { sort: 'log_p', direction: 'desc' as const }]) {
      const pending = pendingByKind.molecules!
      const expected = offsetPages(cache, 'molecules', options, pending)
      for (const offset of [1, 17, expected.total - 1, expected.total, expected.total + 5]) {
        const read = readWhole(cache, 'molecules', { ...options, offset }, pending, 10)
        expect(read.total).toBe(expected.total)
        expect(read.rows).toEqual(expected.rows.slice(offset))
      }
    }
  })

  it('reads on correctly when a window stages other pending records between its pages', () => {
    const pending = pendingByKind.molecules!
    const others = pending.slice(0, 3)
    for (const options of [{ sort: 'name' }, { sort: 'formula', direction: 'desc' as const }]) {
      const expected = offsetPages(cache, 'molecules', options, pending)
      const read = readWhole(cache, 'molecules', options, pending, 25, () => {
        cache.page('molecules', vault, { ...options, limit: 5 }, others)
      })
      expect(read.rows).toEqual(expected.rows)
    }
  })
})

describe('bad questions to a reading by key', () => {
  const temporaryDirectory = useTemporaryDirectory()
  let cache: VaultCache

  beforeAll(() => {
    cache = VaultCache.open(path.join(temporaryDirectory(), 'cache.db')).cache
    cache.applyPage('molecules', vault, molecules(generator(7), 5))
  })
  afterAll(() => cache.close())

  it('refuses an offset, an unknown sort and an unknown kind, saying what is wrong', () => {
    expect(() => cache.pageAfter('molecules', vault, { offset: 10 })).toThrow(
      /starts after a row of the list, not at an offset/,
    )
    expect(() => cache.pageAfter('molecules', vault, { sort: 'json' })).toThrow(
      /cannot be sorted by "json". Sortable: name/,
    )
    expect(() => cache.read('molecules', vault, { sort: 'row_id; DROP TABLE x' })).toThrow(
      /cannot be sorted by/,
    )
    expect(() => cache.read('potions', vault)).toThrow(/Unknown record kind "potions"/)
  })

  it('ends an empty list at once', () => {
    expect(cache.pageAfter('molecules', 99, {}, null)).toEqual({
      kind: 'molecules',
      rows: [],
      next: null,
    })
    const reader = cache.read('molecules', 99)
    expect(reader.total).toBe(0)
    expect(reader.next(10)).toEqual([])
  })
})
