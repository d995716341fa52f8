/**
 * Chemistry from the cache: depictions, computed properties, the structure index's state, and the
 * vault's own (online only) deep-learning tools. Structure search itself is `records.list` with
 * `structure` and `properties` (see records/contract.ts).
 *
 * A molecule whose structure cannot be parsed stays browsable: `records.list` and `records.get`
 * give its record unchanged, `chem.depict` answers `{kind: 'unparseable', reason}`, and structure
 * searches skip it and count it in `structure.skippedUnparseable`.
 */
import { z } from 'zod'
import type { MolecularPropertyName } from '../../../src-common/chem/molecular-properties.ts'
import type { NoveltyReport } from '../../../src-common/registration/novelty.ts'
import type { ChemChannel } from './channels.ts'
import {
  connectionIdSchema,
  drawnStructureSchema,
  recordIdSchema,
  vaultIdSchema,
} from '../records/arguments.ts'
import type {
  Depiction,
  MoleculeProperties,
  QueryDepiction,
  ServerToolResult,
  StructureIndexState,
} from '../../services/chem-results.ts'

export type {
  Depiction,
  MoleculeProperties,
  QueryDepiction,
  ServerToolResult,
  StructureIndexState,
} from '../../services/chem-results.ts'

/** How a structure query is written; `auto` reads it as what it looks like (SMILES or SMARTS). */
export const structureQueryLanguageSchema = z.enum(['auto', 'smiles', 'smarts', 'molfile'])
export type StructureQueryLanguage = z.infer<typeof structureQueryLanguageSchema>

/** A structure query's text: SMILES, SMARTS, a molfile (or an InChIKey for exact searches). */
export const structureTextSchema = z.string().min(1).max(100_000)

export const chemSchemas = {
  'chem.depict': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      moleculeId: recordIdSchema,
      /** `thumbnail` (160×120, the default) or `detail` (480×360). */
      size: z.enum(['thumbnail', 'detail']).optional(),
      /** Highlights the atoms this substructure query matches (a substructure hit). */
      highlight: z
        .object({ query: structureTextSchema, language: structureQueryLanguageSchema.optional() })
        .strict()
        .optional(),
    })
    .strict(),
  'chem.depictMany': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      moleculeIds: z.array(recordIdSchema).max(200),
      size: z.enum(['thumbnail']).optional(),
    })
    .strict(),
  'chem.depictQuery': z
    .object({
      text: z.string().max(100_000),
      language: structureQueryLanguageSchema.optional(),
    })
    .strict(),
  'chem.properties': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      moleculeId: recordIdSchema,
    })
    .strict(),
  'chem.indexState': z
    .object({ connectionId: connectionIdSchema, vaultId: vaultIdSchema })
    .strict(),
  'chem.serverTools': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      moleculeId: recordIdSchema,
      tool: z.enum(['bioisosteres', 'fragments', 'similar']),
    })
    .strict(),
  /** The drawn structure; an empty or unreadable one is answered `{ok: false, error}`. */
  'chem.novelty': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      structure: drawnStructureSchema,
    })
    .strict(),
} satisfies Record<ChemChannel, z.ZodType>

/**
 * The properties computed locally, under the engine's names (the vault's molecule fields, in the
 * same order: heavy_atom_count, num_aromatic_rings, num_h_bond_acceptors, num_h_bond_donors,
 * num_rotatable_bonds, num_rule_of_5_violations, molecular_weight, exact_mass, log_p,
 * topological_polar_surface_area).
 */
export type PropertyName = MolecularPropertyName

export interface ChemResults {
  /** A cached depiction, renewed when the structure changes; highlighted ones are drawn fresh. */
  'chem.depict': Depiction
  /** Thumbnails of a list page in one round trip, by molecule id; ids the cache does not hold are left out. */
  'chem.depictMany': Record<string, Depiction>
  /** Draws and validates what a person types; never an error for bad structure text. */
  'chem.depictQuery': QueryDepiction
  'chem.properties': MoleculeProperties
  'chem.indexState': StructureIndexState
  /**
   * Online only. Errors: `offline` when the API cannot be reached, `forbidden` when the vault does
   * not have the deep-learning feature (or the token may not use it), `not_found` for a molecule
   * not cached, `invalid_argument` when the server refuses the structure.
   */
  'chem.serverTools': { results: ServerToolResult[] }
  /**
   * Which cached or queued molecules the drawn structure already is (same structure, other
   * stereo, same parent without salts and solvents), for the registration dialog while drawing.
   * Errors: `not_found` for a vault not cached.
   */
  'chem.novelty': NoveltyReport
}
