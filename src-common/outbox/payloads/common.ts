import { z } from 'zod'
import type { RecordRef } from '../record-ref.ts'

/** Server ids are positive whole numbers. */
export const serverId = z.int().positive()

/** A record by its server id, or (created offline) by the item that creates it. */
export const recordRef = z.union([
  z.object({ id: serverId }).strict(),
  z.object({ item: serverId }).strict(),
]) satisfies z.ZodType<RecordRef>

/** Projects are named in write bodies by id or by name. */
export const projectRef = z.union([serverId, z.string().trim().min(1)])

export const nonEmptyText = z.string().trim().min(1)

/** Values of vault-defined fields (molecule, batch, ELN and sample fields). */
export const fieldValues = z.record(z.string().min(1), z.union([z.string(), z.number(), z.null()]))
