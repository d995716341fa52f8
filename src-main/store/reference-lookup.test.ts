import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { moleculeRecords } from '../../test/store/fixtures/molecule-records.ts'
import { ChemWorkerPool } from '../chem/worker-pool.ts'
import { VaultChemistry } from '../services/vault-chemistry.ts'
import { silentLogger } from '../shared/logger.ts'
import { ReferenceLookup } from './reference-lookup.ts'
import { VaultCache } from './vault-cache.ts'

let dir: string
let lookup: ReferenceLookup
const molecules = moleculeRecords(40)
const batchOf = (index: number, batch = 0) =>
  (molecules[index]!.batches as { id: number; molecule_batch_identifier: string }[])[batch]!

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-reference-lookup-'))
  const file = path.join(dir, 'cache.db')
  const { cache } = VaultCache.open(file)
  cache.applyPage('molecules', 1, [
    ...molecules,
    { ...moleculeRecords(1, 700)[0], name: 'Twin' },
    { ...moleculeRecords(1, 701)[0], name: 'twin', synonyms: ['shared code'] },
    { ...moleculeRecords(1, 702)[0], name: 'Other', synonyms: ['Shared Code'] },
    {
      ...moleculeRecords(1, 703)[0],
      batches: [
        { id: 90_001, name: 'Lot 7', molecule_batch_identifier: 'VD-0000703-001' },
        { id: 90_002, name: 'lot 7', molecule_batch_identifier: 'VD-0000703-002' },
      ],
    },
  ])
  cache.applyPage('molecules', 2, [
    { ...moleculeRecords(1, 900)[0], name: String(molecules[0]!.name) },
  ])
  cache.applyPage('protocols', 1, [
    { id: 3, name: 'Solubility', readout_definitions: [{ id: 31, name: 'Solubility' }] },
    {
      id: 4,
      name: 'Kinase',
      readout_definitions: [
        { id: 41, name: 'IC50' },
        { id: 42, name: 'Hill' },
      ],
    },
  ])
  cache.applyPage('mapping_templates', 1, [
    { id: 8, name: 'Plate reader' },
    { id: 9, name: 'plate reader', header_mappings: [] },
  ])
  await cache.close()
  lookup = ReferenceLookup.open(file)
})

afterAll(() => {
  lookup.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

describe('ReferenceLookup', () => {
  it('finds molecules by name without case, within one vault, and says which names are ambiguous', () => {
    const name = String(molecules[3]!.name)
    const found = lookup.lookUp(1, 'molecule-name', [
      name.toUpperCase(),
      ` ${name} `,
      'twin',
      'Nobody',
      '',
    ])
    expect(Object.fromEntries(found)).toEqual({
      [name.toUpperCase()]: { count: 1, ids: [] },
      [name]: { count: 1, ids: [] },
      twin: { count: 2, ids: expect.arrayContaining([700, 701]) },
      Nobody: { count: 0, ids: [] },
    })
    // The same name in vault 2 is another vault's business.
    const first = String(molecules[0]!.name)
    expect(lookup.lookUp(1, 'molecule-name', [first]).get(first)).toEqual({ count: 1, ids: [] })
  })

  it('finds batches by identifier or name', () => {
    const found = lookup.lookUp(1, 'batch-name', [
      batchOf(5).molecule_batch_identifier.toLowerCase(),
      batchOf(6, 1).molecule_batch_identifier,
      'VD-9999999-001',
    ])
    expect([...found.values()].map((match) => match.count)).toEqual([1, 1, 0])
    // Named by its name too; one batch named both ways counts once.
    expect(Object.fromEntries(lookup.lookUp(1, 'batch-name', ['LOT 7', 'VD-0000703-001']))).toEqual(
      {
        'LOT 7': { count: 2, ids: [90_001, 90_002] },
        'VD-0000703-001': { count: 1, ids: [] },
      },
    )
  })

  it('finds molecules by synonym through the search index, exactly and without case', () => {
    const found = lookup.lookUp(1, 'molecule-synonym', [
      'chembl100007',
      'shared code',
      'shared',
      'VD-0000012',
    ])
    expect(Object.fromEntries(found)).toEqual({
      chembl100007: { count: 1, ids: [] },
      'shared code': { count: 2, ids: expect.arrayContaining([701, 702]) },
      // A word of a synonym is not the synonym.
      shared: { count: 0, ids: [] },
      'VD-0000012': { count: 1, ids: [] },
    })
  })

  it('looks 10,000 values up in one go', () => {
    const values = Array.from({ length: 10_000 }, (_, index) => `Missing ${index}`)
    values[9_999] = String(molecules[9]!.name)
    const found = lookup.lookUp(1, 'molecule-name', values)
    expect(found.size).toBe(10_000)
    expect(found.get(String(molecules[9]!.name))).toEqual({ count: 1, ids: [] })
    expect(found.get('Missing 0')).toEqual({ count: 0, ids: [] })
  })

  it('reads templates by id or name, and protocols by id or by one of their readouts', () => {
    expect(lookup.mappingTemplate(1, 8)).toMatchObject({ id: 8 })
    expect(lookup.mappingTemplate(1, 'plate reader')).toMatchObject({ id: 9 })
    expect(lookup.mappingTemplate(1, 'PLATE READER')).toMatchObject({ id: 8 })
    expect(lookup.mappingTemplate(1, 'Nothing')).toBeNull()
    expect(lookup.mappingTemplate(2, 8)).toBeNull()
    expect(lookup.protocol(1, 4)).toMatchObject({ name: 'Kinase' })
    expect(lookup.protocolWithReadout(1, 42)).toMatchObject({ id: 4 })
    expect(lookup.protocolWithReadout(1, 99)).toBeNull()
  })
})

describe('ReferenceLookup.storedStructures', () => {
  /** A molfile of ethanol's heavy atoms, its first line (the name) empty as RDKit writes them. */
  const molfile = [
    '',
    '  handmade',
    '',
    '  3  2  0  0  0  0  0  0  0  0999 V2000',
    '    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0',
    '    1.2990    0.7500    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0',
    '    2.5981    0.0000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0',
    '  1  2  1  0',
    '  2  3  1  0',
    'M  END',
    '',
  ].join('\n')
  const [plain, other, rewritten] = moleculeRecords(3, 300).map((record, index) => ({
    ...record,
    smiles: ['CCOC(=O)c1ccccc1', 'Oc1ccc(Cl)cc1', 'CN(C)CCO'][index],
  }))
  const smilesOf = (record: Record<string, unknown> | undefined) => String(record!.smiles)
  const badValence = 'C(C)(C)(C)(C)C'
  const stereo = 'C[C@H](O)F |&1:1|'
  const spaced = 'C[C@@H](O)Cl |&1:1|'
  const vaultTwo = { ...moleculeRecords(1, 400)[0]!, smiles: 'c1ccc2ccccc2c1' }

  let file: string
  let cache: VaultCache
  let pool: ChemWorkerPool
  let stored: ReferenceLookup

  /** Indexes a vault's structures as the app does (ingest in the chemistry workers). */
  async function index(vaultId: number): Promise<void> {
    const chemistry = new VaultChemistry({
      connectionId: 'c1',
      vaultId,
      cache,
      pool,
      log: silentLogger,
      onProgress: () => {},
    })
    try {
      await chemistry.ingest({ details: false })
    } finally {
      chemistry.close()
    }
  }

  beforeAll(async () => {
    file = path.join(dir, 'structures.db')
    cache = VaultCache.open(file).cache
    pool = new ChemWorkerPool({ size: 1 })
    cache.applyPage('molecules', 1, [
      plain,
      other,
      rewritten,
      { ...moleculeRecords(1, 310)[0], smiles: badValence },
      // The CXSMILES is the structure the index reads, not the SMILES beside it.
      { ...moleculeRecords(1, 311)[0], smiles: 'CC(O)F', cxsmiles: `${stereo}\n` },
      // RDKit reads no CXSMILES after a space: the index found it unreadable.
      { ...moleculeRecords(1, 313)[0], smiles: undefined, cxsmiles: ` ${spaced}` },
      { ...moleculeRecords(1, 312)[0], smiles: undefined, molfile },
    ])
    cache.applyPage('molecules', 2, [vaultTwo])
    await index(1)
    await index(2)
    stored = ReferenceLookup.open(file)
  })

  afterAll(async () => {
    stored.close()
    await cache.close()
    await pool.close()
  })

  it('finds the texts that are a cached structure RDKit read, and no others', () => {
    const unknown = 'CCN'
    expect(
      stored.storedStructures(1, [smilesOf(plain), unknown, smilesOf(other), smilesOf(plain)]),
    ).toEqual(new Set([smilesOf(plain), smilesOf(other)]))
    // Read by the index and found unreadable: the check must parse it to say why.
    expect(stored.storedStructures(1, [badValence])).toEqual(new Set())
    expect(stored.storedStructures(1, [])).toEqual(new Set())
  })

  it('compares texts without surrounding whitespace, but a molfile only without trailing', () => {
    const padded = `\t${stereo} `
    expect(stored.storedStructures(1, [padded, stereo, 'CC(O)F', spaced])).toEqual(
      new Set([padded, stereo]),
    )
    const trailing = `${molfile}\n\n`
    // Without its empty first line, every line of the header moves: another molfile.
    const shifted = molfile.trimStart()
    expect(stored.storedStructures(1, [molfile, trailing, shifted])).toEqual(
      new Set([molfile, trailing]),
    )
  })

  it('looks in one vault only', () => {
    expect(stored.storedStructures(1, [smilesOf(vaultTwo)])).toEqual(new Set())
    expect(stored.storedStructures(2, [smilesOf(vaultTwo), smilesOf(plain)])).toEqual(
      new Set([smilesOf(vaultTwo)]),
    )
  })

  it('keeps the text the index read until the index reads the rewritten molecule', async () => {
    const redrawn = 'OCC(=O)N'
    cache.applyPage('molecules', 1, [{ ...rewritten, smiles: redrawn }])
    expect(stored.storedStructures(1, [smilesOf(rewritten), redrawn])).toEqual(
      new Set([smilesOf(rewritten)]),
    )
    await index(1)
    expect(stored.storedStructures(1, [smilesOf(rewritten), redrawn])).toEqual(new Set([redrawn]))
  })
})
