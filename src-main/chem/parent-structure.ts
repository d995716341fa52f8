/**
 * The parent of a structure: what is left once the fragments recognised as salts, counter-ions
 * and solvents of crystallisation are removed, the largest organic fragment of it. It is how the
 * novelty check tells that "X.HCl" and "X" are the same compound registered twice.
 *
 * The rule follows RDKit's SaltRemover with this list, then its LargestFragmentChooser preferring
 * organic fragments (rdMolStandardize): the test compares both in the same run. A structure made
 * only of listed fragments (sodium chloride, ethanol with water) keeps the largest of them rather
 * than becoming empty. Charges are kept: a sodium carboxylate's parent is the carboxylate.
 */
import type { Mol, RDKitToolkit } from './rdkit-toolkit.ts'

/**
 * The salts, counter-ions and solvents removed from a structure to get its parent, as SMILES.
 * A fragment is recognised by the first block of its InChIKey, which leaves out stereo, charge
 * and protonation: an acid stands for its anions (citric acid for citrate) and its enantiomers,
 * ammonia for ammonium, as RDKit's SaltRemover also matches them. The one list: the index, the
 * novelty check and the tests all read it.
 */
export const saltAndSolventFragments: readonly { smiles: string; name: string }[] = [
  // Halides and mineral acids.
  { smiles: 'Cl', name: 'hydrogen chloride' },
  { smiles: '[Cl-]', name: 'chloride' },
  { smiles: 'Br', name: 'hydrogen bromide' },
  { smiles: '[Br-]', name: 'bromide' },
  { smiles: 'I', name: 'hydrogen iodide' },
  { smiles: '[I-]', name: 'iodide' },
  { smiles: 'F', name: 'hydrogen fluoride' },
  { smiles: '[F-]', name: 'fluoride' },
  { smiles: 'OS(=O)(=O)O', name: 'sulfuric acid' },
  { smiles: 'OS(=O)(=O)[O-]', name: 'hydrogen sulfate' },
  { smiles: '[O-]S(=O)(=O)[O-]', name: 'sulfate' },
  { smiles: 'OP(=O)(O)O', name: 'phosphoric acid' },
  { smiles: 'OP(=O)(O)[O-]', name: 'dihydrogen phosphate' },
  { smiles: 'O=[N+]([O-])O', name: 'nitric acid' },
  { smiles: 'O=[N+]([O-])[O-]', name: 'nitrate' },
  { smiles: 'OCl(=O)(=O)=O', name: 'perchloric acid' },
  { smiles: '[O-]Cl(=O)(=O)=O', name: 'perchlorate' },
  { smiles: 'F[B-](F)(F)F', name: 'tetrafluoroborate' },
  { smiles: 'F[P-](F)(F)(F)(F)F', name: 'hexafluorophosphate' },
  // Metal and ammonium counter-ions.
  { smiles: '[Li+]', name: 'lithium' },
  { smiles: '[Na+]', name: 'sodium' },
  { smiles: '[Na]', name: 'sodium' },
  { smiles: '[K+]', name: 'potassium' },
  { smiles: '[K]', name: 'potassium' },
  { smiles: '[Mg+2]', name: 'magnesium' },
  { smiles: '[Ca+2]', name: 'calcium' },
  { smiles: '[Zn+2]', name: 'zinc' },
  { smiles: '[NH4+]', name: 'ammonium' },
  { smiles: 'N', name: 'ammonia' },
  // Organic acids of pharmaceutical salts, neutral and as anions.
  { smiles: 'OC(=O)C(F)(F)F', name: 'trifluoroacetic acid' },
  { smiles: '[O-]C(=O)C(F)(F)F', name: 'trifluoroacetate' },
  { smiles: 'CC(=O)O', name: 'acetic acid' },
  { smiles: 'CC(=O)[O-]', name: 'acetate' },
  { smiles: 'O=CO', name: 'formic acid' },
  { smiles: 'O=C[O-]', name: 'formate' },
  { smiles: 'CS(=O)(=O)O', name: 'methanesulfonic acid' },
  { smiles: 'CS(=O)(=O)[O-]', name: 'mesylate' },
  { smiles: 'Cc1ccc(S(=O)(=O)O)cc1', name: 'p-toluenesulfonic acid' },
  { smiles: 'Cc1ccc(S(=O)(=O)[O-])cc1', name: 'tosylate' },
  { smiles: 'O=S(=O)(O)c1ccccc1', name: 'benzenesulfonic acid' },
  { smiles: 'O=S(=O)([O-])c1ccccc1', name: 'besylate' },
  { smiles: 'O=C(O)C(=O)O', name: 'oxalic acid' },
  { smiles: 'O=C(O)/C=C/C(=O)O', name: 'fumaric acid' },
  { smiles: 'O=C(O)/C=C\\C(=O)O', name: 'maleic acid' },
  { smiles: 'O=C(O)CCC(=O)O', name: 'succinic acid' },
  { smiles: 'O=C(O)CC(O)(CC(=O)O)C(=O)O', name: 'citric acid' },
  { smiles: 'O=C(O)C(O)C(O)C(=O)O', name: 'tartaric acid' },
  { smiles: 'CC(O)C(=O)O', name: 'lactic acid' },
  { smiles: 'O=C(O)c1ccccc1', name: 'benzoic acid' },
  // Solvents of crystallisation.
  { smiles: 'O', name: 'water' },
  { smiles: 'CO', name: 'methanol' },
  { smiles: 'CCO', name: 'ethanol' },
  { smiles: 'CC(C)O', name: 'isopropanol' },
  { smiles: 'CC(C)=O', name: 'acetone' },
  { smiles: 'CC#N', name: 'acetonitrile' },
  { smiles: 'CS(C)=O', name: 'dimethyl sulfoxide' },
  { smiles: 'CN(C)C=O', name: 'dimethylformamide' },
  { smiles: 'ClCCl', name: 'dichloromethane' },
  { smiles: 'ClC(Cl)Cl', name: 'chloroform' },
  { smiles: 'CCOC(C)=O', name: 'ethyl acetate' },
  { smiles: 'CCOCC', name: 'diethyl ether' },
  { smiles: 'C1CCOC1', name: 'tetrahydrofuran' },
  { smiles: 'C1COCCO1', name: 'dioxane' },
  { smiles: 'Cc1ccccc1', name: 'toluene' },
  { smiles: 'c1ccccc1', name: 'benzene' },
  { smiles: 'CCCCCC', name: 'hexane' },
]

export interface ParentStructure {
  /** The parent's canonical SMILES. */
  smiles: string
  /** The canonical SMILES of the fragments left out, largest first; empty for one fragment. */
  removed: string[]
}

/**
 * Whether a canonical SMILES is one fragment, and so its own parent: true for most molecules,
 * which then cost nothing more to index. RDKit writes fragments apart with '.' and never bonds
 * across it.
 */
export function isSingleFragment(canonicalSmiles: string): boolean {
  return !canonicalSmiles.includes('.')
}

interface Fragment {
  smiles: string
  listed: boolean
  organic: boolean
  /** Atoms, hydrogens counted. */
  atoms: number
  /** Its average molecular weight, read only to break a tie in atoms. */
  weight(): number
}

interface SaltList {
  skeletons: Set<string>
  /** Atoms of the largest listed fragment, hydrogens counted: a larger one needs no InChI. */
  largest: number
}

const listsByToolkit = new WeakMap<RDKitToolkit, SaltList>()

/** The parent of a parsed molecule whose canonical SMILES is `canonicalSmiles`. */
export function parentStructure(
  rdkit: RDKitToolkit,
  mol: Mol,
  canonicalSmiles: string,
): ParentStructure {
  if (isSingleFragment(canonicalSmiles)) return { smiles: canonicalSmiles, removed: [] }
  const list = saltList(rdkit)
  const mols = fragmentsOf(mol)
  try {
    const fragments = mols.map((fragment) => describeFragment(rdkit, fragment, list))
    const kept = fragments.filter((fragment) => !fragment.listed)
    const parent = [...(kept.length > 0 ? kept : fragments)].sort(byRank)[0]!
    const removed = fragments.filter((fragment) => fragment !== parent).sort(byRank)
    return { smiles: parent.smiles, removed: removed.map((fragment) => fragment.smiles) }
  } finally {
    for (const fragment of mols) fragment.delete()
  }
}

function fragmentsOf(mol: Mol): Mol[] {
  const { molList } = mol.get_frags() as {
    molList: { size(): number; at(i: number): Mol | null; delete(): void }
  }
  try {
    const fragments: Mol[] = []
    for (let i = 0; i < molList.size(); i++) {
      const fragment = molList.at(i)
      if (fragment) fragments.push(fragment)
    }
    return fragments
  } finally {
    molList.delete()
  }
}

interface MolJson {
  defaults: { atom: { z: number; impHs: number } }
  molecules: { atoms: { z?: number; impHs?: number }[] }[]
}

/** A fragment as ranked; its Mol must live until the ranking is done (see `weight`). */
function describeFragment(rdkit: RDKitToolkit, fragment: Mol, list: SaltList): Fragment {
  const { atomCount, organic } = atomsOf(fragment)
  let weight: number | undefined
  return {
    smiles: fragment.get_smiles(),
    listed: atomCount <= list.largest && list.skeletons.has(skeletonOf(rdkit, fragment)),
    organic,
    atoms: atomCount,
    weight: () => {
      weight ??= (JSON.parse(fragment.get_descriptors()) as { amw: number }).amw
      return weight
    },
  }
}

/** Its atoms, hydrogens counted, and whether it has carbon. */
function atomsOf(mol: Mol): { atomCount: number; organic: boolean } {
  // RDKit's JSON leaves out what equals its defaults: carbon, no implicit hydrogens.
  const json = JSON.parse(mol.get_json()) as MolJson
  const { z: defaultElement, impHs: defaultHydrogens } = json.defaults.atom
  const atoms = json.molecules.flatMap((molecule) => molecule.atoms)
  return {
    atomCount: atoms.reduce((sum, atom) => sum + 1 + (atom.impHs ?? defaultHydrogens), 0),
    organic: atoms.some((atom) => (atom.z ?? defaultElement) === 6),
  }
}

/** Organic first, then more atoms (hydrogens counted), then heavier, then by SMILES. */
function byRank(a: Fragment, b: Fragment): number {
  return (
    Number(b.organic) - Number(a.organic) ||
    b.atoms - a.atoms ||
    b.weight() - a.weight() ||
    (a.smiles < b.smiles ? -1 : a.smiles > b.smiles ? 1 : 0)
  )
}

/** The first block of a fragment's InChIKey, or '' when InChI cannot describe it. */
function skeletonOf(rdkit: RDKitToolkit, fragment: Mol): string {
  const inchi = fragment.get_inchi()
  return inchi ? rdkit.module.get_inchikey_for_inchi(inchi).slice(0, inchiKeyFirstBlock) : ''
}

/** The characters of the InChIKey's first block: connectivity, without stereo or charge. */
export const inchiKeyFirstBlock = 14

/** The list's InChIKey first blocks, computed once per worker. */
function saltList(rdkit: RDKitToolkit): SaltList {
  let list = listsByToolkit.get(rdkit)
  if (list) return list
  list = { skeletons: new Set(), largest: 0 }
  for (const { smiles, name } of saltAndSolventFragments) {
    const parsed = rdkit.parseMolecule(smiles)
    if (!parsed.ok) {
      throw new Error(`The salt and solvent list has an unreadable ${name}: ${smiles}`)
    }
    try {
      list.skeletons.add(skeletonOf(rdkit, parsed.value))
      list.largest = Math.max(list.largest, atomsOf(parsed.value).atomCount)
    } finally {
      parsed.value.delete()
    }
  }
  listsByToolkit.set(rdkit, list)
  return list
}
