import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { recordKindNames, recordKinds } from '../../src-main/store/record-kinds.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { kindSamples } from './fixtures/kind-samples.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const parentOf: Partial<Record<string, number>> = {
  pick_list_values: 13,
  dose_response_calculations: 17,
  dose_response_series: 33,
}

describe('every record kind round-trips its full JSON', () => {
  const temporaryDirectory = useTemporaryDirectory()
  let cache: VaultCache | undefined
  afterEach(() => cache?.close())

  function openCache(): VaultCache {
    cache = VaultCache.open(path.join(temporaryDirectory(), 'cache.db')).cache
    return cache
  }

  it.each(recordKindNames.filter((kind) => kind !== 'vaults'))(
    '%s: stored as given (unknown members, ids as strings) and listed',
    (kind) => {
      const store = openCache()
      const sample = kindSamples[kind]
      const parentId = parentOf[kind]
      const applied = store.applyPage(kind, '3', [sample], parentId ? { parentId } : {})
      expect(applied).toMatchObject({ kind, vaultId: 3, stored: 1, rejected: [] })

      const id = kind === 'vault_status' ? 3 : Number(sample.id)
      expect(store.get(kind, 3, id)).toEqual(sample)
      expect(store.get(kind, '3', String(id))).toEqual(sample)
      expect(store.get(kind, 4, id)).toBeNull()
      const page = store.list(kind, 3)
      expect(page.total).toBe(1)
      expect(page.records).toEqual([sample])
    },
  )

  it('vaults are kept under vault id 0 (the connection) and replaced as a list', () => {
    const store = openCache()
    store.replaceVaults([kindSamples.vaults, { id: '8', name: 'Biology' }])
    expect(store.list('vaults', 0).records.map((vault) => vault.name)).toEqual([
      'Biology',
      'Discovery',
    ])
    store.replaceVaults([{ id: 8, name: 'Biology (renamed)', extra: 1 }])
    expect(store.list('vaults', 0).records).toEqual([
      { id: 8, name: 'Biology (renamed)', extra: 1 },
    ])
  })

  it('a batch nested in its molecule is served as the API gave it inside the molecule', () => {
    const store = openCache()
    const molecule = kindSamples.molecules
    store.applyPage('molecules', 3, [molecule])
    const nested = (molecule.batches as Record<string, unknown>[])[0]!
    expect(store.get('batches', 3, 201)).toEqual(nested)
    expect(store.list('batches', 3).records).toEqual([nested])
  })

  it('fills the columns lists sort and filter on, tolerating strings for numbers', () => {
    const store = openCache()
    store.applyPage('molecules', 3, [kindSamples.molecules])
    store.applyPage('readout_rows', 3, [kindSamples.readout_rows])
    store.applyPage('inventory_samples', 3, [kindSamples.inventory_samples])
    expect(store.list('molecules', 3, { filters: { owner: 'Ada Lovelace' } }).total).toBe(1)
    expect(store.list('batches', 3, { filters: { molecule_id: 101 } }).total).toBe(1)
    expect(
      store.list('readout_rows', 3, { filters: { batch_id: 201, has_modifier: 1 } }).total,
    ).toBe(1)
    expect(store.list('readout_rows', 3, { filters: { has_outlier: 1 } }).total).toBe(0)
    expect(store.list('readout_rows', 3, { filters: { has_note: 1, well: 'A01' } }).total).toBe(1)
    expect(store.list('inventory_samples', 3, { filters: { location_id: 22 } }).total).toBe(1)
  })

  it('gives every kind a distinct search code that fits the rowid scheme', () => {
    const codes = [...recordKinds.values()].map((kind) => kind.code)
    expect(new Set(codes).size).toBe(codes.length)
    expect(Math.max(...codes)).toBeLessThan(64)
    expect(Math.min(...codes)).toBeGreaterThan(0)
  })
})
