import { z } from 'zod'
import { fieldValues, nonEmptyText, projectRef, serverId } from './common.ts'

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
