import { z } from 'zod'
import { nonEmptyText, serverId } from './common.ts'

/** A field criterion of a saved search: the field by name and exactly one value to compare. */
const fieldCriterion = z.union([
  z.object({ name: nonEmptyText, text_value: z.string().min(1) }).strict(),
  z.object({ name: nonEmptyText, number_value: z.number().finite() }).strict(),
  z.object({ name: nonEmptyText, date_value: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) }).strict(),
])

/** The members of `search_criteria` the vault knows (spec: "Saved search"). */
export const savedSearchCriteria = z
  .object({
    keyword: z.string().trim().min(1).max(500).optional(),
    structure: z.string().trim().min(1).max(100_000).optional(),
    structure_search_type: z.enum(['substructure', 'exact', 'similarity']).optional(),
    structure_similarity_threshold: z.number().min(0).max(1).optional(),
    molecule_criteria: z.array(fieldCriterion).min(1).optional(),
    protocol_criteria: z
      .array(z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])))
      .min(1)
      .optional(),
  })
  .strict()
export type SavedSearchCriteria = z.infer<typeof savedSearchCriteria>

/**
 * A new saved search, as the vault's create body: a name not yet used in the vault and exactly
 * one project (spec: POST /searches answers 422 otherwise).
 */
export const newSavedSearch = z
  .object({
    name: nonEmptyText.max(255),
    projects: z.tuple([serverId], { error: 'name exactly one project' }),
    search_criteria: savedSearchCriteria,
  })
  .strict()
export type NewSavedSearch = z.infer<typeof newSavedSearch>
