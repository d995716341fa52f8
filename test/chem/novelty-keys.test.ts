/**
 * The novelty check's keys as the app's RDKit (WebAssembly) computes them, against references
 * computed in the same run (chem-reference.ts): the InChI Trust's program for InChIKeys, Debian's
 * RDKit SaltRemover and LargestFragmentChooser for parents. Drugs and their salt forms, hydrates
 * and stereoisomers, and the salts and mixtures of ChEMBL (/work/shared/data).
 */
import fs from 'node:fs'
import zlib from 'node:zlib'
import { beforeAll, describe, expect, it } from 'vitest'
import { computeNoveltyKeys, skeletonKeyOf } from '../../src-main/chem/novelty-keys.ts'
import {
  isSingleFragment,
  parentStructure,
  saltAndSolventFragments,
} from '../../src-main/chem/parent-structure.ts'
import { RDKitToolkit } from '../../src-main/chem/rdkit-toolkit.ts'
import { computeStructure } from '../../src-main/chem/structure-computation.ts'
import { computeDetails } from '../../src-main/chem/structure-details.ts'
import { structureDetail } from '../../src-main/chem/structure-input.ts'
import { pickleOf } from '../../src-main/chem/molecule-blob.ts'
import type { NoveltyInput } from '../../src-common/registration/novelty.ts'
import { referenceHere, referenceKeys } from './chem-reference.ts'

const chemblFile = process.env.VAULT_DESK_CHEMBL ?? '/work/shared/data/chembl_250k.csv.gz'
const chiralFile = '/work/shared/data/chembl_20_chiral.smi.gz'

/** Drugs written for these tests, with salt forms, hydrates and solvates of them. */
const drugs = {
  aspirin: 'CC(=O)Oc1ccccc1C(=O)O',
  paracetamol: 'CC(=O)Nc1ccc(O)cc1',
  caffeine: 'Cn1cnc2c1c(=O)n(C)c(=O)n2C',
  ibuprofen: 'CC(C)Cc1ccc(cc1)[C@@H](C)C(=O)O',
  nicotine: 'CN1CCC[C@H]1c1cccnc1',
  sertraline: 'CN[C@H]1CC[C@@H](c2ccc(Cl)c(Cl)c2)c2ccccc21',
  metformin: 'CN(C)C(=N)N=C(N)N',
  amlodipine: 'CCOC(=O)C1=C(COCCN)NC(C)=C(C(=O)OC)C1c1ccccc1Cl',
}
const saltForms = [
  `${drugs.sertraline}.Cl`,
  `${drugs.metformin}.Cl`,
  `${drugs.nicotine}.O=C(O)C(O)C(O)C(=O)O`,
  `${drugs.nicotine}.O=C(O)[C@H](O)[C@@H](O)C(=O)O`,
  `${drugs.amlodipine}.CS(=O)(=O)O`,
  `${drugs.amlodipine}.O=S(=O)(O)c1ccccc1`,
  `${drugs.caffeine}.O`,
  `${drugs.paracetamol}.Cl.O.O`,
  `[Na+].CC(C)Cc1ccc(cc1)[C@@H](C)C(=O)[O-]`,
  `${drugs.aspirin}.OC(=O)C(F)(F)F`,
  `${drugs.ibuprofen}.CCO`,
  `Cc1ccc(S(=O)(=O)O)cc1.${drugs.sertraline}`,
  `${drugs.metformin}.O=C(O)/C=C/C(=O)O`,
  // Two organic fragments neither of which is listed: the larger is the parent.
  `CCCCCCCCCCCCCCCC(=O)O.${drugs.paracetamol}`,
]

let rdkit: RDKitToolkit

beforeAll(async () => {
  rdkit = await RDKitToolkit.load()
})

function keysOf(text: string): NoveltyInput {
  const computed = computeNoveltyKeys(rdkit, text)
  if (!computed.ok) throw new Error(`${text}: ${computed.problem}`)
  return computed.keys
}

function canonical(smiles: string): string {
  return keysOf(smiles).canonicalSmiles
}

/** The first `count` lines of a gzipped file that `accept` takes, read through `column`. */
function sample(
  file: string,
  count: number,
  column: (line: string) => string | null,
  accept: (smiles: string) => boolean,
): string[] {
  const lines = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').split('\n')
  const picked: string[] = []
  for (const line of lines) {
    const smiles = column(line)
    if (smiles !== null && accept(smiles)) picked.push(smiles)
    if (picked.length === count) break
  }
  return picked
}

/** Stereocentres written the other way round: the enantiomer or a diastereomer. */
function flipped(smiles: string): string {
  return smiles.replace(/@@?/g, (mark) => (mark === '@' ? '@@' : '@'))
}

describe.runIf(referenceHere)('the novelty keys, against the references', () => {
  it('equal InChIKeys from the InChI program and parents from Debian RDKit for drugs and salts', () => {
    const multiFragment = sample(
      chemblFile,
      80,
      (line) => line.split(',')[1] ?? null,
      (smiles) => smiles.includes('.') && !smiles.includes('|') && !smiles.startsWith('"'),
    )
    const chiral = sample(
      chiralFile,
      40,
      (line) => line.split(/\s+/)[0] || null,
      (smiles) => smiles.includes('@'),
    )
    const structures = [
      ...Object.values(drugs),
      ...saltForms,
      ...multiFragment,
      ...chiral,
      ...chiral.map(flipped),
    ]
    const references = referenceKeys(
      structures,
      saltAndSolventFragments.map((fragment) => fragment.smiles),
    )
    const mismatches: string[] = []
    for (const reference of references) {
      const keys = keysOf(reference.smiles)
      if (keys.inchiKey !== reference.inchiKey) {
        mismatches.push(`${reference.smiles}: InChIKey ${keys.inchiKey} ≠ ${reference.inchiKey}`)
      }
      if (keys.skeletonKey !== skeletonKeyOf(reference.inchiKey)) {
        mismatches.push(`${reference.smiles}: skeleton ${keys.skeletonKey}`)
      }
      if (keys.parentSmiles !== canonical(reference.parentSmiles)) {
        mismatches.push(
          `${reference.smiles}: parent ${keys.parentSmiles} ≠ ${reference.parentSmiles}`,
        )
      }
      if (keysOf(keys.parentSmiles).inchiKey !== reference.parentInchiKey) {
        mismatches.push(`${reference.smiles}: parent InChIKey ≠ ${reference.parentInchiKey}`)
      }
    }
    expect(mismatches).toEqual([])
    // The sample has what it is meant to: salts whose parent differs, stereo that matters.
    const changed = references.filter((reference) => reference.parentSmiles !== reference.smiles)
    expect(changed.length).toBeGreaterThan(60)
    const differentStereo = chiral.filter(
      (_smiles, index) =>
        references[index + structures.length - 2 * chiral.length]!.inchiKey !==
        references[index + structures.length - chiral.length]!.inchiKey,
    )
    expect(differentStereo.length).toBeGreaterThan(30)
  }, 120_000)
})

describe('the novelty keys', () => {
  it('give a salt form the parent of its free base, and a stereoisomer its skeleton', () => {
    const base = keysOf(drugs.sertraline)
    const salt = keysOf(`${drugs.sertraline}.Cl`)
    expect(salt.parentSmiles).toBe(base.canonicalSmiles)
    expect(salt.removedFragments).toEqual(['Cl'])
    expect(salt.inchiKey).not.toBe(base.inchiKey)
    expect(salt.formula).toBe('C17H17Cl2N.ClH')
    const enantiomer = keysOf(flipped(drugs.sertraline))
    expect(enantiomer.skeletonKey).toBe(base.skeletonKey)
    expect(enantiomer.inchiKey).not.toBe(base.inchiKey)
    const flat = keysOf('CNC1CCC(c2ccc(Cl)c(Cl)c2)c2ccccc21')
    expect(flat.skeletonKey).toBe(base.skeletonKey)
    expect(flat.inchiKey).not.toBe(base.inchiKey)
  })

  it('keep the largest listed fragment when every fragment is a salt or solvent', () => {
    expect(keysOf('CCO.O').parentSmiles).toBe('CCO')
    expect(keysOf('[Na+].[Cl-]')).toMatchObject({
      parentSmiles: '[Cl-]',
      removedFragments: ['[Na+]'],
    })
    expect(keysOf('O').parentSmiles).toBe('O')
  })

  it('name what is wrong with a structure that cannot be read', () => {
    const problem = (text: string) => {
      const computed = computeNoveltyKeys(rdkit, text)
      if (computed.ok) throw new Error(`${text} was read`)
      return computed.problem
    }
    expect(problem('C(C)(C)(C)(C)C')).toMatch(
      /^Invalid SMILES: Explicit valence for atom # 0 C, 5, is greater than permitted/,
    )
    expect(problem('C1CC')).toMatch(/^Invalid SMILES: .*unclosed ring/i)
    expect(problem('not a molecule')).toMatch(/^Invalid SMILES: /)
    expect(problem('   ')).toBe('Invalid SMILES: it is empty.')
    expect(problem('C'.repeat(1_000_001))).toMatch(/at most 1000000 are read/)
  })

  it('index a parent without work for one fragment and as a detail for several', () => {
    expect(isSingleFragment(canonical(drugs.aspirin))).toBe(true)
    const single = computeStructure(rdkit, {
      id: 1,
      structure: drugs.aspirin,
      inchiKey: null,
      computeProperties: false,
    })
    expect(single).toMatchObject({ pendingDetails: structureDetail.inchiKey })
    const salt = computeStructure(rdkit, {
      id: 2,
      structure: `${drugs.sertraline}.Cl`,
      inchiKey: null,
      computeProperties: false,
    })
    if (salt.parseError !== null) throw new Error(salt.parseError)
    expect(salt.pendingDetails).toBe(structureDetail.inchiKey | structureDetail.parent)
    const details = computeDetails(
      rdkit,
      { id: 2, slot: 0, wanted: salt.pendingDetails },
      pickleOf(salt.pickle, 0, salt.pickle.length),
    )
    expect(details).toMatchObject({
      inchiKey: keysOf(`${drugs.sertraline}.Cl`).inchiKey,
      parentSmiles: canonical(drugs.sertraline),
    })
    const parsed = rdkit.parseMolecule(`${drugs.sertraline}.Cl`)
    if (!parsed.ok) throw new Error(parsed.problem)
    try {
      expect(parentStructure(rdkit, parsed.value, parsed.value.get_smiles()).smiles).toBe(
        details.parentSmiles,
      )
    } finally {
      parsed.value.delete()
    }
  })
})
