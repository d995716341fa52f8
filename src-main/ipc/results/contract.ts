import { z } from 'zod'
import type { ResultsAnswer, ResultsCatalogue } from '../../services/results-service.ts'
import { connectionIdSchema, vaultIdSchema } from '../records/arguments.ts'
import type { ResultsChannel } from './channels.ts'

export type { ResultsAnswer, ResultsCatalogue }

const idSchema = z.number().int().nonnegative()
const finite = z.number().finite()

export const resultsSchemas = {
  'results.catalogue': z
    .object({ connectionId: connectionIdSchema, vaultId: vaultIdSchema })
    .strict(),
  'results.table': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      level: z.enum(['molecule', 'batch']),
      columns: z.array(z.object({ protocolId: idSchema, definitionId: idSchema }).strict()).max(32),
      sort: z
        .object({
          column: z.union([z.literal('name'), z.number().int().min(0)]),
          direction: z.enum(['asc', 'desc']),
        })
        .strict()
        .optional(),
      ranges: z
        .array(
          z
            .object({
              column: z.number().int().min(0),
              min: finite.optional(),
              max: finite.optional(),
            })
            .strict(),
        )
        .max(32)
        .optional(),
      /** Results criteria in the text form `vault-desk find --readout` takes. */
      criteria: z.array(z.string().max(500)).max(20).optional(),
      within: z
        .object({
          text: z.string().max(500).optional(),
          projectId: z.number().int().optional(),
          fields: z.record(z.string(), z.string()).optional(),
          filters: z.record(z.string(), z.union([z.string(), z.number(), z.null()])).optional(),
        })
        .strict()
        .optional(),
      limit: z.number().int().min(0).max(1000).optional(),
      offset: z.number().int().min(0).optional(),
    })
    .strict(),
} satisfies Record<ResultsChannel, z.ZodType>

export interface ResultsResults {
  /** The vault's protocols and readout definitions, and how much of the index is still to build. */
  'results.catalogue': ResultsCatalogue
  /** A page of a results table: a row per molecule or batch, a column per chosen readout. */
  'results.table': ResultsAnswer
}
