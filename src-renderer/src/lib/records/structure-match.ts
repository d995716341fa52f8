/**
 * The substructure query a molecule was found by rides in its page's address
 * (`#/molecules/12?substructure=c1ccccc1&language=smarts`), so that its page highlights the atoms
 * the query matched, and going back and forth keeps it.
 */
import { recordHref } from './browse-kinds.ts'

export interface StructureMatch {
  query: string
  language?: 'smiles' | 'smarts'
}

/** The match in an address's query (after `?`), or null. */
export function matchOf(search: string): StructureMatch | null {
  const params = new URLSearchParams(search)
  const query = params.get('substructure')
  if (!query) return null
  const language = params.get('language')
  return language === 'smiles' || language === 'smarts' ? { query, language } : { query }
}

/** A molecule's page reached from a substructure search. */
export function matchedMoleculeHref(id: number, match: StructureMatch): string {
  const params = new URLSearchParams({ substructure: match.query })
  if (match.language) params.set('language', match.language)
  return `${recordHref('molecules', id)}?${params}`
}
