import { z } from 'zod'
import type {
  PlateQualityAnswer,
  RunPlatesQualityAnswer,
  SampleFormAnswer,
} from '../../services/plates-service.ts'
import type { BatchResolution } from '../../../src-common/plates/well-list.ts'
import { wellListLimits } from '../../../src-common/plates/well-list.ts'
import { connectionIdSchema, vaultIdSchema } from '../records/arguments.ts'
import type { PlatesChannel } from './channels.ts'

export type { PlateQualityAnswer, RunPlatesQualityAnswer, SampleFormAnswer }
export type { BatchMatch, BatchResolution } from '../../../src-common/plates/well-list.ts'
export type {
  LocationPlaces,
  SampleFieldDefinition,
} from '../../../src-common/plates/sample-placement.ts'
export type {
  PendingMark,
  PlateReadout,
  PlateReadoutValues,
  PlateStatisticsFigures,
  PlateSummary,
} from '../../store/plate-queries.ts'
export type {
  PlateRowMarks,
  PlateWellColumns,
  PlateWellValue,
} from '../../../src-common/plates/well-columns.ts'
export type {
  GroupStatistics,
  LineMean,
  Measure,
  PlateFlag,
  PlateQualityThresholds,
  WellExclusion,
  WellGroup,
} from '../../../src-common/analysis/plate-quality.ts'

const idSchema = z.number().int().positive()

/** The person's flag thresholds; each left out takes the default (plate-quality.ts). */
const qualitySchema = z
  .object({
    thresholds: z
      .object({
        zPrimeWarningBelow: z.number().finite().min(-10).max(1).optional(),
        zPrimeFailureBelow: z.number().finite().min(-10).max(1).optional(),
        deviationLevels: z.array(z.number().finite().positive().max(100)).min(1).max(5).optional(),
      })
      .strict()
      .refine(
        (thresholds) =>
          thresholds.zPrimeWarningBelow === undefined ||
          thresholds.zPrimeFailureBelow === undefined ||
          thresholds.zPrimeFailureBelow <= thresholds.zPrimeWarningBelow,
        { message: "the Z' failure threshold must not be above the warning threshold" },
      )
      .optional(),
    /** The control Z compares the samples with: `+` (default) or `-`. */
    zControl: z.enum(['+', '-']).optional(),
  })
  .strict()

export const platesSchemas = {
  'plates.quality': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      plateId: idSchema,
      definitionId: idSchema.optional(),
      runId: idSchema.optional(),
      quality: qualitySchema.optional(),
    })
    .strict(),
  'plates.ofRun': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      runId: idSchema,
      definitionId: idSchema.optional(),
      quality: qualitySchema.optional(),
    })
    .strict(),
  'plates.resolveWells': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      references: z
        .array(z.string().trim().min(1).max(200))
        .max(wellListLimits.lines, `at most ${wellListLimits.lines} batch references at once`),
    })
    .strict(),
  'plates.sampleForm': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      locationId: idSchema.optional(),
    })
    .strict(),
} satisfies Record<PlatesChannel, z.ZodType>

export interface PlatesResults {
  /**
   * A plate's readouts (per run), the wells of its readout rows, and one readout's wells as
   * columns (value, control state, outlier, pending correction, deviation from its group) with
   * the plate's statistics and flag.
   */
  'plates.quality': PlateQualityAnswer
  /** A run's plates, each with its wells and statistics of one readout. */
  'plates.ofRun': RunPlatesQualityAnswer
  /**
   * Every distinct cached batch each reference of a new plate's well list names (by id, name or
   * molecule_batch_identifier), in the order asked: one is found, none unknown, more ambiguous.
   */
  'plates.resolveWells': BatchResolution[]
  /**
   * A new sample's form: the vault's sample fields, and the location's grid with the positions
   * cached and queued samples take.
   */
  'plates.sampleForm': SampleFormAnswer
}
