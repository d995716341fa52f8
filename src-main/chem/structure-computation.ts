/**
 * What the search index keeps about one molecule, computed in a worker from one parse: the
 * canonical SMILES, both fingerprints, and the graph and pickle that substructure verification
 * reads back. The InChIKey and the properties cost more than all of that together, so they are
 * only noted as pending here and computed afterwards from the pickle (structure-details.ts), as is
 * the parent of a structure of several fragments (one fragment is its own parent).
 */
import { packMoleculeBlob } from './molecule-blob.ts'
import { moleculeGraphFromJson } from './molecule-graph.ts'
import { isSingleFragment } from './parent-structure.ts'
import { moleculeGraphFromPickle } from './pickle-graph.ts'
import type { Mol, RDKitToolkit } from './rdkit-toolkit.ts'
import { structureDetail, type ComputedStructure, type StructureInput } from './structure-input.ts'

/** Morgan radius 2 ("ECFP4-like"), 2048 bits: the similarity fingerprint of the issue and of the vault. */
export const morganFingerprintOptions = JSON.stringify({ radius: 2, nBits: 2048 })

export function computeStructure(rdkit: RDKitToolkit, input: StructureInput): ComputedStructure {
  if (input.structure === null) return { id: input.id, parseError: 'The vault gives no structure.' }
  const parsed = rdkit.parseMolecule(input.structure)
  if (!parsed.ok) return { id: input.id, parseError: parsed.problem }
  const mol = parsed.value
  try {
    const pickle = mol.get_as_uint8array() as Uint8Array
    const canonicalSmiles = mol.get_smiles()
    return {
      id: input.id,
      parseError: null,
      canonicalSmiles,
      inchiKey: input.inchiKey,
      patternFingerprint: mol.get_pattern_fp_as_uint8array() as Uint8Array,
      morganFingerprint: morganFingerprintOf(mol),
      pickle: packMoleculeBlob(graphOf(mol, pickle), pickle),
      properties: null,
      pendingDetails:
        (input.inchiKey === null ? structureDetail.inchiKey : 0) |
        (input.computeProperties ? structureDetail.properties : 0) |
        (isSingleFragment(canonicalSmiles) ? 0 : structureDetail.parent),
    }
  } finally {
    mol.delete()
  }
}

/** From the pickle (a few microseconds); RDKit's JSON (a few hundred) only where it cannot tell. */
function graphOf(mol: Mol, pickle: Uint8Array): Uint8Array | null {
  return moleculeGraphFromPickle(pickle) ?? moleculeGraphFromJson(mol.get_json())
}

export function morganFingerprintOf(mol: Mol): Uint8Array {
  return mol.get_morgan_fp_as_uint8array(morganFingerprintOptions) as Uint8Array
}
