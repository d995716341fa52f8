import { spawnSync } from 'node:child_process'
import { beforeAll, describe, expect, it } from 'vitest'
import { requirement } from '../../test/support/environment.ts'
import { RDKitToolkit } from './rdkit-toolkit.ts'
import { matchStructures } from './structure-match.ts'
import { normalizeSearchRequest, type StructureCriterion } from './structure-search-request.ts'

const python = process.env.VAULT_DESK_NATIVE_PYTHON ?? '/usr/bin/python3'
const referenceHere = requirement(
  spawnSync(python, ['-c', 'from rdkit.Chem import AllChem, DataStructs'], { encoding: 'utf8' })
    .status === 0,
  `RDKit for Python (${python} with python3-rdkit)`,
)

/** Molecules registered offline, as a chemist would draw them (stereo, salts, rings). */
const structures = [
  'CC(=O)Nc1ccc(O)cc1',
  'CC(=O)Nc1ccc(O)cc1.Cl',
  'C[C@H](N)C(=O)O',
  'C[C@@H](N)C(=O)O',
  'CC(N)C(=O)O',
  'OC(=O)c1ccccc1O',
  'CC(=O)Oc1ccccc1C(=O)O',
  'c1ccc2[nH]ccc2c1',
  'OC(=O)CCCCCCCCCCCN1CCOCC1',
]

const never = { throwIfCancelled: () => {} }

/**
 * What Debian's RDKit (another build and version than the app's WebAssembly) answers for the
 * same questions: Tanimoto on Morgan radius 2, 2048 bits; substructure with chirality; canonical
 * SMILES equality.
 */
function reference(query: string): {
  similarity: number[]
  substructure: boolean[]
  exact: boolean[]
} {
  const script = String.raw`
import json, sys
from rdkit import Chem, DataStructs, RDLogger
from rdkit.Chem import AllChem
RDLogger.DisableLog('rdApp.*')
request = json.load(sys.stdin)
query = Chem.MolFromSmiles(request['query'])
pattern = Chem.MolFromSmarts(request['query'])
query_fp = AllChem.GetMorganFingerprintAsBitVect(query, 2, nBits=2048)
canonical = Chem.MolToSmiles(query)
answer = {'similarity': [], 'substructure': [], 'exact': []}
for smiles in request['structures']:
    mol = Chem.MolFromSmiles(smiles)
    fp = AllChem.GetMorganFingerprintAsBitVect(mol, 2, nBits=2048)
    answer['similarity'].append(DataStructs.TanimotoSimilarity(query_fp, fp))
    answer['substructure'].append(mol.HasSubstructMatch(query, useChirality=True))
    answer['exact'].append(Chem.MolToSmiles(mol) == canonical)
json.dump(answer, sys.stdout)
`
  const run = spawnSync(python, ['-c', script], {
    input: JSON.stringify({ query, structures }),
    encoding: 'utf8',
  })
  if (run.status !== 0) throw new Error(`Debian RDKit failed: ${run.stderr}`)
  return JSON.parse(run.stdout) as ReturnType<typeof reference>
}

let rdkit: RDKitToolkit

beforeAll(async () => {
  rdkit = await RDKitToolkit.load()
})

const match = (criterion: StructureCriterion, among: readonly string[] = structures) =>
  matchStructures(rdkit, among, normalizeSearchRequest({ structure: criterion }).structure!, never)

describe.runIf(referenceHere)('structures matched outside the index, against Debian RDKit', () => {
  for (const query of ['CC(=O)Nc1ccc(O)cc1', 'C[C@H](N)C(=O)O', 'c1ccccc1', 'C1COCCN1']) {
    it(`scores and matches ${query} as the reference does`, () => {
      const expected = reference(query)
      const similarity = match({ kind: 'similarity', query, threshold: 0 })
      similarity.forEach((score, index) => {
        expect(score, structures[index]).toBeCloseTo(expected.similarity[index]!, 12)
      })
      const substructure = match({ kind: 'substructure', query, language: 'smiles' })
      expect(substructure.map((score) => score === 1)).toEqual(expected.substructure)
      const exact = match({ kind: 'exact', query })
      expect(exact.map((score) => score === 1)).toEqual(expected.exact)
    })
  }
})

describe('structures matched outside the index', () => {
  it('keeps only what reaches the similarity threshold', () => {
    const scores = match({ kind: 'similarity', query: 'CC(=O)Nc1ccc(O)cc1', threshold: 0.9 })
    expect(scores.filter((score) => score !== null)).toHaveLength(2)
  })

  it('passes over a structure it cannot read, and refuses a query it cannot read', () => {
    expect(match({ kind: 'substructure', query: 'c1ccccc1' }, ['C1CC(', 'c1ccccc1O'])).toEqual([
      null,
      1,
    ])
    expect(() => match({ kind: 'exact', query: 'C1CC(' })).toThrow(/SMILES|Invalid|parse/i)
  })
})
