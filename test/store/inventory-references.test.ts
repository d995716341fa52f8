/**
 * The look-ups behind new samples and plates, against a real cache file written by the cache's
 * own writer: batches by id, name and identifier (nested in their molecules, as sync stores
 * them), projects, a location's grid and taken positions, and sample custom fields.
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { planWells, readWellList, referencesOf } from '../../src-common/plates/well-list.ts'
import { InventoryReferences } from '../../src-main/store/inventory-references.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const vaultId = 1
const otherVault = 2

describe('InventoryReferences', () => {
  const temporaryDirectory = useTemporaryDirectory()
  let cache: VaultCache
  let db: Database.Database
  let references: InventoryReferences

  beforeEach(() => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    cache = VaultCache.open(file).cache
    cache.applyPage('molecules', vaultId, [
      {
        id: 101,
        name: 'Aspirin',
        batches: [
          { id: 201, name: '001', molecule_batch_identifier: 'VD-101-001' },
          { id: 202, name: '002', molecule_batch_identifier: 'VD-101-002' },
        ],
      },
      {
        id: 102,
        name: 'Caffeine',
        batches: [{ id: 203, name: '001', molecule_batch_identifier: 'VD-102-001' }],
      },
    ])
    // A batch whose name is another batch's id, and one named like an identifier.
    cache.applyPage('batches', vaultId, [
      { id: 204, name: '201', molecule_batch_identifier: 'VD-103-001', molecule: { id: 103 } },
      { id: 205, name: 'vd-101-002', molecule_batch_identifier: 'VD-104-001', molecule: 104 },
    ])
    cache.applyPage('batches', otherVault, [
      { id: 301, name: 'Lot X', molecule_batch_identifier: 'VD-900-001', molecule: 900 },
    ])
    cache.applyPage('projects', vaultId, [
      { id: 11, name: 'Kinase Inhibitors' },
      { id: 12, name: 'GPCR Ligands' },
    ])
    cache.applyPage('inventory_locations', vaultId, [
      { id: 1, value: 'Freezer A', parent_id: null },
      { id: 3, value: 'Box 1', parent_id: 1, num_rows: 9, num_columns: 9, position_limit: 81 },
      { id: 6, value: 'Shelf 1', parent_id: null },
    ])
    cache.applyPage('inventory_samples', vaultId, [
      { id: 1, batch_id: 201, units: 'mg', location: { id: 3, value: 'Box 1', position: 'A02' } },
      { id: 2, batch_id: 202, units: 'µL', location: { id: 3, value: 'Box 1', position: 'b7' } },
      {
        id: 3,
        batch_id: 203,
        units: 'mg',
        location: { id: 6, value: 'Shelf 1', position: null },
        fields: { Form: 'powder' },
      },
      { id: 4, batch_id: 203, units: 'µL', fields: { Solvent: 'DMSO', Concentration: '10 mM' } },
    ])
    db = new Database(file, { readonly: true })
    references = new InventoryReferences(db)
  })
  afterEach(() => {
    db.close()
    cache.close()
  })

  const ids = (reference: string) =>
    references.batches(vaultId, [reference])[0]!.matches.map((match) => [match.batchId, match.by])

  it('finds a batch by id, by identifier and by name, in any case', () => {
    expect(ids('202')).toEqual([[202, 'id']])
    expect(ids('VD-102-001')).toEqual([[203, 'identifier']])
    expect(ids('vd-102-001')).toEqual([[203, 'identifier']])
    expect(ids('002')).toEqual([[202, 'name']])
  })

  it('lists every batch an ambiguous reference could mean, and nothing of another vault', () => {
    // Two batches are named 001; 201 is one batch's id and another's name.
    expect(ids('001').sort()).toEqual([
      [201, 'name'],
      [203, 'name'],
    ])
    expect(ids('201').sort()).toEqual([
      [201, 'id'],
      [204, 'name'],
    ])
    expect(ids('VD-101-002').sort()).toEqual([
      [202, 'identifier'],
      [205, 'name'],
    ])
    expect(ids('Lot X')).toEqual([])
    expect(ids('301')).toEqual([])
    expect(references.batches(otherVault, ['301'])[0]!.count).toBe(1)
  })

  it('resolves a well list end to end, line by line', () => {
    const reading = readWellList(
      'Well,Batch\nA1,202\nA2,VD-102-001\nA3,001\nA4,nothing\nA5,vd-104-001\n',
      96,
    )
    const plan = planWells(reading, references.batches(vaultId, referencesOf(reading)))
    expect(plan.wells).toEqual([
      { pos: 'A01', batch: 202 },
      { pos: 'A02', batch: 203 },
      { pos: 'A05', batch: 205 },
    ])
    expect(plan.problems.map((problem) => [problem.line, problem.message])).toEqual([
      [4, expect.stringMatching(/^"001" names 2 batches: VD-10[13]-001/)],
      [5, 'No cached batch has the id, name or identifier "nothing".'],
    ])
  })

  it('finds projects by id or name and counts what the cache holds', () => {
    expect(references.projects(vaultId, ['kinase inhibitors', 12, 'Nope'])).toEqual([
      [{ id: 11, name: 'Kinase Inhibitors' }],
      [{ id: 12, name: 'GPCR Ligands' }],
      [],
    ])
    expect(references.count('batches', vaultId)).toBe(5)
    expect(references.count('projects', otherVault)).toBe(0)
  })

  it("reads a location's grid and the positions its cached samples take", () => {
    expect(references.location(vaultId, 3)).toEqual({
      id: 3,
      name: 'Box 1',
      grid: { rows: 9, columns: 9 },
      positionLimit: 81,
      samples: 2,
      taken: ['A02', 'B07'],
    })
    expect(references.location(vaultId, 6)).toMatchObject({ grid: null, samples: 1, taken: [] })
    expect(references.location(vaultId, 99)).toBeNull()
  })

  it('offers the field names cached samples carry, or the inventory field definitions', () => {
    expect(references.sampleFields(vaultId).map((field) => field.name)).toEqual([
      'Concentration',
      'Form',
      'Solvent',
    ])
    cache.applyPage('fields', vaultId, [
      { id: 31, name: 'Series', type: 'MoleculeFieldDefinition', data_type_name: 'Pick List' },
      {
        id: 32,
        name: 'Storage',
        type: 'InventorySampleFieldDefinition',
        data_type_name: 'Pick List',
      },
      { id: 33, name: 'Purity', type: 'InventorySampleFieldDefinition', data_type_name: 'Number' },
    ])
    cache.applyPage('pick_list_values', vaultId, [
      { id: 41, field_id: 32, value: 'Freezer', hidden: false },
      { id: 42, field_id: 32, value: 'Ambient', hidden: false },
      { id: 43, field_id: 32, value: 'Retired', hidden: true },
      { id: 44, field_id: 31, value: 'Ureas', hidden: false },
    ])
    expect(references.sampleFields(vaultId)).toEqual([
      { name: 'Purity', dataType: 'Number', choices: [], source: 'definition' },
      {
        name: 'Storage',
        dataType: 'Pick List',
        choices: ['Ambient', 'Freezer'],
        source: 'definition',
      },
    ])
  })
})
