/**
 * Everything the index keeps about one molecule, computed in a worker from one parse: identity
 * (canonical SMILES, InChIKey), both fingerprints, the graph and pickle that substructure
 * verification reads back, and the properties.
 */
import { packMoleculeBlob } from './molecule-blob.ts'
import { moleculeGraphFromJson } from './molecule-graph.ts'
import { propertiesFromDescriptors } from './molecular-properties.ts'
import type { Mol, RDKitToolkit } from './rdkit-toolkit.ts'
import type { ComputedStructure, StructureInput } from './structure-input.ts'

/** Morgan radius 2 ("ECFP4-like"), 2048 bits: the similarity fingerprint of the issue and of the vault. */
export const morganFingerprintOptions = JSON.stringify({ radius: 2, nBits: 2048 })

export function computeStructure(rdkit: RDKitToolkit, input: StructureInput): ComputedStructure {
  if (input.structure === null) return { id: input.id, parseError: 'The vault gives no structure.' }
  const parsed = rdkit.parseMolecule(input.structure)
  if (!parsed.ok) return { id: input.id, parseError: parsed.problem }
  const mol = parsed.value
  try {
    return {
      id: input.id,
      parseError: null,
      canonicalSmiles: mol.get_smiles(),
      inchiKey: input.inchiKey ?? inchiKeyOf(rdkit, mol),
      patternFingerprint: mol.get_pattern_fp_as_uint8array() as Uint8Array,
      morganFingerprint: morganFingerprintOf(mol),
      pickle: packMoleculeBlob(
        moleculeGraphFromJson(mol.get_json()),
        mol.get_as_uint8array() as Uint8Array,
      ),
      properties: input.computeProperties
        ? propertiesFromDescriptors(JSON.parse(mol.get_descriptors()))
        : null,
    }
  } finally {
    mol.delete()
  }
}

export function morganFingerprintOf(mol: Mol): Uint8Array {
  return mol.get_morgan_fp_as_uint8array(morganFingerprintOptions) as Uint8Array
}

export function inchiKeyOf(rdkit: RDKitToolkit, mol: Mol): string | null {
  const inchi = mol.get_inchi()
  if (!inchi) return null
  return rdkit.module.get_inchikey_for_inchi(inchi) || null
}
