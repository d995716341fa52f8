import {
  browseKind,
  browseKindOfSlug,
  isListKind,
  listHref,
  type BrowseKind,
  type ListKind,
} from '../records/browse-kinds.ts'
import { matchOf, type StructureMatch } from '../records/structure-match.ts'
import {
  parseResultsQuery,
  resultsHref,
  resultsPath,
  type ResultsQuestion,
} from '../results/results-address.ts'
import {
  isSectionId,
  sectionById,
  type Section,
  type SectionId,
  type SectionViewId,
} from '../sections.ts'

export type { StructureMatch }

export type Route =
  /** A section, showing one of its lists (none for the outbox). */
  | { kind: 'section'; section: SectionId; list: ListKind | null }
  | { kind: 'record'; record: BrowseKind; id: number; match?: StructureMatch }
  /** A results table of the assays, its columns, order and filters in the address. */
  | { kind: 'results'; question: ResultsQuestion }
  /** The vault's saved searches; `run`: the one run offline, by name, as a list. */
  | { kind: 'savedSearches'; run: string | null }
  /** A notebook entry written offline, named by the outbox item creating it. */
  | { kind: 'draft'; item: number }
  | { kind: 'gallery' }
  | { kind: 'unknown'; hash: string }

export const defaultSection: SectionId = 'molecules'

function sectionRoute(section: SectionId): Route {
  return { kind: 'section', section, list: sectionById(section).lists[0] ?? null }
}

/**
 * Routes live in the URL's hash, which works the same from file:// and http://: `#/batches` (a
 * section), `#/runs` (one of a section's lists), `#/molecules/12` (one record),
 * `#/molecules/12?substructure=c1ccccc1` (a molecule found by a substructure search),
 * `#/results?columns=3:12,3:15&sort=3:12` (a results table: see results-address.ts).
 */
export function parseRoute(hash: string): Route {
  // A query after `?` says how a record was reached (the substructure a molecule was found by).
  const [path = '', search] = hash.replace(/^#\/?/, '').split(/\?(.*)/s, 2)
  if (path === '') return sectionRoute(defaultSection)
  if (path === 'gallery') return { kind: 'gallery' }
  if (path === resultsPath) return { kind: 'results', question: parseResultsQuery(search ?? '') }
  if (path === savedSearchesPath) return { kind: 'savedSearches', run: runOf(search ?? '') }
  if (isSectionId(path)) return sectionRoute(path)
  const draft = /^entries\/new\/(\d{1,15})$/.exec(path)
  if (draft) return { kind: 'draft', item: Number(draft[1]) }
  const [slug = '', id, ...rest] = path.split('/')
  const kind = browseKindOfSlug(slug)
  if (kind && id === undefined) {
    const section = browseKind(kind).section
    return isListKind(kind) && sectionById(section).lists.includes(kind)
      ? { kind: 'section', section, list: kind }
      : sectionRoute(section)
  }
  if (kind && rest.length === 0 && /^\d{1,15}$/.test(id ?? '')) {
    const match = kind === 'molecules' && search ? matchOf(search) : null
    return { kind: 'record', record: kind, id: Number(id), ...(match ? { match } : {}) }
  }
  return { kind: 'unknown', hash }
}

export function sectionHref(section: SectionId): string {
  return `#/${section}`
}

/** The address of one of a section's lists; its first list lives at the section's own address. */
export function sectionListHref(section: SectionId, kind: BrowseKind): string {
  return sectionById(section).lists[0] === kind ? sectionHref(section) : listHref(kind)
}

/** A tab of a section: one of its lists, or another of its screens. */
export interface SectionTab {
  id: ListKind | SectionViewId
  label: string
  href: string
}

const savedSearchesPath = 'saved-searches'

/** The saved searches, or (`run`, a name) one of them run offline as a list. */
export function savedSearchesHref(run?: string): string {
  return run === undefined
    ? `#/${savedSearchesPath}`
    : `#/${savedSearchesPath}?run=${encodeURIComponent(run)}`
}

/** The saved search named by `run=` in an address's query, or null. */
function runOf(query: string): string | null {
  const encoded = /(?:^|&)run=([^&]*)/.exec(query)?.[1]
  if (encoded === undefined) return null
  try {
    const run = decodeURIComponent(encoded.replace(/\+/g, ' ')).trim()
    return run === '' ? null : run
  } catch {
    return null
  }
}

const viewHrefs: Record<SectionViewId, string> = {
  results: resultsHref(),
  'saved-searches': savedSearchesHref(),
}

/** The tabs of a section: its lists, then its other screens. */
export function sectionTabs(section: Section): SectionTab[] {
  return [
    ...section.lists.map((kind) => ({
      id: kind,
      label: browseKind(kind).plural,
      href: sectionListHref(section.id, kind),
    })),
    ...section.views.map((view) => ({ id: view.id, label: view.label, href: viewHrefs[view.id] })),
  ]
}

/** The section the sidebar marks as current for a route. */
export function sectionOf(route: Route): SectionId | null {
  if (route.kind === 'section') return route.section
  if (route.kind === 'results') return 'assays'
  if (route.kind === 'savedSearches') return 'molecules'
  if (route.kind === 'record') return browseKind(route.record).section
  if (route.kind === 'draft') return 'notebook'
  return null
}

/** The current route, following the address as the person navigates or goes back. */
export class Router {
  route = $state<Route>(parseRoute(''))

  start(target: Window): () => void {
    const follow = () => (this.route = parseRoute(target.location.hash))
    follow()
    target.addEventListener('hashchange', follow)
    return () => target.removeEventListener('hashchange', follow)
  }
}
