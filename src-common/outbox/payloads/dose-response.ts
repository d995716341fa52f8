import { z } from 'zod'
import { EQUATION_TYPES } from '../../analysis/dose-response/equations.ts'
import {
  readFitConstraints,
  type FitConstraints,
} from '../../analysis/dose-response/constraints.ts'
import { serverId } from './common.ts'

/**
 * New fit constraints of one dose-response data series (`PUT .../dose_response_data_series/{id}`
 * with `fit_parameters`): they replace the series' own constraints, which override its
 * calculation's (`best fit` lifts one of those). The protocol and calculation are in the path.
 * Refused before queueing, in the specification's words, where the vault would answer 422: an
 * unknown parameter for the equation, an invalid modifier, a range whose lower bound is above its
 * upper bound, a value that is not numeric. Numeric text is sent as the number it reads as.
 */
export const seriesConstraintEdit = z
  .object({
    protocol: serverId,
    calculation: serverId,
    series: serverId,
    /** The calculation's equation type: it decides which parameters may be constrained. */
    equation_type: z.enum(EQUATION_TYPES),
    /** Keyed by parameter name; an empty object clears the series' own constraints. */
    fit_parameters: z.record(z.string(), z.unknown()),
  })
  .strict()
  .superRefine((edit, context) => {
    const reading = readFitConstraints(edit.equation_type, edit.fit_parameters, 'data series')
    if (reading.ok) return
    for (const problem of reading.problems) {
      context.addIssue({ code: 'custom', message: problem, path: ['fit_parameters'] })
    }
  })

export type SeriesConstraintEdit = z.infer<typeof seriesConstraintEdit>

/** An edit's constraints as the vault reads them (numbers for numeric text); the schema checked them. */
export function constraintsOf(edit: SeriesConstraintEdit): FitConstraints {
  const reading = readFitConstraints(edit.equation_type, edit.fit_parameters, 'data series')
  if (!reading.ok) throw new Error(`Invalid fit_parameters: ${reading.problems.join('; ')}`)
  return reading.constraints
}
