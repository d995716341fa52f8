import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { moleculeRecords } from './fixtures/molecule-records.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

describe('lists: sorting, paging, filters and counts', () => {
  const temporaryDirectory = useTemporaryDirectory()
  let cache: VaultCache
  const records = moleculeRecords(30)

  beforeEach(() => {
    cache = VaultCache.open(path.join(temporaryDirectory(), 'cache.db')).cache
    cache.applyPage('molecules', 1, records)
    cache.applyPage('molecules', 2, moleculeRecords(4, 100))
  })
  afterEach(() => cache.close())

  it('sorts by name (ignoring case) or another sortable column, and pages stably', () => {
    const byName = records
      .map((record) => String(record.name))
      .sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' }))
    const first = cache.list('molecules', 1, { limit: 10 })
    const second = cache.list('molecules', 1, { limit: 10, offset: 10 })
    expect(first.total).toBe(30)
    expect([...first.records, ...second.records].map((record) => record.name)).toEqual(
      byName.slice(0, 20),
    )

    const newest = cache.list('molecules', 1, { sort: 'modified_at', direction: 'desc', limit: 3 })
    expect(newest.records.map((record) => record.id)).toEqual([30, 29, 28])
    const heaviest = cache.list('molecules', 1, {
      sort: 'molecular_weight',
      direction: 'desc',
      limit: 1,
    })
    expect(heaviest.records[0]!.id).toBe(30)
  })

  it('sorts molecules by log P and readout rows by the date of their run', () => {
    const byLogP = [...records]
      .sort((a, b) => Number(b.log_p) - Number(a.log_p) || Number(b.id) - Number(a.id))
      .slice(0, 5)
      .map((record) => record.id)
    const sorted = cache.list('molecules', 1, { sort: 'log_p', direction: 'desc', limit: 5 })
    expect(sorted.records.map((record) => record.id)).toEqual(byLogP)

    cache.applyPage('readout_rows', 1, [
      { id: 1, run: { id: 7, run_date: '2024-05-02' }, readouts: {} },
      { id: 2, run: { id: 8, run_date: '2023-11-30' }, readouts: {} },
      { id: 3, run_date: '2024-01-15', readouts: {} },
    ])
    const rows = cache.list('readout_rows', 1, { sort: 'run_date' }).records
    expect(rows.map((row) => row.id)).toEqual([2, 3, 1])
  })

  it('filters by indexed columns, projects and vault-defined fields', () => {
    expect(cache.list('molecules', 1, { projectId: 2 }).total).toBe(6)
    expect(cache.list('batches', 1, { projectId: 2 }).total).toBe(
      records
        .filter((record) => (record.projects as { id: number }[])[0]!.id === 2)
        .reduce((sum, record) => sum + (record.batches as unknown[]).length, 0),
    )
    const series = cache.list('molecules', 1, { fields: { Series: 'S7' } })
    expect(series.records.map((record) => record.id)).toEqual([7])
    expect(
      cache
        .list('batches', 1, { fields: { Purity: '91' } })
        .records.every((batch) => (batch.batch_fields as { Purity: number }).Purity === 91),
    ).toBe(true)
    expect(cache.list('batches', 1, { fields: { Purity: '91' } }).total).toBeGreaterThan(0)
    expect(
      cache.list('molecules', 1, { fields: { registration_type: 'CHEMICAL_STRUCTURE' } }).total,
    ).toBe(30)
    expect(cache.list('molecules', 1, { filters: { owner: 'Nobody' } }).total).toBe(0)
    expect(cache.list('molecules', 2).total).toBe(4)
  })

  it('combines text with filters and sorting', () => {
    const page = cache.list('batches', 1, {
      text: 'VD-000001',
      sort: 'identifier',
      direction: 'desc',
      limit: 3,
    })
    expect(page.records.map((batch) => batch.molecule_batch_identifier)).toEqual([
      'VD-0000019-002',
      'VD-0000019-001',
      'VD-0000018-001',
    ])
    expect(page.total).toBe(
      records.slice(9, 19).reduce((sum, record) => sum + (record.batches as unknown[]).length, 0),
    )
  })

  it('refuses sorts and filters the kind does not have, listing the ones it has', () => {
    expect(() => cache.list('molecules', 1, { sort: 'json' })).toThrow(
      /cannot be sorted by "json". Sortable: name, created_at/,
    )
    expect(() => cache.list('molecules', 1, { filters: { 'name; DROP TABLE x': 1 } })).toThrow(
      /cannot be filtered on/,
    )
    expect(() => cache.list('readout_rows', 1, { text: 'x' })).toThrow(
      'readout_rows have no text to search.',
    )
  })

  it('counts every kind per vault', () => {
    expect(cache.counts()).toEqual({
      1: {
        molecules: 30,
        batches: records.reduce((sum, record) => sum + (record.batches as unknown[]).length, 0),
      },
      2: { molecules: 4, batches: 2 + 3 + 1 + 2 },
    })
  })
})
