import { z } from 'zod'
import { vaultRunFormats } from '../../../src-common/searches/vault-run.ts'
import type {
  SavedSearchProposal,
  SavedSearchRun,
  SavedSearchSaved,
  SavedSearchSummary,
  SavedSearchVaultRun,
} from '../../services/saved-searches-service.ts'
import { recordSchemas } from '../records/contract.ts'
import { connectionIdSchema, vaultIdSchema } from '../records/arguments.ts'
import type { SearchesChannel } from './channels.ts'

export type {
  SavedSearchProposal,
  SavedSearchQuestion,
  SavedSearchRun,
  SavedSearchSaved,
  SavedSearchSummary,
  SavedSearchVaultRun,
  UntranslatedPart,
} from '../../services/saved-searches-service.ts'

const searchRef = z.union([z.number().int().positive(), z.string().trim().min(1).max(500)])

/** A list's current search, as `records.list` takes it (paging and order aside). */
const searchToSave = recordSchemas['records.list'].omit({
  connectionId: true,
  vaultId: true,
  limit: true,
  offset: true,
  sort: true,
  direction: true,
})

export const searchesSchemas = {
  'searches.list': z.object({ connectionId: connectionIdSchema, vaultId: vaultIdSchema }).strict(),
  'searches.run': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      /** The saved search's id, or its name. */
      search: searchRef,
      /** Run only the translatable part of a search with untranslatable ones. */
      translatablePart: z.boolean().optional(),
    })
    .strict(),
  'searches.propose': z
    .object({ connectionId: connectionIdSchema, vaultId: vaultIdSchema, search: searchToSave })
    .strict(),
  'searches.save': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      /** Unused in the vault (checked against the cache and the outbox). */
      name: z.string().max(1000),
      /** The one project the saved search belongs to. */
      projectId: z.number().int().positive(),
      search: searchToSave,
    })
    .strict(),
  'searches.runOnVault': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      search: searchRef,
      format: z.enum(vaultRunFormats),
      /** A full path ending as the format does (`.csv`, `.sdf`, `.json`), in a folder that exists. */
      path: z.string().min(1).max(4096),
    })
    .strict(),
  'searches.cancelVaultRun': z.object({ runId: z.string().uuid() }).strict(),
} satisfies Record<SearchesChannel, z.ZodType>

export interface SearchesResults {
  /** The vault's saved searches from the cache, criteria in words, by name. */
  'searches.list': SavedSearchSummary[]
  /** The offline list question of one saved search (refused when a part does not translate). */
  'searches.run': SavedSearchRun
  /**
   * A list's current search written as a saved search: its criteria in words as the vault will
   * run them, the parts a saved search cannot hold (each with why), where the vault will answer a
   * little differently (`notes`), and the projects to choose its one project from.
   */
  'searches.propose': SavedSearchProposal
  /**
   * Checks and queues a new saved search (`search.create` in the outbox): refused (`validation`),
   * naming every problem, for a used name (in the cache or the outbox), a project the vault does
   * not have, or a part a saved search cannot hold.
   */
  'searches.save': SavedSearchSaved
  /**
   * Starts running a saved search on the vault (an export, polled, then downloaded to `path`):
   * answers its first state once the file is checked; `searches.vaultRun` events follow it.
   * Refused for a search waiting in the outbox, a vault known to be out of reach (`offline`), or
   * a path whose folder does not exist or cannot be written.
   */
  'searches.runOnVault': SavedSearchVaultRun
  /** Stops a run on the vault and removes its file; `cancelled` is false once it had ended. */
  'searches.cancelVaultRun': { cancelled: boolean }
}
