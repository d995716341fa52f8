import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { moleculeRecords } from './fixtures/molecule-records.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

describe('sync writes: pages, cursors, overlap and deletions', () => {
  const temporaryDirectory = useTemporaryDirectory()
  let cache: VaultCache | undefined
  afterEach(() => cache?.close())

  function openCache(file = path.join(temporaryDirectory(), 'cache.db')): VaultCache {
    cache?.close()
    cache = VaultCache.open(file).cache
    return cache
  }

  it('saves the cursor with the rows, and survives closing and reopening', () => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    const store = openCache(file)
    store.applyPage('molecules', 1, moleculeRecords(3), {
      cursor: { modifiedAfter: '2024-01-01T00:02:00Z', offset: 3 },
    })
    const reopened = openCache(file)
    expect(reopened.cursor('molecules', 1)).toEqual({
      modifiedAfter: '2024-01-01T00:02:00Z',
      offset: 3,
    })
    expect(reopened.cursor('molecules', 2)).toBeNull()
    expect(reopened.list('molecules', 1).total).toBe(3)
  })

  it('commits neither rows nor cursor when the page fails (the last committed page stays the resume point)', () => {
    const store = openCache()
    store.applyPage('molecules', 1, moleculeRecords(2), { cursor: 'page-1' })
    expect(() =>
      store.applyPage('molecules', 1, moleculeRecords(2, 3), { cursor: { size: 10n } }),
    ).toThrow()
    expect(store.cursor('molecules', 1)).toBe('page-1')
    expect(store.list('molecules', 1).total).toBe(2)
    expect(store.search('VD-0000003').hits).toEqual([])
  })

  it('keeps cursors apart by vault, kind and scope', () => {
    const store = openCache()
    store.applyPage('readout_rows', 1, [], { cursor: 'protocol 5', scope: 'protocol:5' })
    store.applyPage('readout_rows', 1, [], { cursor: 'protocol 6', scope: 'protocol:6' })
    store.applyPage('readout_rows', 2, [], { cursor: 'vault 2' })
    expect(store.cursor('readout_rows', 1, 'protocol:5')).toBe('protocol 5')
    expect(store.cursor('readout_rows', 1, 'protocol:6')).toBe('protocol 6')
    expect(store.cursor('readout_rows', 1)).toBeNull()
    expect(store.cursor('readout_rows', 2)).toBe('vault 2')
    store.clearCursor('readout_rows', 1, 'protocol:5')
    expect(store.cursor('readout_rows', 1, 'protocol:5')).toBeNull()
  })

  it('replays the one-second overlap of an incremental sync without duplicates', () => {
    const store = openCache()
    // First sync: three molecules, the last two modified in the same second.
    const [first, second, third] = moleculeRecords(3)
    second!.modified_at = third!.modified_at = '2024-05-01T12:00:07Z'
    store.applyPage('molecules', 1, [first, second, third], {
      cursor: { modifiedAfter: '2024-05-01T12:00:07Z' },
    })
    // Next sync asks modified_after cursor - 1 s: the same two come again, one of them changed,
    // plus a molecule modified later in that same second.
    const changed = { ...third!, name: 'Renamed', modified_at: '2024-05-01T12:00:07.600Z' }
    const fourth = { ...moleculeRecords(1, 4)[0]!, modified_at: '2024-05-01T12:00:07Z' }
    const applied = store.applyPage('molecules', 1, [second, changed, fourth], {
      cursor: { modifiedAfter: '2024-05-01T12:00:07Z' },
    })

    expect(applied.stored).toBe(3)
    expect(store.counts()[1]).toEqual({ molecules: 4, batches: 2 + 3 + 1 + 2 })
    expect(store.get('molecules', 1, 3)).toEqual(changed)
    expect(store.search('Renamed').hits.map((hit) => hit.id)).toEqual([3])
    expect(store.list('molecules', 1, { projectId: 4 }).total).toBe(1)
  })

  it('tells cached records from new ones by vault and id, in pages above, below or across them', () => {
    const store = openCache()
    const renamed = (id: number, name: string) => ({ ...moleculeRecords(1, id)[0]!, name })
    // Molecule n of the fixture has 1 + n % 3 batches.
    const batchesOf = (...ids: number[]) => ids.reduce((sum, id) => sum + 1 + (id % 3), 0)
    store.applyPage('molecules', 1, moleculeRecords(3))
    // The same ids in another vault are other records.
    store.applyPage('molecules', 2, moleculeRecords(2))
    expect(store.counts()).toMatchObject({
      1: { molecules: 3, batches: batchesOf(1, 2, 3) },
      2: { molecules: 2, batches: batchesOf(1, 2) },
    })
    // A page across the highest cached id: molecule 2 is replaced, not stored twice.
    store.applyPage('molecules', 1, [renamed(5, 'Five'), renamed(2, 'Two again')])
    expect(store.counts()[1]).toEqual({ molecules: 4, batches: batchesOf(1, 2, 3, 5) })
    expect(store.get('molecules', 1, 2)?.name).toBe('Two again')
    expect(store.search('again').hits.map((hit) => hit.id)).toEqual([2])
    // A page wholly above it, and one wholly below it.
    store.applyPage('molecules', 1, moleculeRecords(2, 6))
    store.applyPage('molecules', 1, [renamed(1, 'One again')])
    expect(store.counts()[1]).toEqual({ molecules: 6, batches: batchesOf(1, 2, 3, 5, 6, 7) })
    expect(store.get('molecules', 1, 1)?.name).toBe('One again')
    expect(store.get('molecules', 2, 1)?.name).not.toBe('One again')
    expect(store.counts()[2]).toEqual({ molecules: 2, batches: batchesOf(1, 2) })
  })

  it('stores a molecule listed twice in a page as its last occurrence, batches included', () => {
    const store = openCache()
    const [molecule] = moleculeRecords(1, 2) // batches 20, 21, 22
    const batches = molecule!.batches as Record<string, unknown>[]
    const earlier = { ...molecule!, name: 'Earlier', batches: [batches[0], { id: 'bad' }] }
    const later = { ...molecule!, name: 'Later', batches: [batches[1], batches[2]] }
    const applied = store.applyPage('molecules', 1, [earlier, later])
    expect(applied.rejected).toEqual([])
    expect(store.get('molecules', 1, 2)?.name).toBe('Later')
    const stored = store.list('batches', 1, { filters: { molecule_id: 2 }, sort: 'id' })
    expect(stored.records.map((batch) => batch.id)).toEqual([21, 22])
    expect(store.get('batches', 1, 22)).toEqual(batches[2])
    expect(store.list('batches', 1, { projectId: 3 }).total).toBe(2)
  })

  it('stores the readable records of a page and names the ones it cannot read', () => {
    const store = openCache()
    const [good] = moleculeRecords(1)
    const applied = store.applyPage('molecules', 1, [good, { name: 'no id' }, 'junk', { id: 'x1' }])
    expect(applied.stored).toBe(1)
    expect(applied.rejected).toEqual([
      { index: 1, reason: 'record 1 has no integer id (id: undefined)' },
      { index: 2, reason: 'record 2 is not an object ("junk")' },
      { index: 3, reason: 'record 3 has no integer id (id: "x1")' },
    ])
  })

  it('refuses unknown kinds, bad vault ids and parents where they do not apply, clearly', () => {
    const store = openCache()
    expect(() => store.applyPage('widgets', 1, [])).toThrow(/Unknown record kind "widgets"/)
    expect(() => store.applyPage('molecules', 'one', [])).toThrow('Not a vault id: "one".')
    expect(() => store.applyPage('molecules', 1, [], { parentId: 3 })).toThrow(
      /molecules are not listed under a parent/,
    )
    expect(() => store.applyPage('molecules', 1, {} as unknown as unknown[])).toThrow(
      'A page of molecules must be an array of records.',
    )
  })

  it('retainOnly deletes what the server no longer lists, with its search entries and links', () => {
    const store = openCache()
    store.applyPage('molecules', 1, moleculeRecords(5))
    store.applyPage('molecules', 2, moleculeRecords(2))
    const deleted = store.retainOnly('molecules', 1, [1, '3', 5])

    expect(deleted).toBe(2)
    expect(store.list('molecules', 1).records.map((molecule) => molecule.id)).toEqual(
      expect.arrayContaining([1, 3, 5]),
    )
    expect(store.counts()[1]).toEqual({ molecules: 3, batches: 2 + 1 + 3 })
    expect(store.counts()[2]).toEqual({ molecules: 2, batches: 5 })
    expect(store.get('batches', 1, 20)).toBeNull()
    expect(store.search('VD-0000002', { vaultId: 1 }).hits).toEqual([])
    expect(store.search('VD-0000002', { vaultId: 2 }).hits).toHaveLength(1)
    expect(store.list('molecules', 1, { projectId: 3 }).total).toBe(0)
    expect(() => store.retainOnly('molecules', 1, [1, 'two'])).toThrow(/entry 1 of the id list/)
    expect(store.counts()[1]?.molecules).toBe(3)
  })

  it('retainOnly under a parent leaves the records of other parents alone', () => {
    const store = openCache()
    store.applyPage('dose_response_calculations', 1, [{ id: 1 }, { id: 2 }], { parentId: 10 })
    store.applyPage('dose_response_calculations', 1, [{ id: 3 }], { parentId: 11 })
    expect(store.retainOnly('dose_response_calculations', 1, [1], { parentId: 10 })).toBe(1)
    expect(
      store
        .list('dose_response_calculations', 1, { sort: 'id' })
        .records.map((record) => record.id),
    ).toEqual([1, 3])
    expect(
      store.list('dose_response_calculations', 1, { filters: { protocol_id: 11 } }).total,
    ).toBe(1)
  })

  it('drops batches that vanished from a molecule, and follows a batch moved to another molecule', () => {
    const store = openCache()
    const [first, second] = moleculeRecords(2, 2) // molecule 2 has batches 20, 21, 22; 3 has 30
    store.applyPage('molecules', 1, [first, second])
    const batches = first!.batches as Record<string, unknown>[]
    const moved = batches[2]!
    store.applyPage('molecules', 1, [
      { ...first!, batches: [batches[0]] },
      { ...second!, batches: [...(second!.batches as unknown[]), moved] },
    ])
    expect(
      store.list('batches', 1, { filters: { molecule_id: 2 } }).records.map((b) => b.id),
    ).toEqual([20])
    const ofThird = store.list('batches', 1, { filters: { molecule_id: 3 }, sort: 'id' })
    expect(ofThird.records.map((b) => b.id)).toEqual([22, 30])
    expect(store.get('batches', 1, 21)).toBeNull()
    expect(store.get('batches', 1, 22)).toEqual(moved)
  })

  it('forgets a vault that left the vault list with its records, search, cursors and last sync', () => {
    const store = openCache()
    store.replaceVaults([
      { id: 1, name: 'Chemistry' },
      { id: 2, name: 'Biology' },
    ])
    store.applyPage('molecules', 1, moleculeRecords(2), { cursor: 'vault 1' })
    store.applyPage('molecules', 2, moleculeRecords(3, 10), { cursor: 'vault 2' })
    store.recordSync(1)
    store.recordSync(2)

    store.replaceVaults([{ id: 1, name: 'Chemistry' }])
    expect(store.counts()[2]).toBeUndefined()
    expect(store.counts()[1]).toEqual({ molecules: 2, batches: 2 + 3 })
    expect(store.search('VD-0000010').hits).toEqual([])
    expect(store.search('Biology').hits).toEqual([])
    expect(store.cursor('molecules', 2)).toBeNull()
    expect(store.cursor('molecules', 1)).toBe('vault 1')
    expect(store.lastSyncs().map((sync) => sync.vaultId)).toEqual([1])
  })

  it('lets a record keep members its new listing lacks (a run keeps its plate statistics)', () => {
    const store = openCache()
    const statistics = [{ plate: 3, z_prime: 0.71 }]
    store.applyPage('runs', 1, [{ id: 5, run_date: '2024-01-01', plate_statistics: statistics }])
    store.applyPage('runs', 1, [{ id: 5, run_date: '2024-01-02' }], { keep: ['plate_statistics'] })
    expect(store.get('runs', 1, 5)).toEqual({
      id: 5,
      run_date: '2024-01-02',
      plate_statistics: statistics,
    })
    store.applyPage('runs', 1, [{ id: 5, run_date: '2024-01-03' }])
    expect(store.get('runs', 1, 5)).toEqual({ id: 5, run_date: '2024-01-03' })
  })

  it('records the last sync of each vault', () => {
    const store = openCache()
    store.recordSync(2, '2024-06-01T10:00:00.000Z')
    store.recordSync(1, '2024-06-01T09:00:00.000Z')
    store.recordSync(2, '2024-06-02T10:00:00.000Z')
    expect(store.lastSyncs()).toEqual([
      { vaultId: 1, lastSyncAt: '2024-06-01T09:00:00.000Z' },
      { vaultId: 2, lastSyncAt: '2024-06-02T10:00:00.000Z' },
    ])
  })

  it('composes several pages into one transaction for sync', () => {
    const store = openCache()
    expect(() =>
      store.transaction(() => {
        store.applyPage('projects', 1, [{ id: 1, name: 'P' }], { cursor: 1 })
        store.applyPage('molecules', 1, moleculeRecords(1), { cursor: 1 })
        throw new Error('network lost')
      }),
    ).toThrow('network lost')
    expect(store.counts()).toEqual({})
    expect(store.cursor('projects', 1)).toBeNull()
  })
})
