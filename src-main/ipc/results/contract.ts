import { z } from 'zod'
import { molecularPropertyNames } from '../../../src-common/chem/molecular-properties.ts'
import type { ResultsAnswer, ResultsCatalogue } from '../../services/results-service.ts'
import type { PointsAnswer, SubjectAggregate } from '../../store/readout-queries.ts'
import { connectionIdSchema, vaultIdSchema } from '../records/arguments.ts'
import type { ResultsChannel } from './channels.ts'

export type { PointsAnswer, ResultsAnswer, ResultsCatalogue, SubjectAggregate }

const idSchema = z.number().int().nonnegative()

/** The molecules a list's criteria allow: its text, project, fields and filters. */
const withinSchema = z
  .object({
    text: z.string().max(500).optional(),
    projectId: z.number().int().optional(),
    fields: z.record(z.string(), z.string()).optional(),
    filters: z.record(z.string(), z.union([z.string(), z.number(), z.null()])).optional(),
  })
  .strict()
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
      within: withinSchema.optional(),
      moleculeIds: z.array(idSchema).max(250_000).optional(),
      limit: z.number().int().min(0).max(1000).optional(),
      offset: z.number().int().min(0).optional(),
    })
    .strict(),
  'results.points': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      columns: z
        .array(
          z.union([
            z.object({ property: z.enum(molecularPropertyNames) }).strict(),
            z.object({ protocolId: idSchema, definitionId: idSchema }).strict(),
          ]),
        )
        .min(1)
        .max(8),
      criteria: z.array(z.string().max(500)).max(20).optional(),
      within: withinSchema.optional(),
    })
    .strict(),
  'results.summary': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      level: z.enum(['molecule', 'batch']),
      id: idSchema,
    })
    .strict(),
} satisfies Record<ResultsChannel, z.ZodType>

export interface ResultsResults {
  /** The vault's protocols and readout definitions, and how much of the index is still to build. */
  'results.catalogue': ResultsCatalogue
  /** A page of a results table: a row per molecule or batch, a column per chosen readout. */
  'results.table': ResultsAnswer
  /** Numeric columns of every molecule in scope, for scatter plots and histograms. */
  'results.points': PointsAnswer & { backlog: ResultsCatalogue['backlog'] }
  /** Every aggregate of one molecule or batch, by protocol and readout (its page's summary). */
  'results.summary': SubjectAggregate[]
}
