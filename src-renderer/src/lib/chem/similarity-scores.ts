import type { StructureSearchInfo } from '../bridge.ts'

/** No scores: a list that is not a similarity search. */
export const noScores: ReadonlyMap<number, number> = new Map()

/** `base` with the scores of one more page of a similarity search (by molecule id). */
export function withScores(
  base: ReadonlyMap<number, number>,
  search: StructureSearchInfo | null | undefined,
): ReadonlyMap<number, number> {
  const entries = Object.entries(search?.scores ?? {})
  if (entries.length === 0) return base
  const scores = new Map(base)
  for (const [id, score] of entries) scores.set(Number(id), score)
  return scores
}
