import { z } from 'zod'
import { nonEmptyText, projectRef, recordRef, serverId } from './common.ts'
import { isPlateSize, plateSizes } from '../../plates.ts'

const well = z
  .object({
    pos: z
      .string()
      .regex(/^[A-Za-z]{1,2}\d{1,2}$/, 'a well label such as A01')
      .optional(),
    row: z.int().positive().optional(),
    col: z.int().positive().optional(),
    batch: serverId.optional(),
    sample: serverId.optional(),
  })
  .strict()
  .refine((w) => w.pos !== undefined || (w.row !== undefined && w.col !== undefined), {
    message: 'name the well by pos (A01) or by row and col',
  })

const plateMembers = {
  size: z
    .int()
    .refine((size): boolean => isPlateSize(size), {
      message: `a plate has ${plateSizes.join(', ')} wells`,
    })
    .optional(),
  location: z.string().optional(),
  concentration: z.number().optional(),
  volume: z.number().optional(),
  /** Replaces every well of the plate. */
  wells: z.array(well).optional(),
}

export const newPlate = z
  .object({
    name: nonEmptyText,
    projects: z.array(projectRef).min(1, 'a plate needs at least one project'),
    ...plateMembers,
  })
  .strict()
export type NewPlate = z.infer<typeof newPlate>

const plateChanges = z
  .object({
    name: nonEmptyText.optional(),
    projects: z.array(projectRef).min(1).optional(),
    ...plateMembers,
  })
  .strict()
  .refine((changes) => Object.keys(changes).length > 0, { message: 'change at least one member' })

export const plateCorrection = z.object({ plate: recordRef, changes: plateChanges }).strict()
export type PlateCorrection = z.infer<typeof plateCorrection>
