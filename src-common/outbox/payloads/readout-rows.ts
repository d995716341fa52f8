import { z } from 'zod'
import { serverId } from './common.ts'

/** Only `value` and `outlier` of a readout may change (the spec answers 400 otherwise). */
const cellChange = z
  .object({
    value: z.union([z.number(), z.string(), z.null()]).optional(),
    outlier: z.boolean().optional(),
  })
  .strict()
  .refine((cell) => cell.value !== undefined || cell.outlier !== undefined, {
    message: 'give a value, an outlier flag, or both',
  })

export const readoutCorrection = z
  .object({
    row: serverId,
    /** Keyed by readout definition id. */
    readouts: z
      .record(z.string().regex(/^\d+$/, 'readout definition ids are whole numbers'), cellChange)
      .refine((readouts) => Object.keys(readouts).length > 0, {
        message: 'name at least one readout to correct',
      }),
  })
  .strict()

export type ReadoutCorrection = z.infer<typeof readoutCorrection>
