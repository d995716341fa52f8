/**
 * What registering a compound needs to know about a vault, read from the cache (field definitions,
 * pick lists, registration forms and systems, projects), and what a person fills in. Shared by the
 * registration service, the registration dialog and the CLI's `register` command.
 */

/** The field data types the vault declares (`data_type_name`). */
export type RegistrationFieldType = 'Text' | 'Number' | 'Date' | 'Pick List' | 'Other'

export interface RegistrationField {
  id: number
  name: string
  type: RegistrationFieldType
  /** Required for a new record in this vault (registration vaults only). */
  required: boolean
  /** The allowed values of a pick list field (hidden ones left out). */
  choices: string[] | null
  /** A value must not be used by another record (the vault's unique setting). */
  unique: boolean
}

export interface RegistrationForm {
  /**
   * `registration`: the vault numbers new molecules and creates them only through a new batch
   * (`POST /batches` with a molecule member); `plain`: molecules are created by `POST /molecules`
   * with a name the person gives.
   */
  vaultKind: 'registration' | 'plain'
  /** The registration system's name and the next name it would give, where known. */
  registrationSystem: { name: string; prefix: string | null } | null
  /** The projects the person may create records in. */
  projects: { id: number; name: string }[]
  moleculeFields: RegistrationField[]
  batchFields: RegistrationField[]
  /** Salt and solvent names the vault knows, for the batch's salt_name and solvent. */
  salts: string[]
  solvents: string[]
}

/** The notations a structure may be typed, pasted or opened in. */
export const structureFormats = ['smiles', 'cxsmiles', 'molfile'] as const

/** The structure as typed, pasted or drawn. */
export interface StructureText {
  format: (typeof structureFormats)[number]
  text: string
}

export type FieldValueText = string | number | null

/**
 * One registration as the window or the CLI asks for it. `duplicate` is the person's choice
 * after the novelty check: no match was found (`none`: the vault is still asked to refuse a
 * duplicate it knows of, `duplicate_resolution: prompt`), register as a new molecule even though
 * matches exist (`new`), or add a new batch to an existing molecule (`existing`, with its id).
 */
export interface RegistrationRequest {
  connectionId: string
  vaultId: number
  structure: StructureText
  /** The molecule's name; required in plain vaults, given by the system in registration vaults. */
  name?: string
  description?: string
  synonyms?: string[]
  projects: number[]
  moleculeFields: Record<string, FieldValueText>
  /** A batch to create with it (always, in registration vaults). */
  batch?: {
    name?: string
    saltName?: string
    solventName?: string
    stoichiometry?: { core: number; salt: number; solvent: number }
    fields: Record<string, FieldValueText>
  }
  duplicate: { kind: 'none' } | { kind: 'new' } | { kind: 'existing'; moleculeId: number }
}

/** A problem with a request, named by the member it is about ('name', 'batch.fields.Purity (%)'). */
export interface RegistrationProblem {
  member: string
  message: string
}

export type RegistrationResult =
  { ok: true; items: number[] } | { ok: false; problems: RegistrationProblem[] }
