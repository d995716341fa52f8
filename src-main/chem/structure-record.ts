import type { MolecularProperties } from '../../src-common/chem/molecular-properties.ts'
import type { ComputedStructure } from './structure-input.ts'

/** What the index keeps (and the repository stores) per molecule. */
export type StructureRecord = ComputedStructure & {
  /** Of the structure text and the engine that computed the rest: equal hashes, nothing to redo. */
  contentHash: string
  /** The properties the vault gave; they win over the computed ones. */
  knownProperties: Partial<MolecularProperties>
}
