import { z } from 'zod'
import type { RecordRef } from '../outbox-item.ts'

/** Server ids are positive whole numbers. */
export const serverId = z.int().positive()

/** A record by its server id, or (created offline) by the item that creates it. */
export const recordRef = z.union([
  z.object({ id: serverId }).strict(),
  z.object({ item: serverId }).strict(),
])

/** Projects are named in write bodies by id or by name. */
export const projectRef = z.union([serverId, z.string().trim().min(1)])

export const nonEmptyText = z.string().trim().min(1)

/** Values of vault-defined fields (molecule, batch, ELN and sample fields). */
export const fieldValues = z.record(z.string().min(1), z.union([z.string(), z.number(), z.null()]))

/** The refs among `refs` that name records created offline. */
export function offlineRefs(...refs: readonly (RecordRef | undefined)[]): RecordRef[] {
  return refs.filter((ref): ref is { item: number } => ref !== undefined && 'item' in ref)
}

/** The server id of a ref, or null for a record created offline. */
export function idOf(ref: RecordRef): number | null {
  return 'id' in ref ? ref.id : null
}
