import type { MolecularProperties } from './molecular-properties.ts'

/** One molecule to index, as the vault gave it. */
export interface StructureInput {
  id: number
  /** SMILES, CXSMILES or a molfile; null when the vault has no chemical structure for it. */
  structure: string | null
  /** The vault's InChIKey when it gave one: computing InChI is then not needed. */
  inchiKey: string | null
  /** False when the vault gave every property, so RDKit's descriptors are not needed. */
  computeProperties: boolean
}

/** What a worker computes for a molecule it could parse. */
export interface ParsedStructure {
  id: number
  parseError: null
  canonicalSmiles: string
  /** The vault's, else RDKit's; null when InChI cannot describe the structure (query atoms). */
  inchiKey: string | null
  patternFingerprint: Uint8Array
  morganFingerprint: Uint8Array
  /**
   * The molecule blob (molecule-blob.ts): the graph the JavaScript matcher reads, and RDKit's
   * binary form of the parsed molecule, much cheaper to read back than SMILES.
   */
  pickle: Uint8Array
  /** Null when the vault gave every property (see StructureInput.computeProperties). */
  properties: MolecularProperties | null
}

/** A molecule whose structure cannot be parsed stays browsable; this says why it was flagged. */
export interface UnparseableStructure {
  id: number
  parseError: string
}

export type ComputedStructure = ParsedStructure | UnparseableStructure

/** The longest structure text accepted: far above any real molfile, far below what hurts. */
export const maximumStructureLength = 1_000_000
