import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type Database from 'better-sqlite3'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { AppError } from '../shared/app-error.ts'
import { openDatabase } from '../store/sqlite.ts'
import {
  noveltyKeysMigration,
  structureDetailsMigration,
  structureIndexMigration,
} from '../store/cache-migrations.ts'
import { StructureIndexRepository } from '../store/structure-index-repository.ts'
import { propertiesFromDescriptors } from './molecular-properties.ts'
import { popcount } from './popcount.ts'
import { RDKitToolkit, type Mol } from './rdkit-toolkit.ts'
import { morganFingerprintOf } from './structure-computation.ts'
import { inchiKeyOf } from './structure-details.ts'
import { StructureEngine } from './structure-engine.ts'
import type { StructureSearchProgress } from './structure-search.ts'
import type { StructureSearchRequest } from './structure-search-request.ts'
import type { MoleculeStructure } from './structure-synchronization.ts'
import { ChemWorkerPool } from './worker-pool.ts'

const ethanolMolfile = `
     RDKit          2D

  3  2  0  0  0  0  0  0  0  0999 V2000
    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0
    1.2990    0.7500    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0
    2.5981   -0.0000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0
  1  2  1  0
  2  3  1  0
M  END
`

/** Hand-picked to exercise aromaticity, stereo, salts, rings, and the ways input goes wrong. */
const structures: Record<number, string | null> = {
  1: 'c1ccccc1',
  2: 'Cc1ccccc1',
  3: 'Oc1ccccc1',
  4: 'c1ccncc1',
  5: 'CC(=O)Nc1ccc(O)cc1',
  6: 'CC(=O)Oc1ccccc1C(=O)O',
  7: 'CN1C=NC2=C1C(=O)N(C(=O)N2C)C',
  8: 'C[C@H](N)C(=O)O',
  9: 'C[C@@H](N)C(=O)O',
  10: 'CC(N)C(=O)O',
  11: 'C/C=C/C',
  12: 'C/C=C\\C',
  13: 'CC=CC',
  14: 'FC(F)(F)c1ccccc1',
  15: 'C1CCCCC1',
  16: 'C1CCCC1',
  17: 'OCC',
  18: 'CCO',
  19: '[Na+].[O-]C(=O)c1ccccc1',
  20: 'c1ccc2ccccc2c1',
  21: 'CC(C)Cc1ccc(cc1)[C@@H](C)C(=O)O',
  22: 'O=C(O)c1ccccc1',
  23: 'CC(N)=O',
  24: 'C1=CC=CN=C1',
  25: 'N#Cc1ccccc1',
  26: 'Clc1ccc(Cl)cc1',
  27: ethanolMolfile,
  28: 'CCCCCCCCCCCCCCCCCCCCCCCCCCCCCC(=O)NCCCCCCCCCCCCCCCCCCCCCCCCCCCCC',
  29: 'c1ccc2[nH]ccc2c1',
  30: 'OC1CCCCC1',
  31: 'C1CC',
  32: 'c1cccc1',
  33: null,
}
const unparseableIds = [31, 32, 33]

function molecules(overrides: Record<number, string | null> = {}): MoleculeStructure[] {
  return Object.entries({ ...structures, ...overrides }).map(([id, structure]) => ({
    id: Number(id),
    structure,
  }))
}

let rdkit: RDKitToolkit
let pool: ChemWorkerPool
let db: Database.Database
let repository: StructureIndexRepository
let engine: StructureEngine
let directory: string

beforeAll(async () => {
  rdkit = await RDKitToolkit.load()
  pool = new ChemWorkerPool({ size: 2 })
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-chem-'))
  db = openDatabase(
    path.join(directory, 'cache.db'),
    [structureIndexMigration, structureDetailsMigration, noveltyKeysMigration],
    'test cache',
  )
  repository = new StructureIndexRepository(db, 1)
  engine = await StructureEngine.open({ pool, store: repository })
  await engine.synchronize(molecules())
  await engine.completeDetails()
})

afterAll(async () => {
  engine.close()
  await pool.close()
  db.close()
  fs.rmSync(directory, { recursive: true, force: true })
})

/** The molecules as RDKit parses them here, one by one, as the reference for every search. */
function parsedMolecules(): Map<number, Mol> {
  const parsed = new Map<number, Mol>()
  for (const [id, structure] of Object.entries(structures)) {
    if (structure === null) continue
    const result = rdkit.parseMolecule(structure)
    if (result.ok) parsed.set(Number(id), result.value)
  }
  return parsed
}

function bruteForceSubstructure(query: string, language: 'smiles' | 'smarts'): number[] {
  const parsedQuery = rdkit.parseQuery(query, language)
  if (!parsedQuery.ok) throw new Error(parsedQuery.problem)
  const options = JSON.stringify({ useChirality: true })
  const ids = [...parsedMolecules()]
    .filter(([, mol]) => mol.get_substruct_match(parsedQuery.value.mol, options) !== '{}')
    .map(([id]) => id)
  return ids.sort((a, b) => a - b)
}

function bruteForceTanimoto(query: string): { id: number; score: number }[] {
  const parsedQuery = rdkit.parseMolecule(query)
  if (!parsedQuery.ok) throw new Error(parsedQuery.problem)
  const queryFingerprint = morganFingerprintOf(parsedQuery.value)
  return [...parsedMolecules()].map(([id, mol]) => {
    const fingerprint = morganFingerprintOf(mol)
    const shared = popcount(fingerprint.map((byte, index) => byte & queryFingerprint[index]!))
    return { id, score: shared / (popcount(fingerprint) + popcount(queryFingerprint) - shared) }
  })
}

async function hitIds(request: StructureSearchRequest): Promise<number[]> {
  const result = await engine.search(request)
  return result.hits.map((hit) => hit.id).sort((a, b) => a - b)
}

async function searchError(request: StructureSearchRequest): Promise<AppError> {
  const error = await engine.search(request).then(
    () => null,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(AppError)
  return error as AppError
}

describe('substructure search', () => {
  it.each(['c1ccccc1', 'C(=O)O', 'c1ccncc1', 'C(F)(F)F', 'N', 'C=O', 'CC', 'C1CCCCC1', 'Cl', 'CN'])(
    'finds what RDKit finds molecule by molecule for SMILES %s',
    async (query) => {
      const expected = bruteForceSubstructure(query, 'smiles')
      expect(expected.length).toBeGreaterThan(0)
      expect(
        await hitIds({ structure: { kind: 'substructure', query, language: 'smiles' } }),
      ).toEqual(expected)
    },
  )

  it.each(['[#7]', '[R2]', '[OH]c', 'c:n', '[#6;R]~[#8]', '[Cl,F]', '[$(C=O)]N'])(
    'finds what RDKit finds molecule by molecule for SMARTS %s',
    async (query) => {
      const expected = bruteForceSubstructure(query, 'smarts')
      expect(expected.length).toBeGreaterThan(0)
      expect(await hitIds({ structure: { kind: 'substructure', query } })).toEqual(expected)
    },
  )

  it('verifies with RDKit the molecules that have no molecule graph (a dative bond)', async () => {
    const dative = { id: 90, structure: 'C[NH2]->[Pt+2]' }
    await engine.synchronize([...molecules(), dative])
    try {
      const search = (query: string) =>
        hitIds({ structure: { kind: 'substructure', query, language: 'smiles' } })
      expect(await search('CN')).toEqual([...bruteForceSubstructure('CN', 'smiles'), 90])
      expect(await search('[Pt+2]')).toEqual([90])
    } finally {
      engine.remove([dative.id])
    }
  })

  it('matches the stereo a query specifies, unless told not to', async () => {
    const search = (query: string, useChirality?: boolean) =>
      hitIds({
        structure: {
          kind: 'substructure',
          query,
          language: 'smiles',
          ...(useChirality === undefined ? {} : { useChirality }),
        },
      })
    expect(await search('C/C=C/C')).toEqual([11])
    expect(await search('C/C=C\\C')).toEqual([12])
    expect(await search('C/C=C/C', false)).toEqual([11, 12, 13])
    expect(await search('C[C@H](N)C(=O)O')).toEqual([8])
    expect(await search('C[C@H](N)C(=O)O', false)).toEqual([8, 9, 10])
  })

  it('reads SMARTS-only syntax as SMARTS even where the SMILES parser would accept it', async () => {
    expect(await hitIds({ structure: { kind: 'substructure', query: '[#6]~[#7]' } })).toEqual(
      bruteForceSubstructure('[#6]~[#7]', 'smarts'),
    )
  })

  it('combines with the ids of other filters and with property ranges', async () => {
    const hits = await hitIds({
      structure: { kind: 'substructure', query: 'c1ccccc1' },
      within: [1, 2, 3, 4, 5, 14, 31],
      properties: { heavyAtomCount: { max: 7 } },
    })
    expect(hits).toEqual([1, 2, 3])
  })

  it('streams the first page in index order before the search finishes', async () => {
    const chunked = await StructureEngine.open({
      pool,
      store: repository,
      scanChunkSizes: {
        substructure: { first: 4, largest: 4 },
        similarity: { first: 4, largest: 4 },
      },
    })
    try {
      const updates: StructureSearchProgress[] = []
      const result = await chunked.search(
        { structure: { kind: 'substructure', query: 'C' }, firstPageSize: 3 },
        { onProgress: (update) => updates.push(update) },
      )
      const withPage = updates.filter((update) => update.firstPage)
      expect(withPage).toHaveLength(1)
      expect(withPage[0]!.done).toBeLessThan(withPage[0]!.total)
      expect(withPage[0]!.firstPage).toEqual(result.hits.slice(0, 3))
      expect(updates.at(-1)).toMatchObject({
        done: updates[0]!.total,
        hitCount: result.hits.length,
      })
    } finally {
      chunked.close()
    }
  })

  it('can be cancelled while it runs, and the workers carry on with the next search', async () => {
    const chunked = await StructureEngine.open({
      pool,
      store: repository,
      scanChunkSizes: {
        substructure: { first: 2, largest: 2 },
        similarity: { first: 2, largest: 2 },
      },
    })
    try {
      const controller = new AbortController()
      const error = await chunked
        .search(
          { structure: { kind: 'substructure', query: 'C' } },
          { signal: controller.signal, onProgress: () => controller.abort() },
        )
        .then(
          () => null,
          (thrown: unknown) => thrown,
        )
      expect(error).toMatchObject({ code: 'cancelled' })
      expect(
        await chunked.search({ structure: { kind: 'substructure', query: 'Cl' } }),
      ).toMatchObject({ hits: [{ id: 26 }] })
    } finally {
      chunked.close()
    }
  })
})

describe('exact search', () => {
  it('finds every molecule with the same canonical SMILES, whatever the input notation', async () => {
    expect(await hitIds({ structure: { kind: 'exact', query: 'C(O)C' } })).toEqual([17, 18, 27])
    expect(await hitIds({ structure: { kind: 'exact', query: 'n1ccccc1' } })).toEqual([4, 24])
  })

  it('tells stereoisomers apart', async () => {
    expect(await hitIds({ structure: { kind: 'exact', query: 'N[C@@H](C)C(=O)O' } })).toEqual([8])
    expect(await hitIds({ structure: { kind: 'exact', query: 'NC(C)C(=O)O' } })).toEqual([10])
  })

  it('finds molecules by InChIKey', async () => {
    expect(
      await hitIds({ structure: { kind: 'exact', query: 'LFQSCWFLJHTTHZ-UHFFFAOYSA-N' } }),
    ).toEqual([17, 18, 27])
    expect(
      await hitIds({ structure: { kind: 'exact', query: 'AAAAAAAAAAAAAA-UHFFFAOYSA-N' } }),
    ).toEqual([])
  })
})

describe('similarity search', () => {
  const query = 'Cc1ccccc1O'

  it('returns every molecule at or above the threshold, best first, as RDKit scores them', async () => {
    const expected = bruteForceTanimoto(query)
      .filter((hit) => hit.score >= 0.2)
      .sort((a, b) => b.score - a.score || a.id - b.id)
    expect(expected.length).toBeGreaterThan(2)
    const result = await engine.search({ structure: { kind: 'similarity', query, threshold: 0.2 } })
    expect(result.hits.map((hit) => hit.id)).toEqual(expected.map((hit) => hit.id))
    result.hits.forEach((hit, rank) => expect(hit.score).toBeCloseTo(expected[rank]!.score, 12))
  })

  it('returns the top k, ties broken by index order', async () => {
    const expected = bruteForceTanimoto(query)
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, 4)
    const result = await engine.search({ structure: { kind: 'similarity', query, top: 4 } })
    expect(result.hits).toEqual(
      expected.map(({ id, score }) => ({ id, score: expect.closeTo(score, 12) })),
    )
  })
})

describe('property ranges', () => {
  it('select molecules by computed properties, and unknown values fall outside', async () => {
    const descriptors = [...parsedMolecules()].map(([id, mol]) => ({
      id,
      amw: (JSON.parse(mol.get_descriptors()) as { amw: number }).amw,
    }))
    const expected = descriptors
      .filter(({ amw }) => amw >= 100 && amw <= 180)
      .map(({ id }) => id)
      .sort((a, b) => a - b)
    expect(expected.length).toBeGreaterThan(3)
    expect(await hitIds({ properties: { molecularWeight: { min: 100, max: 180 } } })).toEqual(
      expected,
    )
  })

  it('count rule-of-5 violations', async () => {
    expect(await hitIds({ properties: { ruleOf5Violations: { min: 2 } } })).toEqual([28])
    expect(engine.properties(28)).toMatchObject({ ruleOf5Violations: 2 })
  })

  it('prefer the values the vault gave, also for molecules that cannot be parsed', async () => {
    await engine.synchronize([
      { id: 2, structure: structures[2]!, knownProperties: { logP: 42 } },
      { id: 33, structure: null, knownProperties: { logP: 43 } },
    ])
    await engine.completeDetails()
    expect(await hitIds({ properties: { logP: { min: 40 } } })).toEqual([2, 33])
    expect(engine.properties(2)).toMatchObject({ logP: 42, heavyAtomCount: 7 })
    await engine.synchronize([
      { id: 2, structure: structures[2]! },
      { id: 33, structure: null },
    ])
    expect(await hitIds({ properties: { logP: { min: 40 } } })).toEqual([])
  })
})

describe('bad input', () => {
  it('names what is wrong with an invalid query', async () => {
    expect(
      (
        await searchError({
          structure: { kind: 'substructure', query: 'C1CC', language: 'smiles' },
        })
      ).message,
    ).toMatch(/^Invalid SMILES: .*unclosed ring/)
    expect(
      (
        await searchError({
          structure: { kind: 'substructure', query: '[C;X', language: 'smarts' },
        })
      ).message,
    ).toMatch(/^Invalid SMARTS: syntax error.*position 4/)
    expect(
      (await searchError({ structure: { kind: 'similarity', query: 'c1cccc1' } })).message,
    ).toMatch(/^Invalid SMILES: Can't kekulize/)
    expect((await searchError({ structure: { kind: 'exact', query: 'C(' } })).code).toBe(
      'invalid_argument',
    )
  })

  it('names the member of a request that is out of bounds', async () => {
    const messages = await Promise.all(
      [
        { structure: { kind: 'similarity', query: 'C', threshold: 1.5 } },
        { structure: { kind: 'similarity', query: 'C', top: 0 } },
        { structure: { kind: 'substructure', query: '   ' } },
        { properties: { weight: { min: 1 } } },
        { properties: { logP: { min: 3, max: 1 } } },
      ].map(async (request) => (await searchError(request as StructureSearchRequest)).message),
    )
    expect(messages).toEqual([
      'The similarity threshold must be a number from 0 to 1, not 1.5.',
      'top must be a whole number from 1 to 100000, not 0.',
      'The structure query is empty.',
      expect.stringMatching(/^Unknown property "weight"; known properties: heavyAtomCount/),
      'The range of logP is empty: min 3 is above max 1.',
    ])
  })

  it('flags molecules it cannot parse, keeps them, and counts them when structure search skips them', async () => {
    expect(engine.stats()).toMatchObject({ molecules: 33, unparseable: 3 })
    expect(repository.parseError(31)).toBe("Invalid SMILES: unclosed ring for input: 'C1CC'.")
    expect(repository.parseError(32)).toMatch(/^Invalid SMILES: Can't kekulize mol/)
    expect(repository.parseError(33)).toBe('The vault gives no structure.')
    const everything = await engine.search({ structure: { kind: 'substructure', query: 'C' } })
    expect(everything.skippedUnparseable).toBe(3)
    expect(everything.hits.map((hit) => hit.id)).not.toContain(31)
    const narrowed = await engine.search({
      structure: { kind: 'similarity', query: 'CCO', threshold: 0 },
      within: [17, 31],
    })
    expect(narrowed).toEqual({
      hits: [{ id: 17, score: 1 }],
      skippedUnparseable: 1,
      pendingDetails: 0,
    })
    expect(await engine.depict(31)).toEqual({
      kind: 'unparseable',
      reason: "Invalid SMILES: unclosed ring for input: 'C1CC'.",
    })
  })
})

describe('depictions', () => {
  it('are drawn once per size and cached until the structure changes', async () => {
    const first = await engine.depict(3, { size: 'thumbnail' })
    expect(first).toMatchObject({ kind: 'svg', highlighted: false })
    expect(repository.depiction(3, 'thumbnail')).toBe((first as { svg: string }).svg)
    expect(repository.depiction(3, 'detail')).toBeUndefined()
    await engine.synchronize([{ id: 3, structure: 'Oc1ccccc1C' }])
    expect(repository.depiction(3, 'thumbnail')).toBeUndefined()
    const redrawn = await engine.depict(3, { size: 'thumbnail' })
    expect(redrawn).not.toEqual(first)
    await engine.synchronize([{ id: 3, structure: structures[3]! }])
  })

  it('highlight the atoms a substructure query matches', async () => {
    const plain = await engine.depict(5, { size: 'detail' })
    const highlighted = await engine.depict(5, { size: 'detail', highlight: { query: 'c1ccccc1' } })
    expect(highlighted).toMatchObject({ kind: 'svg', highlighted: true })
    expect(highlighted).not.toEqual(plain)
    expect(await engine.depict(5, { highlight: { query: 'Br' } })).toMatchObject({
      highlighted: false,
    })
  })

  it('draw what is typed into the query box, say how it was read, and name what is wrong', async () => {
    expect(await engine.depictQuery('c1ccccc1C(=O)O')).toEqual({
      svg: expect.stringMatching(/^<\?xml/),
      language: 'smiles',
    })
    expect(await engine.depictQuery('[#6]~[#7]')).toMatchObject({ language: 'smarts' })
    expect(await engine.depictQuery('[OH]c')).toMatchObject({ language: 'smarts' })
    expect(await engine.depictQuery(ethanolMolfile)).toMatchObject({ language: 'molfile' })
    await expect(engine.depictQuery('C1CC', { language: 'smiles' })).rejects.toThrow(
      "Invalid SMILES: unclosed ring for input: 'C1CC'.",
    )
  })
})

describe('incremental updates', () => {
  it('recompute only molecules whose structure changed, and follow additions and removals', async () => {
    expect(await engine.synchronize(molecules())).toEqual({
      received: 33,
      computed: 0,
      unchanged: 33,
      unparseable: 0,
    })
    const changed = await engine.synchronize(molecules({ 1: 'Brc1ccccc1', 34: 'BrCCBr' }))
    expect(changed).toEqual({ received: 34, computed: 2, unchanged: 32, unparseable: 0 })
    expect(await hitIds({ structure: { kind: 'substructure', query: 'Br' } })).toEqual([1, 34])
    engine.remove([34])
    expect(await hitIds({ structure: { kind: 'substructure', query: 'Br' } })).toEqual([1])
    expect(repository.contentHashes([34]).size).toBe(0)
    await engine.synchronize(molecules())
    expect(await hitIds({ structure: { kind: 'substructure', query: 'Br' } })).toEqual([])
  })

  it('can be cancelled, keeping what was done, and resumed by synchronizing again', async () => {
    const extra = Array.from({ length: 300 }, (_, n) => ({
      id: 1000 + n,
      structure: `${'C'.repeat((n % 20) + 1)}O`,
    }))
    const controller = new AbortController()
    const cancelled = await engine
      .synchronize(extra, { signal: controller.signal, onProgress: () => controller.abort() })
      .then(
        () => null,
        (thrown: unknown) => thrown,
      )
    expect(cancelled).toMatchObject({ code: 'cancelled' })
    const kept = engine.stats().molecules - 33
    expect(kept).toBeLessThan(300)
    expect(await engine.synchronize(extra)).toMatchObject({ computed: 300 - kept, unchanged: kept })
    engine.remove(extra.map((molecule) => molecule.id))
    expect(engine.stats().molecules).toBe(33)
  })

  it('reload from the store as they were left', async () => {
    const reloaded = await StructureEngine.open({ pool, store: repository })
    try {
      expect(reloaded.stats()).toMatchObject({ molecules: 33, unparseable: unparseableIds.length })
      const query = { structure: { kind: 'substructure', query: 'c1ccccc1' } } as const
      const ids = async (from: StructureEngine) =>
        (await from.search(query)).hits.map((hit) => hit.id).sort((a, b) => a - b)
      expect(await ids(reloaded)).toEqual(await ids(engine))
      expect(await ids(reloaded)).toEqual(bruteForceSubstructure('c1ccccc1', 'smiles'))
    } finally {
      reloaded.close()
    }
  })
})

describe('InChIKeys and properties, computed after the search index', () => {
  // Molecules that earlier tests changed wait for theirs too.
  beforeEach(() => engine.completeDetails())

  it('leave new molecules searchable at once, and say which searches cannot judge them yet', async () => {
    const structure = 'Oc1ccc(Br)cc1'
    const parsed = rdkit.parseMolecule(structure)
    if (!parsed.ok) throw new Error(parsed.problem)
    const inchiKey = inchiKeyOf(rdkit, parsed.value)!
    const expected = propertiesFromDescriptors(JSON.parse(parsed.value.get_descriptors()))
    parsed.value.delete()

    await engine.synchronize([{ id: 2000, structure }])
    expect(engine.stats().detailsPending).toBe(1)
    expect(await hitIds({ structure: { kind: 'substructure', query: 'Brc1ccccc1' } })).toContain(
      2000,
    )
    expect(
      await engine.search({ structure: { kind: 'exact', query: 'BrC1=CC=C(O)C=C1' } }),
    ).toEqual({ hits: [{ id: 2000 }], skippedUnparseable: 3, pendingDetails: 0 })
    const ranged = await engine.search({ properties: { heavyAtomCount: { min: 1 } } })
    expect(ranged.hits.map((hit) => hit.id)).not.toContain(2000)
    expect(ranged.pendingDetails).toBe(1)
    const narrowed = { properties: { heavyAtomCount: { min: 1 } }, within: [1, 2] }
    expect((await engine.search(narrowed)).pendingDetails).toBe(0)
    expect(await engine.search({ structure: { kind: 'exact', query: inchiKey } })).toMatchObject({
      hits: [],
      pendingDetails: 1,
    })

    expect(await engine.completeDetails()).toEqual({ completed: 1, failed: 0, remaining: 0 })
    expect(engine.properties(2000)).toEqual(expected)
    expect(await engine.search({ structure: { kind: 'exact', query: inchiKey } })).toMatchObject({
      hits: [{ id: 2000 }],
      pendingDetails: 0,
    })
    expect(await hitIds({ properties: { heavyAtomCount: { min: 8, max: 8 } } })).toContain(2000)
    engine.remove([2000])
  })

  it('stop between batches when asked, and resume after a restart from what the store says', async () => {
    const extra = Array.from({ length: 40 }, (_, n) => ({
      id: 3000 + n,
      structure: `${'C'.repeat((n % 12) + 1)}N`,
    }))
    await engine.synchronize(extra)
    let asked = 0
    const stopped = await engine.completeDetails({ shouldStop: () => asked++ > 0 })
    expect(stopped.completed).toBeGreaterThan(0)
    expect(stopped.remaining).toBe(extra.length - stopped.completed)
    expect(stopped.remaining).toBeGreaterThan(0)

    const reloaded = await StructureEngine.open({ pool, store: repository })
    try {
      expect(reloaded.stats().detailsPending).toBe(stopped.remaining)
      expect(await reloaded.completeDetails()).toEqual({
        completed: stopped.remaining,
        failed: 0,
        remaining: 0,
      })
      for (const { id, structure } of extra) {
        expect(reloaded.properties(id)?.heavyAtomCount).toBe(structure.length)
      }
    } finally {
      reloaded.close()
    }
    engine.remove(extra.map((molecule) => molecule.id))
    expect(engine.stats().detailsPending).toBe(0)
  })

  it('keep the InChIKey and properties the vault gave, computing only what it left out', async () => {
    const given = { logP: 1.5, heavyAtomCount: 99 }
    await engine.synchronize([
      { id: 4000, structure: 'CCO', knownInchiKey: 'LFQSCWFLJHTTHZ-UHFFFAOYSA-N' },
      { id: 4001, structure: 'CCN', knownProperties: given },
    ])
    expect(await engine.completeDetails()).toMatchObject({ completed: 2 })
    expect(engine.properties(4000)).toMatchObject({ heavyAtomCount: 3 })
    expect(engine.properties(4001)).toMatchObject({ ...given, hBondDonorCount: 1 })
    expect(
      await hitIds({ structure: { kind: 'exact', query: 'LFQSCWFLJHTTHZ-UHFFFAOYSA-N' } }),
    ).toContain(4000)
    engine.remove([4000, 4001])
  })
})
