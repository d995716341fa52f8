import { z } from 'zod'
import { nonEmptyText, projectRef, serverId } from './common.ts'

const run = z
  .object({
    run_date: z.string().optional(),
    place: z.string().optional(),
    person: z.string().optional(),
    conditions: z.string().optional(),
  })
  .strict()

export const importSettings = z
  .object({
    project: projectRef,
    /** A template by id or name (the person picks it from the cache), or an inline one. */
    mapping_template: z
      .union([serverId, nonEmptyText, z.looseObject({ header_mappings: z.array(z.unknown()) })])
      .optional(),
    runs: z.union([run, z.array(run)]).optional(),
    autoreject: z.boolean().optional(),
    ambiguous_events_resolution: z.enum(['none', 'reject', 'new_molecule', 'new_batch']).optional(),
    suspicious_events_resolution: z.enum(['none', 'reject', 'accept']).optional(),
    ignore_errors: z.boolean().optional(),
  })
  .strict()
export type ImportSettings = z.infer<typeof importSettings>
