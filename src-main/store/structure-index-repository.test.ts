import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ParsedStructure } from '../chem/structure-input.ts'
import type { StructureRecord } from '../chem/structure-record.ts'
import { openDatabase } from './sqlite.ts'
import {
  cacheMigrations,
  noveltyKeysMigration,
  structureDetailsMigration,
  structureIndexMigration,
} from './cache-migrations.ts'
import { StructureIndexRepository } from './structure-index-repository.ts'

function parsed(id: number, overrides: Partial<StructureRecord> = {}): StructureRecord {
  return {
    id,
    parseError: null,
    contentHash: `hash-${id}`,
    knownProperties: { logP: 1.5 },
    canonicalSmiles: 'CCO',
    inchiKey: 'LFQSCWFLJHTTHZ-UHFFFAOYSA-N',
    patternFingerprint: new Uint8Array(256).fill(id),
    morganFingerprint: new Uint8Array(256).fill(id + 1),
    pickle: new Uint8Array([1, 2, 3, id]),
    pendingDetails: 0,
    properties: {
      heavyAtomCount: 3,
      aromaticRingCount: 0,
      hBondAcceptorCount: 1,
      hBondDonorCount: 1,
      rotatableBondCount: 0,
      ruleOf5Violations: 0,
      molecularWeight: 46.069,
      exactMass: 46.042,
      logP: -0.0014,
      topologicalPolarSurfaceArea: 20.23,
    },
    ...overrides,
  } as StructureRecord
}

let directory: string
let db: Database.Database
let repository: StructureIndexRepository

beforeEach(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-structure-index-'))
  db = openDatabase(
    path.join(directory, 'cache.db'),
    [structureIndexMigration, structureDetailsMigration, noveltyKeysMigration],
    'test cache',
  )
  repository = new StructureIndexRepository(db, 1)
})

afterEach(() => {
  db.close()
  fs.rmSync(directory, { recursive: true, force: true })
})

describe('StructureIndexRepository', () => {
  it('gives back what it stored, a page at a time in id order', () => {
    const unparseable: StructureRecord = {
      id: 5,
      parseError: 'Invalid SMILES: unclosed ring.',
      contentHash: 'hash-5',
      knownProperties: {},
    }
    const withoutProperties = parsed(9, { properties: null, inchiKey: null })
    repository.save([parsed(7), unparseable, withoutProperties])
    const firstPage = repository.recordsAfter(null, 2)
    expect(firstPage.map((record) => record.id)).toEqual([5, 7])
    expect(firstPage[0]).toEqual(unparseable)
    const restored = firstPage[1]!
    expect({
      ...restored,
      ...(restored.parseError === null
        ? {
            patternFingerprint: new Uint8Array(restored.patternFingerprint),
            morganFingerprint: new Uint8Array(restored.morganFingerprint),
            pickle: new Uint8Array(restored.pickle),
          }
        : {}),
    }).toEqual(parsed(7))
    expect(repository.recordsAfter(7, 2)).toMatchObject([
      { id: 9, properties: null, inchiKey: null },
    ])
    expect(repository.recordsAfter(9, 2)).toEqual([])
  })

  it('stores details computed later, only those computed, and that they are no longer pending', () => {
    const waiting = parsed(1, { properties: null, inchiKey: null, pendingDetails: 3 })
    const givenKey = parsed(2, { properties: null, pendingDetails: 2 })
    repository.save([waiting, givenKey])
    expect(repository.recordsAfter(null, 5)).toMatchObject([
      { id: 1, pendingDetails: 3, inchiKey: null, properties: null },
      { id: 2, pendingDetails: 2 },
    ])
    const properties = (parsed(0) as ParsedStructure).properties!
    repository.saveDetails([
      { id: 1, slot: 0, computed: 1, inchiKey: 'KEY-1', properties: null, parentSmiles: null },
      { id: 2, slot: 1, computed: 2, inchiKey: null, properties, parentSmiles: null },
      { id: 99, slot: 2, computed: 3, inchiKey: 'GONE', properties, parentSmiles: null },
    ])
    expect(repository.recordsAfter(null, 5)).toMatchObject([
      { id: 1, pendingDetails: 2, inchiKey: 'KEY-1', properties: null },
      { id: 2, pendingDetails: 0, inchiKey: 'LFQSCWFLJHTTHZ-UHFFFAOYSA-N', properties },
    ])
    expect(repository.idsByInchiKey('KEY-1')).toEqual([1])
    expect(repository.contentHashes([99]).size).toBe(0)
  })

  it('answers content hashes, parse errors and exact identities', () => {
    repository.save([parsed(1), parsed(2, { canonicalSmiles: 'CCN', inchiKey: 'X' })])
    repository.save([{ id: 3, parseError: 'No.', contentHash: 'h', knownProperties: {} }])
    expect(repository.contentHashes([1, 3, 4])).toEqual(
      new Map([
        [1, 'hash-1'],
        [3, 'h'],
      ]),
    )
    expect(repository.idsByCanonicalSmiles('CCO')).toEqual([1])
    expect(repository.idsByInchiKey('X')).toEqual([2])
    expect(repository.parseError(3)).toBe('No.')
    expect(repository.parseError(1)).toBeNull()
  })

  it('keeps a depiction only while the structure it was drawn from is current', () => {
    repository.save([parsed(1)])
    repository.saveDepiction(1, 'thumbnail', '<svg>1</svg>')
    expect(repository.depiction(1, 'thumbnail')).toBe('<svg>1</svg>')
    expect(repository.depiction(1, 'detail')).toBeUndefined()
    repository.save([parsed(1, { contentHash: 'changed' })])
    expect(repository.depiction(1, 'thumbnail')).toBeUndefined()
    repository.saveDepiction(1, 'thumbnail', '<svg>2</svg>')
    repository.remove([1])
    expect(db.prepare('SELECT count(*) FROM structure_depictions').pluck().get()).toBe(0)
    expect(repository.recordsAfter(null, 10)).toEqual([])
  })

  it('keeps the vaults of one cache apart: molecule ids are only unique within a vault', () => {
    const other = new StructureIndexRepository(db, 2)
    repository.save([parsed(1), parsed(2, { canonicalSmiles: 'CCN' })])
    other.save([parsed(1, { contentHash: 'other-1', canonicalSmiles: 'CCN' })])
    repository.saveDepiction(1, 'thumbnail', '<svg>vault 1</svg>')
    other.saveDepiction(1, 'thumbnail', '<svg>vault 2</svg>')
    expect(repository.contentHashes([1])).toEqual(new Map([[1, 'hash-1']]))
    expect(other.contentHashes([1])).toEqual(new Map([[1, 'other-1']]))
    expect(repository.idsByCanonicalSmiles('CCN')).toEqual([2])
    expect(other.idsByCanonicalSmiles('CCN')).toEqual([1])
    expect(other.depiction(1, 'thumbnail')).toBe('<svg>vault 2</svg>')
    repository.remove([1])
    expect(repository.depiction(1, 'thumbnail')).toBeUndefined()
    expect(other.depiction(1, 'thumbnail')).toBe('<svg>vault 2</svg>')
    expect(other.recordsAfter(null, 10).map((record) => record.id)).toEqual([1])
    expect(repository.indexedCount()).toBe(1)
    other.saveRecipe('1/2026.09.1')
    expect(other.recipe()).toBe('1/2026.09.1')
    expect(repository.recipe()).toBeNull()
  })

  it('looks molecules up by the novelty keys, each under its closest relation only', () => {
    const key = (skeleton: string, rest: string) => `${skeleton}-${rest}`
    // A whole cache's schema: the count of molecules not compared reads the cached molecules.
    db.close()
    db = openDatabase(path.join(directory, 'whole.db'), cacheMigrations, 'test cache')
    repository = new StructureIndexRepository(db, 1)
    repository.save([
      parsed(1, { canonicalSmiles: 'C[C@H](N)O', inchiKey: key('AAAAAAAAAAAAAA', 'BBBBBBBBSA-N') }),
      parsed(2, {
        canonicalSmiles: 'C[C@@H](N)O',
        inchiKey: key('AAAAAAAAAAAAAA', 'CCCCCCCCSA-N'),
      }),
      parsed(3, { canonicalSmiles: 'CC(N)O', inchiKey: key('AAAAAAAAAAAAAA', 'UHFFFAOYSA-N') }),
      // A salt: its parent is pending until the details pass gives it.
      parsed(4, {
        canonicalSmiles: 'C[C@H](N)O.Cl',
        inchiKey: key('DDDDDDDDDDDDDD', 'BBBBBBBBSA-N'),
        pendingDetails: 4,
      }),
      parsed(5, { canonicalSmiles: 'CCCC', inchiKey: null, pendingDetails: 1 }),
    ])
    const drawn = {
      canonicalSmiles: 'C[C@H](N)O',
      inchiKey: key('AAAAAAAAAAAAAA', 'BBBBBBBBSA-N'),
      skeletonKey: 'AAAAAAAAAAAAAA',
      parentSmiles: 'C[C@H](N)O',
    }
    expect(repository.noveltyCandidates(drawn)).toEqual({
      sameStructure: [1],
      sameSkeleton: [2, 3],
      sameParent: [],
    })
    expect(repository.noveltyUncheckedCount()).toBe(2)
    repository.saveDetails([
      { id: 4, slot: 3, computed: 4, inchiKey: null, properties: null, parentSmiles: 'C[C@H](N)O' },
    ])
    expect(repository.noveltyCandidates(drawn).sameParent).toEqual([4])
    // The InChIKey stays as it was: only the parent was computed.
    expect(repository.idsByInchiKey(key('DDDDDDDDDDDDDD', 'BBBBBBBBSA-N'))).toEqual([4])
    expect(repository.noveltyUncheckedCount()).toBe(1)
    // A structure InChI cannot describe is looked up by its canonical SMILES and parent only.
    expect(repository.noveltyCandidates({ ...drawn, inchiKey: '', skeletonKey: '' })).toEqual({
      sameStructure: [1],
      sameSkeleton: [],
      sameParent: [4],
    })
  })
})
