/**
 * The keys the novelty check compares a drawn structure by, computed in a worker from its text:
 * the canonical SMILES, the InChIKey and its first block (the skeleton, without stereo), and the
 * parent without salts and solvents (parent-structure.ts).
 */
import type { NoveltyInput } from '../../src-common/registration/novelty.ts'
import { inchiKeyFirstBlock, parentStructure } from './parent-structure.ts'
import type { RDKitToolkit } from './rdkit-toolkit.ts'
import { maximumStructureLength } from './structure-input.ts'

export type NoveltyKeys = { ok: true; keys: NoveltyInput } | { ok: false; problem: string }

export function skeletonKeyOf(inchiKey: string): string {
  return inchiKey.slice(0, inchiKeyFirstBlock)
}

export function computeNoveltyKeys(rdkit: RDKitToolkit, text: string): NoveltyKeys {
  if (text.length > maximumStructureLength) {
    return {
      ok: false,
      problem: `The structure is ${text.length} characters long; at most ${maximumStructureLength} are read.`,
    }
  }
  const parsed = rdkit.parseMolecule(text)
  if (!parsed.ok) return { ok: false, problem: parsed.problem }
  const mol = parsed.value
  try {
    const canonicalSmiles = mol.get_smiles()
    const inchi = mol.get_inchi()
    const inchiKey = inchi ? rdkit.module.get_inchikey_for_inchi(inchi) : ''
    const parent = parentStructure(rdkit, mol, canonicalSmiles)
    return {
      ok: true,
      keys: {
        canonicalSmiles,
        inchiKey,
        skeletonKey: inchiKey === '' ? '' : skeletonKeyOf(inchiKey),
        parentSmiles: parent.smiles,
        removedFragments: parent.removed,
        formula: formulaOf(inchi),
      },
    }
  } finally {
    mol.delete()
  }
}

/** The formula layer of an InChI (components apart with '.'), or '' when there is no InChI. */
function formulaOf(inchi: string): string {
  return /^InChI=1S?\/([^/]+)/.exec(inchi)?.[1] ?? ''
}
