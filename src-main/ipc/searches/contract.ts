import { z } from 'zod'
import type { SavedSearchRun, SavedSearchSummary } from '../../services/saved-searches-service.ts'
import { connectionIdSchema, vaultIdSchema } from '../records/arguments.ts'
import type { SearchesChannel } from './channels.ts'

export type {
  SavedSearchQuestion,
  SavedSearchRun,
  SavedSearchSummary,
  UntranslatedPart,
} from '../../services/saved-searches-service.ts'

export const searchesSchemas = {
  'searches.list': z.object({ connectionId: connectionIdSchema, vaultId: vaultIdSchema }).strict(),
  'searches.run': z
    .object({
      connectionId: connectionIdSchema,
      vaultId: vaultIdSchema,
      /** The saved search's id, or its name. */
      search: z.union([z.number().int().positive(), z.string().trim().min(1).max(500)]),
      /** Run only the translatable part of a search with untranslatable ones. */
      translatablePart: z.boolean().optional(),
    })
    .strict(),
} satisfies Record<SearchesChannel, z.ZodType>

export interface SearchesResults {
  /** The vault's saved searches from the cache, criteria in words, by name. */
  'searches.list': SavedSearchSummary[]
  /** The offline list question of one saved search (refused when a part does not translate). */
  'searches.run': SavedSearchRun
}
