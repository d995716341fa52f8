/**
 * How a structure query is written. `auto` reads a molfile as a molfile and anything with
 * SMARTS-only syntax as SMARTS, else tries SMILES, then SMARTS: whatever a chemist types into the
 * query box means what it looks like.
 */
export const queryLanguages = ['auto', 'smiles', 'smarts', 'molfile'] as const

export type QueryLanguage = (typeof queryLanguages)[number]

export type ResolvedQueryLanguage = Exclude<QueryLanguage, 'auto'>

export interface SubstructureQuery {
  text: string
  language: QueryLanguage
  /** Match tetrahedral and double-bond stereo when the query specifies it (RDKit's useChirality). */
  useChirality: boolean
}

const inchiKeyPattern = /^[A-Z]{14}-[A-Z]{10}-[A-Z]$/

export function isInchiKey(text: string): boolean {
  return inchiKeyPattern.test(text.trim())
}

export function isMolfile(text: string): boolean {
  return text.includes('M  END')
}

/**
 * Syntax that only SMARTS has: bond and logical operators, recursion, and atomic-number atoms.
 * RDKit's SMILES parser accepts some of it ("[#6]~[#7]") and reads it as something else (radicals
 * joined by an unspecified bond), so such a query must not be tried as SMILES first. A CXSMILES
 * extension (after the first space) may contain these characters and is not looked at.
 */
export function looksLikeSmarts(text: string): boolean {
  const structure = text.trim().split(/\s/, 1)[0]!
  return /[~;&!,]|\$\(|\[#/.test(structure)
}
