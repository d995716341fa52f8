import {
  anything,
  arrayOf,
  idOr,
  integer,
  mapOf,
  number,
  object,
  optional,
  string,
  timestamp,
  type Infer,
} from '../shape.ts'
import { person, reference } from './common.ts'

/**
 * Molecules and batches nest in each other (a batch carries its molecule, a molecule its
 * batches), so their shapes are defined together here and used by both resource modules.
 */
const moleculeMembers = {
  id: integer,
  class: optional(string),
  name: optional(string),
  synonyms: optional(arrayOf(string)),
  registration_type: optional(string),
  projects: optional(arrayOf(reference)),
  collections: optional(arrayOf(reference)),
  owner: optional(string),
  owner_id: optional(person),
  smiles: optional(string),
  cxsmiles: optional(string),
  inchi: optional(string),
  inchi_key: optional(string),
  molfile: optional(string),
  iupac_name: optional(string),
  formula: optional(string),
  molecular_weight: optional(number),
  exact_mass: optional(number),
  log_p: optional(number),
  log_d: optional(number),
  log_s: optional(number),
  heavy_atom_count: optional(integer),
  num_aromatic_rings: optional(integer),
  num_h_bond_donors: optional(integer),
  num_h_bond_acceptors: optional(integer),
  num_rotatable_bonds: optional(integer),
  num_rule_of_5_violations: optional(integer),
  topological_polar_surface_area: optional(number),
  fsp3: optional(number),
  molecule_fields: optional(mapOf(anything)),
  udfs: optional(mapOf(anything)),
  source_files: optional(arrayOf(reference)),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
}

const batchMembers = {
  id: integer,
  class: optional(string),
  name: optional(string),
  molecule_batch_identifier: optional(string),
  formula_weight: optional(number),
  batch_fields: optional(mapOf(anything)),
  owner: optional(string),
  owner_id: optional(person),
  projects: optional(arrayOf(reference)),
  salt_name: optional(string),
  solvent_of_crystallization_name: optional(string),
  stoichiometry: optional(
    object({
      core_count: optional(integer),
      salt_count: optional(integer),
      solvent_of_crystallization_count: optional(integer),
    }),
  ),
  created_at: optional(timestamp),
  modified_at: optional(timestamp),
}

/** A molecule as a batch nests it (no batches of its own). */
const nestedMolecule = object(moleculeMembers)
export type NestedMolecule = Infer<typeof nestedMolecule>

/** A batch as a molecule nests it (no molecule of its own). */
const nestedBatch = object(batchMembers)
export type NestedBatch = Infer<typeof nestedBatch>

export const molecule = object({
  ...moleculeMembers,
  /** Batch objects, or batch ids with only_batch_ids. */
  batches: optional(arrayOf(idOr(nestedBatch))),
})
export type Molecule = Infer<typeof molecule>

export const batch = object({
  ...batchMembers,
  /** The molecule, or only its id with only_molecule_ids. */
  molecule: optional(idOr(nestedMolecule)),
})
export type Batch = Infer<typeof batch>
