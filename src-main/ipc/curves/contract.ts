import { z } from 'zod'
import type {
  CurveColumn,
  CurvesAnswer,
  ResultsCurvesAnswer,
  RowCurves,
} from '../../services/curves-service.ts'
import { connectionIdSchema, vaultIdSchema } from '../records/arguments.ts'
import type { CurvesChannel } from './channels.ts'

export type { CurveColumn, CurvesAnswer, ResultsCurvesAnswer, RowCurves }
export type {
  CurveComparison,
  CurveSeries,
  CurveVerdict,
  DrawnCurve,
  FittedPoint,
  LocalFit,
} from '../../store/curve-fits.ts'
export type {
  CurveCalculation,
  CurvePoint,
  CurveReadout,
  VaultFit,
} from '../../store/curve-queries.ts'

const idSchema = z.number().int().positive()

export const curvesSchemas = {
  'curves.ofProtocol': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      protocolId: idSchema,
      batchId: idSchema.optional(),
      seriesId: idSchema.optional(),
      offset: z.number().int().min(0).optional(),
      /**
       * Series per answer (200 unless given): a page of small multiples, each series with its
       * points. `total` says how many there are; a window pages through a large protocol rather
       * than taking thousands of series, with their points, in one answer.
       */
      limit: z.number().int().min(1).max(1000).default(200),
      /** `potency`: pages cut from the series ordered by IC50, lowest first (see the service). */
      sort: z.enum(['run', 'potency']).optional(),
    })
    .strict(),
  'curves.ofBatch': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      batchId: idSchema,
      protocolId: idSchema.optional(),
    })
    .strict(),
  'curves.ofResults': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      level: z.enum(['molecule', 'batch']),
      /** The molecules or batches of the rows in view (a screenful, not the whole table). */
      subjectIds: z.array(idSchema).max(500),
      /** The table's readout columns, in order: the "Curve" columns are placed after them. */
      columns: z
        .array(z.object({ protocolId: idSchema, definitionId: idSchema }).strict())
        .max(200),
    })
    .strict(),
} satisfies Record<CurvesChannel, z.ZodType>

export interface CurvesResults {
  /**
   * A protocol's data series (or one batch's, one series, a page), each with its points, the
   * local fit (parameters with standard errors, IC50 with its 95% interval, R², the reason when
   * there is no curve), the vault's own fit, how they compare, and which curve to draw.
   */
  'curves.ofProtocol': CurvesAnswer
  /** Every data series of a batch, across protocols (or in one), answered as `ofProtocol`. */
  'curves.ofBatch': CurvesAnswer
  /**
   * The "Curve" columns of a results table (a dose-response calculation of a chosen readout's
   * protocol each) and, for each row asked and column, its series (a batch's, or every batch's of
   * a molecule, as their pages show them): the median IC50 and a few series to draw, the one with
   * the median IC50 first.
   */
  'curves.ofResults': ResultsCurvesAnswer
}
