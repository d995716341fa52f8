import { z } from 'zod'
import type {
  RegistrationForm,
  RegistrationRequest,
  RegistrationResult,
} from '../../../src-common/registration/form.ts'
import { connectionIdSchema, drawnStructureSchema, vaultIdSchema } from '../records/arguments.ts'
import type { RegistrationChannel } from './channels.ts'

export type {
  RegistrationField,
  RegistrationFieldType,
  RegistrationForm,
  RegistrationProblem,
  RegistrationRequest,
  RegistrationResult,
  StructureText,
} from '../../../src-common/registration/form.ts'

const moleculeId = z.number().int().positive()
const fieldValues = z.record(
  z.string().min(1),
  z.union([z.string().max(10_000), z.number(), z.null()]),
)

/** The shape of a request; what it says is checked against the vault's form by the service. */
const registrationRequest = z
  .object({
    connectionId: connectionIdSchema,
    vaultId: vaultIdSchema,
    structure: drawnStructureSchema,
    name: z.string().max(1000).optional(),
    description: z.string().max(100_000).optional(),
    synonyms: z.array(z.string().min(1).max(1000)).max(1000).optional(),
    projects: z.array(z.number().int().positive()).max(1000),
    moleculeFields: fieldValues,
    batch: z
      .object({
        name: z.string().max(1000).optional(),
        saltName: z.string().max(1000).optional(),
        solventName: z.string().max(1000).optional(),
        stoichiometry: z
          .object({
            core: z.number().int().nonnegative(),
            salt: z.number().int().nonnegative(),
            solvent: z.number().int().nonnegative(),
          })
          .strict()
          .optional(),
        fields: fieldValues,
      })
      .strict()
      .optional(),
    duplicate: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('none') }).strict(),
      z.object({ kind: z.literal('new') }).strict(),
      z.object({ kind: z.literal('existing'), moleculeId }).strict(),
    ]),
  })
  .strict() satisfies z.ZodType<RegistrationRequest>

export const registrationSchemas = {
  'registration.form': z
    .object({ connectionId: connectionIdSchema, vaultId: vaultIdSchema })
    .strict(),
  'registration.queue': registrationRequest,
} satisfies Record<RegistrationChannel, z.ZodType>

export interface RegistrationResults {
  /** What registering in a vault asks for: fields, pick lists, projects, salts (from the cache). */
  'registration.form': RegistrationForm
  /** Checks a registration against the form and queues it, or names each problem. */
  'registration.queue': RegistrationResult
}
