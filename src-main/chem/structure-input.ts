import type { MolecularProperties } from '../../src-common/chem/molecular-properties.ts'

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

/**
 * The details computed after the search index (structure-details.ts), as bits of
 * `ParsedStructure.pendingDetails`: they cost more than everything searches need put together.
 * `parent` (the structure without salts and solvents, parent-structure.ts) is pending only for
 * structures of several fragments: one fragment is its own parent, stored with the index.
 */
export const structureDetail = { inchiKey: 1, properties: 2, parent: 4 } as const

/** What a worker computes for a molecule it could parse. */
export interface ParsedStructure {
  id: number
  parseError: null
  canonicalSmiles: string
  /**
   * The vault's, else RDKit's; null when InChI cannot describe the structure (query atoms), or
   * while it is still pending.
   */
  inchiKey: string | null
  patternFingerprint: Uint8Array
  morganFingerprint: Uint8Array
  /**
   * The molecule blob (molecule-blob.ts): the graph the JavaScript matcher reads, and RDKit's
   * binary form of the parsed molecule, much cheaper to read back than SMILES.
   */
  pickle: Uint8Array
  /** Null when the vault gave every property (see StructureInput.computeProperties) or pending. */
  properties: MolecularProperties | null
  /** The `structureDetail` bits still to compute: 0 once the InChIKey and properties are in. */
  pendingDetails: number
}

/** A molecule whose structure cannot be parsed stays browsable; this says why it was flagged. */
export interface UnparseableStructure {
  id: number
  parseError: string
}

export type ComputedStructure = ParsedStructure | UnparseableStructure

/** A molecule whose details are pending, by its slot (whose blob never changes). */
export interface DetailsInput {
  id: number
  slot: number
  /** The `structureDetail` bits to compute. */
  wanted: number
}

export interface ComputedDetails {
  id: number
  slot: number
  /** The bits this answers: every wanted one, also when its value is null. */
  computed: number
  /** Null when InChI cannot describe the structure, or when not wanted. */
  inchiKey: string | null
  /** Null when not wanted. */
  properties: MolecularProperties | null
  /** The parent's canonical SMILES; null when not wanted or when it could not be computed. */
  parentSmiles: string | null
  /** Why nothing could be computed, when the pickle could not be read. */
  problem?: string
}

/** The longest structure text accepted: far above any real molfile, far below what hurts. */
export const maximumStructureLength = 1_000_000
