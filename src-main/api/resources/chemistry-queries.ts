import type { DateInput } from '../dates.ts'

/** Criteria shared by the molecule and batch query bodies (spec: Batch query body). */
export interface CollectionCriterion {
  collection_id: number
  /** Ignored for the first entry. */
  junction?: 'AND' | 'OR' | 'XOR'
  not_in?: boolean
}

export type FieldSearch =
  | { name: string; text_value: string }
  | { name: string; number_value: number }
  | { name: string; date_value: DateInput }

export type ReadoutOperator =
  '=' | '!=' | '<' | '>' | '≤' | '≥' | 'contains' | 'does not contain' | 'from'

export interface ProtocolCriterion {
  protocol_id?: number
  data_set_id?: number
  run_criterion?: 'any' | 'recent' | 'run_date' | 'run_id'
  run_id?: number
  run_after?: DateInput
  run_before?: DateInput
  since_days_ago?: number
  readout_definition_id?: number
  operator?: ReadoutOperator
  readout_value?: string
  readout_value_maximum?: string
  calculation_error_type?: string
  criterion_type?: 'data set or protocol' | 'run date' | 'protocol field'
  field?: string
  query?: string
  protocol_condition_ids?: number[]
  negated?: boolean
  junction?: 'AND' | 'OR'
}

type Bounds<Name extends string> = { [K in `${Name}_minimum` | `${Name}_maximum`]?: number }

/** Property bounds; properties of different registration types cannot be mixed in one request. */
export type StructureCriterion = Bounds<
  | 'heavy_atom_count'
  | 'num_aromatic_rings'
  | 'num_h_bond_acceptors'
  | 'num_h_bond_donors'
  | 'num_rotatable_bonds'
  | 'num_rule_of_5_violations'
  | 'cd_molweight'
  | 'exact_mass'
  | 'log_p'
  | 'log_d'
  | 'log_s'
  | 'topological_polar_surface_area'
>

/** Members common to the batch and molecule query bodies; paging is added by the client. */
export interface ChemistryQueryFilters {
  batch_fields?: string[]
  molecule_fields?: string[]
  created_after?: DateInput
  created_before?: DateInput
  modified_after?: DateInput
  modified_before?: DateInput
  molecule_created_after?: DateInput
  molecule_created_before?: DateInput
  molecule_batch_identifier?: string
  collection_criteria?: CollectionCriterion[]
  data_sets?: number[]
  projects?: number[]
  fields_search?: FieldSearch[]
  protocol_criteria?: ProtocolCriterion[]
  structure_criterion?: StructureCriterion
  include_original_structures?: boolean
  no_structures?: boolean
  owner_id?: boolean
}
