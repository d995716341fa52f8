import { z } from 'zod'
import { nonEmptyText, recordRef, serverId } from './common.ts'

export const newCollection = z
  .object({
    name: nonEmptyText,
    molecules: z.array(serverId).optional(),
    class: z.enum(['user collection', 'vault collection']).optional(),
  })
  .strict()
export type NewCollection = z.infer<typeof newCollection>

export const collectionAddition = z
  .object({
    collection: recordRef,
    molecules: z.array(serverId).min(1, 'name at least one molecule to add'),
  })
  .strict()
export type CollectionAddition = z.infer<typeof collectionAddition>
