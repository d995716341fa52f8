/**
 * A cache whose structure index was built before the novelty keys (schema step 7) upgrades to
 * step 8 in place: one-fragment molecules are their own parents at once, the InChIKey's first
 * block is there wherever the InChIKey is, and salts wait for their parent, which the details
 * pass then computes from the stored pickle in a real RDKit worker; nothing is recomputed whole.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { computeNoveltyKeys } from '../../src-main/chem/novelty-keys.ts'
import { RDKitToolkit } from '../../src-main/chem/rdkit-toolkit.ts'
import { computeStructure } from '../../src-main/chem/structure-computation.ts'
import { StructureEngine } from '../../src-main/chem/structure-engine.ts'
import type { ParsedStructure } from '../../src-main/chem/structure-input.ts'
import { ChemWorkerPool } from '../../src-main/chem/worker-pool.ts'
import { cacheMigrations } from '../../src-main/store/cache-migrations.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import type { NoveltyInput } from '../../src-common/registration/novelty.ts'
import { databaseAtStep } from '../store/fixtures/schema-steps.ts'

const aspirin = 'CC(=O)Oc1ccccc1C(=O)O'
const nicotine = 'CN1CCC[C@H]1c1cccnc1'
const sertraline = 'CN[C@H]1CC[C@@H](c2ccc(Cl)c(Cl)c2)c2ccccc21'

let rdkit: RDKitToolkit
let directory: string
let pool: ChemWorkerPool

beforeAll(async () => {
  rdkit = await RDKitToolkit.load()
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-novelty-upgrade-'))
  pool = new ChemWorkerPool({ size: 1 })
})

afterAll(async () => {
  await pool?.close()
  fs.rmSync(directory, { recursive: true, force: true })
})

function keys(smiles: string): NoveltyInput {
  const computed = computeNoveltyKeys(rdkit, smiles)
  if (!computed.ok) throw new Error(computed.problem)
  return computed.keys
}

function parsed(id: number, smiles: string): ParsedStructure {
  const computed = computeStructure(rdkit, {
    id,
    structure: smiles,
    inchiKey: null,
    computeProperties: false,
  })
  if (computed.parseError !== null) throw new Error(computed.parseError)
  return computed
}

/** A structure index row as step 7's code wrote it (its columns, literal SQL). */
function insertStep7Row(
  db: ReturnType<typeof databaseAtStep>,
  id: number,
  smiles: string,
  options: { inchiKeyComputed: boolean },
): void {
  const structure = parsed(id, smiles)
  db.prepare(
    `INSERT INTO structure_index (vault_id, molecule_id, content_hash, parse_error,
       canonical_smiles, inchikey, pattern_fp, morgan_fp, pickle, known_properties, computed_at,
       source_modified_at, details_pending)
     VALUES (1, ?, ?, NULL, ?, ?, ?, ?, ?, '{}', '2026-10-01T00:00:00.000Z', NULL, ?)`,
  ).run(
    id,
    `hash-${id}`,
    structure.canonicalSmiles,
    options.inchiKeyComputed ? keys(smiles).inchiKey : null,
    Buffer.from(structure.patternFingerprint),
    Buffer.from(structure.morganFingerprint),
    Buffer.from(structure.pickle),
    options.inchiKeyComputed ? 0 : 1,
  )
}

describe('a structure index of schema step 7', () => {
  it('gains the novelty keys at step 8, salts computing their parent in the details pass', async () => {
    const file = path.join(directory, 'lab.db')
    const db = databaseAtStep(file, cacheMigrations, 7)
    insertStep7Row(db, 101, aspirin, { inchiKeyComputed: true })
    insertStep7Row(db, 102, `${sertraline}.Cl`, { inchiKeyComputed: true })
    insertStep7Row(db, 103, nicotine, { inchiKeyComputed: false })
    db.prepare(
      `INSERT INTO structure_index (vault_id, molecule_id, content_hash, parse_error, computed_at)
       VALUES (1, 104, 'hash-104', 'Explicit valence for atom # 0 C, 5, is greater than permitted',
         '2026-10-01T00:00:00.000Z')`,
    ).run()
    db.close()

    const { cache, recovery } = VaultCache.open(file)
    try {
      expect(recovery).toBeNull()
      const repository = cache.structureIndex(1)
      expect(
        repository
          .recordsAfter(null, 10)
          .map((record) => [record.id, record.parseError === null ? record.pendingDetails : null]),
      ).toEqual([
        [101, 0],
        [102, 4],
        [103, 1],
        [104, null],
      ])
      // The salt waits for its parent, nicotine for its InChIKey: neither can be compared yet.
      expect(repository.noveltyUncheckedCount()).toBe(2)
      expect(repository.noveltyCandidates(keys(aspirin))).toEqual({
        sameStructure: [101],
        sameSkeleton: [],
        sameParent: [],
      })
      expect(repository.noveltyCandidates(keys(sertraline)).sameParent).toEqual([])
      const salt = keys(`${sertraline}.Cl`)
      expect(repository.noveltyCandidates(salt).sameStructure).toEqual([102])

      const engine = await StructureEngine.open({ pool, store: repository })
      try {
        expect(await engine.completeDetails()).toMatchObject({ completed: 2, failed: 0 })
      } finally {
        engine.close()
      }
      expect(repository.noveltyUncheckedCount()).toBe(0)
      expect(repository.noveltyCandidates(keys(sertraline))).toEqual({
        sameStructure: [],
        sameSkeleton: [],
        sameParent: [102],
      })
      expect(repository.noveltyCandidates(keys('CN1CCC[C@@H]1c1cccnc1'))).toEqual({
        sameStructure: [],
        sameSkeleton: [103],
        sameParent: [],
      })
    } finally {
      await cache.close()
    }
  }, 60_000)
})
