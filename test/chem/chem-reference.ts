/**
 * The references of the novelty keys, computed in the same test run by other software than the
 * RDKit WebAssembly build the app runs: Debian's RDKit (python3-rdkit) for the parent (its
 * SaltRemover with the app's list, then rdMolStandardize's LargestFragmentChooser preferring
 * organic fragments) and the molfiles, and the InChI Trust's own program (libinchi-bin's
 * inchi_main) for the InChIKeys, since Debian's RDKit is built without InChI.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { requirement } from '../support/environment.ts'

const python = process.env.VAULT_DESK_NATIVE_PYTHON ?? '/usr/bin/python3'
const inchiProgram = process.env.VAULT_DESK_INCHI ?? '/usr/bin/inchi_main'

const pythonProbe = spawnSync(
  python,
  [
    '-c',
    'from rdkit.Chem.MolStandardize import rdMolStandardize; from rdkit.Chem import SaltRemover',
  ],
  { encoding: 'utf8' },
)
export const referenceHere =
  requirement(
    pythonProbe.status === 0,
    `RDKit for Python (${python} with python3-rdkit: ${(pythonProbe.stderr || String(pythonProbe.error ?? '')).trim() || 'import failed'})`,
  ) && requirement(fs.existsSync(inchiProgram), `The InChI program (${inchiProgram}, libinchi-bin)`)

export interface ReferenceKeys {
  smiles: string
  inchiKey: string
  /** The parent's SMILES as Debian's RDKit writes it (canonical for that version). */
  parentSmiles: string
  parentInchiKey: string
}

const script = String.raw`
import json, sys
from rdkit import Chem, RDLogger
from rdkit.Chem.SaltRemover import SaltRemover, InputFormat
from rdkit.Chem.MolStandardize import rdMolStandardize
RDLogger.DisableLog('rdApp.*')
request = json.load(sys.stdin)
remover = SaltRemover(defnData='\n'.join(request['salts']), defnFormat=InputFormat.SMILES)
chooser = rdMolStandardize.LargestFragmentChooser(preferOrganic=True)
writer = Chem.SDWriter(request['sdf'])
parents = []
for smiles in request['structures']:
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        raise SystemExit('Debian RDKit cannot read ' + smiles)
    parent = chooser.choose(remover.StripMol(mol, dontRemoveEverything=True))
    writer.write(mol)
    writer.write(parent)
    parents.append(Chem.MolToSmiles(parent))
writer.close()
json.dump({'parents': parents}, sys.stdout)
`

/** The reference keys of each SMILES, in order. */
export function referenceKeys(
  structures: readonly string[],
  saltSmiles: readonly string[],
): ReferenceKeys[] {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-novelty-reference-'))
  try {
    const sdf = path.join(directory, 'structures.sdf')
    const run = spawnSync(python, ['-c', script], {
      input: JSON.stringify({ structures, salts: saltSmiles, sdf }),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    })
    if (run.status !== 0) throw new Error(`Debian RDKit failed: ${run.stderr}`)
    const { parents } = JSON.parse(run.stdout) as { parents: string[] }
    const output = path.join(directory, 'inchi.txt')
    const inchi = spawnSync(
      inchiProgram,
      [
        sdf,
        output,
        path.join(directory, 'inchi.log'),
        path.join(directory, 'inchi.prb'),
        '-Key',
        '-AuxNone',
        '-NoLabels',
      ],
      { encoding: 'utf8' },
    )
    if (inchi.status !== 0) throw new Error(`inchi_main failed: ${inchi.stderr}`)
    const keys = fs
      .readFileSync(output, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('InChIKey='))
      .map((line) => line.slice('InChIKey='.length).trim())
    if (keys.length !== structures.length * 2) {
      throw new Error(
        `inchi_main gave ${keys.length} InChIKeys for ${structures.length * 2} structures: ${fs.readFileSync(path.join(directory, 'inchi.log'), 'utf8')}`,
      )
    }
    return structures.map((smiles, index) => ({
      smiles,
      inchiKey: keys[index * 2]!,
      parentSmiles: parents[index]!,
      parentInchiKey: keys[index * 2 + 1]!,
    }))
  } finally {
    fs.rmSync(directory, { recursive: true, force: true })
  }
}
