import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chemblFile, chemblMoleculePages } from '../../test/store/fixtures/chembl-molecules.ts'
import { requirement } from '../../test/support/environment.ts'
import { checkStructuresInWorkers } from './structure-check.ts'
import { ChemWorkerPool } from './worker-pool.ts'

const python = process.env.VAULT_DESK_NATIVE_PYTHON ?? '/usr/bin/python3'
const run = requirement(
  fs.existsSync(python) &&
    spawnSync(python, ['-c', 'from rdkit import Chem'], { encoding: 'utf8' }).status === 0,
  `RDKit for Python (${python} with python3-rdkit)`,
)

function rdkitInPython(script: string, input: unknown): unknown {
  const answer = spawnSync(python, ['-c', script], {
    input: JSON.stringify(input),
    encoding: 'utf8',
  })
  if (answer.status !== 0) throw new Error(`RDKit in Python failed: ${answer.stderr}`)
  return JSON.parse(answer.stdout)
}

/** Molfiles written by RDKit without sanitizing, so that an impossible valence can be written. */
const molfilesOf = (smiles: string[]) =>
  rdkitInPython(
    [
      'import json, sys',
      'from rdkit import Chem',
      'out = []',
      'for text in json.load(sys.stdin):',
      '    mol = Chem.MolFromSmiles(text, sanitize=False)',
      '    mol.UpdatePropertyCache(strict=False)',
      '    out.append(Chem.MolToMolBlock(mol, kekulize=False))',
      'print(json.dumps(out))',
    ].join('\n'),
    smiles,
  ) as string[]

/**
 * Debian RDKit's verdict: whether the default readers (which sanitize) give a molecule with atoms;
 * an empty text gives a molecule without any, which no import can register.
 */
const readableInPython = (texts: string[]) =>
  rdkitInPython(
    [
      'import json, sys',
      'from rdkit import Chem, RDLogger',
      'RDLogger.DisableLog("rdApp.*")',
      'out = []',
      'for text in json.load(sys.stdin):',
      '    mol = Chem.MolFromMolBlock(text) if "M  END" in text else Chem.MolFromSmiles(text)',
      '    out.append(mol is not None and mol.GetNumAtoms() > 0)',
      'print(json.dumps(out))',
    ].join('\n'),
    texts,
  ) as boolean[]

const badValence = 'C(C)(C)(C)(C)C'
const unclosedRing = 'C1CCC'
const cannotKekulize = 'c1cccc1'
const garbage = 'not a smiles'

const smiles = [
  'CC(=O)Oc1ccccc1C(=O)O',
  'CN1C=NC2=C1C(=O)N(C(=O)N2C)C',
  'O=C(NC1CC1)c1cc(Oc2ccc(NC(=S)Nc3ccc(F)c(F)c3)cc2)ccn1',
  '[nH]1cccc1',
  'F/C=C/F',
  'C[C@H](N)C(=O)O',
  '[2H]C([2H])([2H])O',
  '[H]C([H])([H])[H]',
  'CCO.[Na+].[Cl-]',
  'O=[N+]([O-])c1ccccc1',
  'C[N+](C)(C)C',
  '*c1ccccc1',
  '[Fe+2]',
  'C[C@H](O)F |&1:1|',
  'CCO |$A;B;C$|',
  badValence,
  'N(C)(C)(C)C',
  'Cl(C)C',
  unclosedRing,
  'C((C)',
  cannotKekulize,
  'c1ccnc1',
  '[Xy]',
  garbage,
  'CC |$A;B;C;D;E$|',
  '',
  '   ',
]

describe('checking structures in the workers, against Debian RDKit', () => {
  let pool: ChemWorkerPool
  beforeAll(() => {
    pool = new ChemWorkerPool({ size: 2 })
  })
  afterAll(async () => {
    await pool.close()
  })

  it.runIf(run)('agrees on which parse, in order, and names what is wrong', async () => {
    const texts = [...smiles, ...molfilesOf(['CC(=O)Oc1ccccc1C(=O)O', badValence])]
    // More than one task's worth, so that both workers answer parts of the list.
    const many = [...texts, ...texts, ...texts]
    const expected = readableInPython(many)
    expect(expected.filter((readable) => !readable).length).toBeGreaterThanOrEqual(3 * 12)

    const problems = await checkStructuresInWorkers(pool, many)
    expect(problems.map((problem) => problem === null)).toEqual(expected)
    const problemOf = (text: string) => problems[texts.indexOf(text)]
    expect(problemOf(badValence)).toMatch(/^Invalid SMILES: .*valence/i)
    expect(problemOf(unclosedRing)).toMatch(/^Invalid SMILES: .*unclosed ring/i)
    expect(problemOf(cannotKekulize)).toMatch(/^Invalid SMILES: .*kekulize/i)
    expect(problemOf(garbage)).toMatch(/^Invalid SMILES: /)
    expect(problemOf('')).toBe('Invalid SMILES: it is empty.')
    expect(problems[texts.length - 1]).toMatch(/^Invalid molfile: .*valence/i)
  })

  const withChembl =
    run && requirement(fs.existsSync(chemblFile), `ChEMBL structures (${chemblFile})`)
  it.runIf(withChembl)('agrees on 2,000 ChEMBL structures, CXSMILES among them', async () => {
    const structures: string[] = []
    for await (const page of chemblMoleculePages(2_000, 2_000)) {
      for (const record of page) structures.push(String(record.smiles))
    }
    expect(structures.some((text) => text.includes('|'))).toBe(true)
    const expected = readableInPython(structures)
    const problems = await checkStructuresInWorkers(pool, structures)
    expect(problems.map((problem) => problem === null)).toEqual(expected)
  })

  it('answers an empty list without a task, and stops when aborted', async () => {
    expect(await checkStructuresInWorkers(pool, [])).toEqual([])
    const controller = new AbortController()
    controller.abort()
    await expect(checkStructuresInWorkers(pool, ['CCO'], controller.signal)).rejects.toThrow(
      /cancelled/,
    )
  })
})
