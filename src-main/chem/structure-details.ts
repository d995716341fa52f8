/**
 * The second part of indexing a molecule: its InChIKey, properties and (for a structure of several
 * fragments) parent, computed in a worker from
 * the pickle the search index already holds. Unpickling costs far less than parsing, and InChI and
 * RDKit's descriptors read the same molecule either way, so the answers equal those from the
 * structure text.
 */
import { propertiesFromDescriptors } from './molecular-properties.ts'
import { parentStructure } from './parent-structure.ts'
import type { Mol, RDKitToolkit } from './rdkit-toolkit.ts'
import { structureDetail, type ComputedDetails, type DetailsInput } from './structure-input.ts'

export function computeDetails(
  rdkit: RDKitToolkit,
  input: DetailsInput,
  pickle: Uint8Array,
): ComputedDetails {
  const answer = unknownDetails(input)
  const mol = rdkit.parseMoleculeFromPickle(pickle)
  if (!mol) return { ...answer, problem: 'RDKit could not read the stored molecule back.' }
  try {
    if (input.wanted & structureDetail.inchiKey) answer.inchiKey = inchiKeyOf(rdkit, mol)
    if (input.wanted & structureDetail.properties) {
      answer.properties = propertiesFromDescriptors(JSON.parse(mol.get_descriptors()))
    }
    if (input.wanted & structureDetail.parent) {
      answer.parentSmiles = parentStructure(rdkit, mol, mol.get_smiles()).smiles
    }
    return answer
  } finally {
    mol.delete()
  }
}

/** The answer for a molecule whose details cannot be computed: known to be unknown. */
export function unknownDetails(input: DetailsInput): ComputedDetails {
  return {
    id: input.id,
    slot: input.slot,
    computed: input.wanted,
    inchiKey: null,
    properties: null,
    parentSmiles: null,
  }
}

export function inchiKeyOf(rdkit: RDKitToolkit, mol: Mol): string | null {
  const inchi = mol.get_inchi()
  if (!inchi) return null
  return rdkit.module.get_inchikey_for_inchi(inchi) || null
}
