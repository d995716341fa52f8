import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { kindSamples } from './fixtures/kind-samples.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const idsOf = (rows: { id: number | null }[] | undefined) =>
  (rows ?? []).map((row) => Number(row.id)).sort((a, b) => a - b)

describe('detail pages follow the links between cached records', () => {
  const temporaryDirectory = useTemporaryDirectory()
  let cache: VaultCache

  beforeEach(() => {
    cache = VaultCache.open(path.join(temporaryDirectory(), 'cache.db')).cache
    const kinds = [
      'molecules',
      'batches',
      'protocols',
      'runs',
      'readout_rows',
      'plates',
      'control_layouts',
      'inventory_samples',
      'eln_entries',
      'files',
    ] as const
    for (const kind of kinds) cache.applyPage(kind, 1, [kindSamples[kind]])
    cache.applyPage('inventory_locations', 1, [
      kindSamples.inventory_locations,
      { id: 23, value: 'Freezer 2', parent_id: 24 },
      { id: 24, value: 'Building A', parent_id: null },
    ])
    cache.applyPage('readout_rows', 1, [
      {
        id: 40,
        type: 'detail row',
        molecule: 101,
        batch: 201,
        run: { id: 41 },
        protocol: 42,
        readouts: {},
      },
    ])
    cache.applyPage('runs', 1, [{ id: 41, run_date: '2024-04-01', protocol: { id: 42 } }])
    cache.applyPage('protocols', 1, [{ id: 42, name: 'Solubility' }])
    cache.applyPage('files', 1, [
      { id: 43, name: 'scheme.png', resource_class: 'molecule', resource_id: 101 },
    ])
  })
  afterEach(() => cache.close())

  it('molecule -> batches -> readout rows -> runs -> protocols, with samples and files', () => {
    const detail = cache.linked('molecules', 1, 101)!
    expect(detail.record.json).toEqual(kindSamples.molecules)
    expect(idsOf(detail.links.batches)).toEqual([201])
    expect(idsOf(detail.links.readout_rows)).toEqual([19, 40])
    expect(idsOf(detail.links.runs)).toEqual([18, 41])
    expect(idsOf(detail.links.protocols)).toEqual([17, 42])
    expect(idsOf(detail.links.inventory_samples)).toEqual([25])
    expect(idsOf(detail.links.files)).toEqual([43])
  })

  it('batch -> its molecule, also when the batch came inside the molecule (no molecule member)', () => {
    const nested = cache.linked('batches', 1, 201)!
    expect(nested.record.json.molecule).toBeUndefined()
    expect(idsOf(nested.links.molecules)).toEqual([101])
    expect(idsOf(nested.links.readout_rows)).toEqual([19, 40])
    cache.applyPage('molecules', 1, [{ id: 102, name: 'Caffeine' }])
    expect(idsOf(cache.linked('batches', 1, 202)!.links.molecules)).toEqual([102])
  })

  it('readout row -> molecule, batch, run, protocol and plate', () => {
    const detail = cache.linked('readout_rows', 1, '19')!
    expect(idsOf(detail.links.molecules)).toEqual([101])
    expect(idsOf(detail.links.batches)).toEqual([201])
    expect(idsOf(detail.links.runs)).toEqual([18])
    expect(idsOf(detail.links.protocols)).toEqual([17])
    expect(idsOf(detail.links.plates)).toEqual([20])
  })

  it('plate -> wells -> samples, control layouts; not its readout rows nor batches', () => {
    const detail = cache.linked('plates', 1, 20)!
    expect(idsOf(detail.links.inventory_samples)).toEqual([25])
    expect(idsOf(detail.links.control_layouts)).toEqual([21])
    // A plate's rows come as columns and its batches as names from `plates.quality`
    // (test/store/plate-queries.test.ts).
    expect(detail.links.readout_rows).toBeUndefined()
    expect(detail.links.batches).toBeUndefined()
  })

  it('sample -> location and the locations above it, and its batch', () => {
    const detail = cache.linked('inventory_samples', 1, 25)!
    expect(detail.links.inventory_locations?.map((location) => location.json.value)).toEqual([
      'Freezer 2 / Shelf A',
      'Freezer 2',
      'Building A',
    ])
    expect(idsOf(detail.links.batches)).toEqual([201])
  })

  it('ELN entry -> its attached and referenced files', () => {
    cache.applyPage('files', 1, [
      { id: 44, name: 'attached.txt', resource_class: 'eln_entry', resource_id: 26 },
    ])
    expect(idsOf(cache.linked('eln_entries', 1, 26)!.links.files)).toEqual([27, 44])
  })

  it('run -> protocol, readout rows, their batches and control layouts; protocol -> runs', () => {
    const run = cache.linked('runs', 1, 18)!
    expect(idsOf(run.links.protocols)).toEqual([17])
    expect(idsOf(run.links.readout_rows)).toEqual([19])
    expect(idsOf(run.links.batches)).toEqual([201])
    expect(idsOf(run.links.control_layouts)).toEqual([21])
    expect(idsOf(cache.linked('protocols', 1, 42)!.links.runs)).toEqual([41])
  })

  it('answers null for a record that is not cached, and links nothing that is missing', () => {
    expect(cache.linked('molecules', 1, 999)).toBeNull()
    expect(cache.linked('molecules', 2, 101)).toBeNull()
    cache.applyPage('readout_rows', 1, [{ id: 50, readouts: {} }])
    expect(cache.linked('readout_rows', 1, 50)!.links).toMatchObject({
      molecules: [],
      batches: [],
      runs: [],
    })
  })
})
