import { z } from 'zod'
import { fieldValues, recordRef, serverId } from './common.ts'

const units = z.enum(['g', 'mg', 'µg', 'kg', 'L', 'mL', 'µL', 'M', 'mM', 'µM', 'nM', 'count'])

const placement = {
  location_id: serverId.nullable().optional(),
  /** A grid position such as A01, on locations with rows and columns. */
  position: z.string().nullable().optional(),
  fields: fieldValues.optional(),
}

export const newSample = z
  .object({
    batch_id: serverId,
    units,
    /** The initial amount: the Credit event every new sample starts with. */
    amount: z.number().positive(),
    note: z.string().optional(),
    ...placement,
  })
  .strict()
export type NewSample = z.infer<typeof newSample>

/** At most one inventory event is added or changed per update (spec, Limits). */
const sampleEvent = z
  .object({
    id: serverId.optional(),
    event_type: z.enum(['Credit', 'Debit']).optional(),
    amount: z.number().positive().optional(),
    note: z.string().optional(),
  })
  .strict()
  .refine((event) => event.id !== undefined || (event.event_type && event.amount !== undefined), {
    message: 'a new event needs event_type and amount',
  })

export const sampleCorrection = z
  .object({
    sample: recordRef,
    changes: z.object({ units: units.optional(), ...placement }).strict(),
    event: sampleEvent.optional(),
  })
  .strict()
  .refine((payload) => Object.keys(payload.changes).length > 0 || payload.event !== undefined, {
    message: 'change at least one member or give an event',
  })
export type SampleCorrection = z.infer<typeof sampleCorrection>
