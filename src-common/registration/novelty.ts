/**
 * What the novelty check answers while a chemist draws: which cached (or queued) molecules the
 * drawn structure is, in the three senses the vault's duplicate check cares about. Shared by the
 * chemistry service that computes it, the registration dialog that shows it and the CLI.
 */

/**
 * How a known molecule relates to the drawn structure: the very structure (full InChIKey), the
 * same skeleton with other stereo (first InChIKey block), or the same parent once salts and
 * solvents are removed from both.
 */
export const noveltyRelations = ['same-structure', 'other-stereo', 'same-parent'] as const
export type NoveltyRelation = (typeof noveltyRelations)[number]

export const noveltyRelationLabels: Record<NoveltyRelation, string> = {
  'same-structure': 'Same structure',
  'other-stereo': 'Same skeleton, other stereo',
  'same-parent': 'Same parent without salts or solvents',
}

export interface NoveltyMatch {
  relation: NoveltyRelation
  /** The molecule's server id; null for a molecule registered offline and not yet sent. */
  id: number | null
  /** The outbox item creating it, for a molecule registered offline. */
  pendingItem: number | null
  name: string
  /** Its structure as cached (canonical SMILES where computed), for drawing it. */
  smiles: string | null
}

/** The drawn structure as the check read it. */
export interface NoveltyInput {
  canonicalSmiles: string
  inchiKey: string
  /** The first block of the InChIKey: connectivity without stereo. */
  skeletonKey: string
  /** The parent: the structure without the fragments recognised as salts or solvents. */
  parentSmiles: string
  /** The fragments removed to get the parent (SMILES), empty when there were none. */
  removedFragments: string[]
  formula: string
}

export type NoveltyReport =
  | {
      ok: true
      input: NoveltyInput
      /** Every match, the closest relation first, at most `limit` of each relation. */
      matches: NoveltyMatch[]
      /** How many matches of each relation there are in all (beyond those listed). */
      counts: Record<NoveltyRelation, number>
      /**
       * Cached molecules whose keys are not computed yet (their structure index is still being
       * built), so they could not be compared: the answer is complete only when this is 0.
       */
      unchecked: number
    }
  | {
      ok: false
      /** Why the structure could not be read, in words naming what is wrong. */
      error: string
    }
