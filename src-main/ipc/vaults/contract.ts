import { z } from 'zod'
import { connectionIdSchema } from '../records/arguments.ts'
import type { VaultChannel } from './channels.ts'

export const vaultSchemas = {
  'vaults.list': z.object({ connectionId: connectionIdSchema }).strict(),
} satisfies Record<VaultChannel, z.ZodType>

/** A vault of a connection as cached: how many records of each kind, and when it was synced. */
export interface CachedVault {
  id: number
  name: string | null
  /** Cached records by kind (kinds with none are left out). */
  counts: Record<string, number>
  /** ISO time of the last complete sync of this vault, or null. */
  lastSyncAt: string | null
}

export interface VaultResults {
  /** The vaults of a connection, from its cache (never the network). */
  'vaults.list': CachedVault[]
}
