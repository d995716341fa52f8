import { z } from 'zod'
import { fieldValues, nonEmptyText, projectRef, recordRef, serverId } from './common.ts'

const moleculeChanges = z
  .object({
    name: nonEmptyText.optional(),
    description: z.string().optional(),
    synonyms: z.array(nonEmptyText).optional(),
    udfs: fieldValues.optional(),
    projects: z.array(projectRef).min(1, 'a molecule stays in at least one project').optional(),
    collections: z.array(serverId).optional(),
  })
  .strict()
  .refine((changes) => Object.keys(changes).length > 0, { message: 'change at least one member' })

export const moleculeCorrection = z
  .object({ molecule: serverId, changes: moleculeChanges })
  .strict()
export type MoleculeCorrection = z.infer<typeof moleculeCorrection>

const stoichiometry = z
  .object({
    core_count: z.int().nonnegative().optional(),
    salt_count: z.int().nonnegative().optional(),
    solvent_of_crystallization_count: z.int().nonnegative().optional(),
  })
  .strict()

const batchChanges = z
  .object({
    name: nonEmptyText.optional(),
    // An empty projects array deletes a batch on the server: never a correction.
    projects: z
      .array(projectRef)
      .min(1, 'an empty projects list would delete the batch')
      .optional(),
    salt_name: z.string().optional(),
    solvent_of_crystallization_name: z.string().optional(),
    stoichiometry: stoichiometry.optional(),
    batch_fields: fieldValues.optional(),
  })
  .strict()
  .refine((changes) => Object.keys(changes).length > 0, { message: 'change at least one member' })

export const batchCorrection = z.object({ batch: serverId, changes: batchChanges }).strict()
export type BatchCorrection = z.infer<typeof batchCorrection>

/** The ways a structure is written: exactly one of them names the new record's structure. */
const structureMembers = ['smiles', 'cxsmiles', 'molfile'] as const
// Never trimmed: a molfile's first lines (an empty title among them) are part of its format.
const structureText = z
  .string()
  .refine((text) => text.trim() !== '', { message: 'give the structure' })

function givesOneStructure(record: Partial<Record<(typeof structureMembers)[number], string>>) {
  return structureMembers.filter((member) => record[member] !== undefined).length === 1
}
const oneStructure = { message: 'give exactly one of smiles, cxsmiles or molfile' }

/** A new molecule (vaults without a registration system: `POST /molecules`). */
export const newMolecule = z
  .object({
    name: nonEmptyText,
    smiles: structureText.optional(),
    cxsmiles: structureText.optional(),
    molfile: structureText.optional(),
    description: z.string().optional(),
    synonyms: z.array(nonEmptyText).optional(),
    udfs: fieldValues.optional(),
    projects: z.array(projectRef).min(1, 'a molecule needs at least one project'),
  })
  .strict()
  .refine(givesOneStructure, oneStructure)
export type NewMolecule = z.infer<typeof newMolecule>

/**
 * How the vault treats a new batch's structure when a molecule already has it: refuse (`prompt`,
 * the default), add the batch to that molecule (`existing`), or register another (`new`).
 */
export const duplicateResolutions = ['prompt', 'existing', 'new'] as const
export type DuplicateResolution = (typeof duplicateResolutions)[number]

/** A new structure for a batch's molecule (registration vaults number the molecule). */
const newStructure = z
  .object({
    smiles: structureText.optional(),
    cxsmiles: structureText.optional(),
    molfile: structureText.optional(),
    duplicate_resolution: z.enum(duplicateResolutions),
    /** Registration vaults name a new molecule themselves; others need a name. */
    name: nonEmptyText.optional(),
  })
  .strict()
  .refine(givesOneStructure, oneStructure)
export type NewStructure = z.infer<typeof newStructure>

/**
 * A new batch (`POST /batches`) of a molecule named by server id, by the outbox item creating it,
 * or (registration vaults) of a new structure.
 */
export const newBatch = z
  .object({
    name: nonEmptyText.optional(),
    projects: z.array(projectRef).min(1, 'a batch needs at least one project'),
    salt_name: nonEmptyText.optional(),
    solvent_of_crystallization_name: nonEmptyText.optional(),
    stoichiometry: stoichiometry.optional(),
    batch_fields: fieldValues.optional(),
    molecule: z.union([recordRef, newStructure]),
  })
  .strict()
export type NewBatch = z.infer<typeof newBatch>

/** Whether a new batch's molecule is a new structure rather than a record. */
export function isNewStructure(molecule: NewBatch['molecule']): molecule is NewStructure {
  return !('id' in molecule) && !('item' in molecule)
}

/** The structure text of a new molecule or structure, and the member it is written in. */
export function structureOf(record: NewMolecule | NewStructure): {
  member: (typeof structureMembers)[number]
  text: string
} {
  for (const member of structureMembers) {
    const text = record[member]
    if (text !== undefined) return { member, text }
  }
  throw new Error('The record names no structure.')
}
