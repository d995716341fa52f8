/**
 * What chemistry answers (the results of the `chem.*` channels and the structure part of
 * `records.list`), defined here so that services and the contract share them.
 */
import type { MolecularPropertyName } from '../../src-common/chem/molecular-properties.ts'
import type { QueryLanguage } from '../chem/structure-query.ts'
import type { ListOptions, RowPage } from '../store/record-queries.ts'

export type PropertyName = MolecularPropertyName

/** A molecule drawn (SVG, transparent background) or why it cannot be. */
export type Depiction =
  { kind: 'svg'; svg: string; highlighted: boolean } | { kind: 'unparseable'; reason: string }

export type QueryDepiction =
  | { kind: 'svg'; svg: string; language: 'smiles' | 'smarts' | 'molfile' }
  /** What is wrong with the text, in RDKit's words (e.g. "Not a valid SMARTS: ..."). */
  | { kind: 'invalid'; message: string }

export interface MoleculeProperties {
  /** Every property in effect: the vault's where it gave them, else computed from the structure. */
  computed: Partial<Record<PropertyName, number>>
  /** The names among them that the server gave. */
  fromServer: PropertyName[]
}

export interface StructureIndexState {
  /** Molecules whose structure is indexed (parsed or not), of `total` cached molecules. */
  indexed: number
  total: number
  /** Indexed molecules whose structure could not be parsed (flagged, skipped by searches). */
  unparseable: number
  /**
   * Indexed molecules whose InChIKey or properties are still being computed: structure searches
   * find them, property ranges and InChIKey searches not yet.
   */
  detailsPending: number
  /** Whether the index is being built or brought up to date now. */
  building: boolean
}

export interface ServerToolResult {
  smiles: string
  /** Drawn locally; null when the structure could not be drawn. */
  svg: string | null
  /** Tanimoto similarity (similar) or the model's score (bioisosteres). */
  score?: number
  /** The fragment group, the replacement, or the vault molecule's name. */
  label?: string
}

/**
 * How a structure (or property) search went. When `complete` is false the first page was answered
 * before every hit was counted: ask `records.list` again with the same arguments; the search keeps
 * running, and that answer comes when counting is done (complete: true, the exact total).
 */
export interface StructureSearchInfo {
  /** Molecule id -> Tanimoto similarity of the records of this page (similarity only). */
  scores?: Record<string, number>
  /** Molecules in scope whose structure could not be parsed, which the search skipped. */
  skippedUnparseable: number
  /**
   * Molecules in scope whose properties (for property ranges) or InChIKey (for an InChIKey
   * search) are still being computed, so the search could not judge them yet.
   */
  pendingDetails: number
  complete: boolean
  /** Present while the index is still being built: the search saw `indexed` of `total`. */
  indexing?: { indexed: number; total: number }
}

/** The structure part of a records.list question, as the contract gives it. */
export type StructureListCriterion =
  | { kind: 'substructure'; query: string; language?: QueryLanguage }
  | { kind: 'exact'; query: string }
  | { kind: 'similarity'; smiles: string; threshold?: number; top?: number }

export interface StructureListOptions extends ListOptions {
  structure?: StructureListCriterion
  properties?: Partial<Record<MolecularPropertyName, { min?: number; max?: number }>>
}

export interface StructurePage extends RowPage {
  structure: StructureSearchInfo
}
