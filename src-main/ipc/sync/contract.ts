import { z } from 'zod'
import type { ConnectionSyncState } from '../../shared/sync-status.ts'
import { connectionIdSchema } from '../records/arguments.ts'
import type { SyncChannel } from './channels.ts'

export const syncSchemas = {
  'sync.start': z.object({ connectionId: connectionIdSchema.optional() }).strict(),
  'sync.cancel': z.object({ connectionId: connectionIdSchema.optional() }).strict(),
  'sync.state': z.object({}).strict(),
  'sync.settings': z.object({}).strict(),
  'sync.configure': z
    .object({
      intervalMinutes: z
        .number()
        .int()
        .min(1)
        .max(24 * 60),
    })
    .strict(),
} satisfies Record<SyncChannel, z.ZodType>

export interface SyncSettings {
  /** The scheduler syncs every connection this often (and at start and on reconnect). */
  intervalMinutes: number
}

export interface SyncResults {
  /**
   * Starts a sync now of one connection, or of all; answers at once (progress comes as
   * `sync.progress` and `sync.changed` events). A connection already syncing keeps its run.
   */
  'sync.start': { connectionIds: string[] }
  /** Stops running syncs; what was committed stays, and the next sync resumes from there. */
  'sync.cancel': { connectionIds: string[] }
  'sync.state': ConnectionSyncState[]
  'sync.settings': SyncSettings
  'sync.configure': SyncSettings
}
