import { isSectionId, type SectionId } from '../sections.ts'

export type Route =
  { kind: 'section'; section: SectionId } | { kind: 'gallery' } | { kind: 'unknown'; hash: string }

export const defaultSection: SectionId = 'molecules'

/** Routes live in the URL's hash (`#/batches`), which works the same from file:// and http://. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, '')
  if (path === '') return { kind: 'section', section: defaultSection }
  if (path === 'gallery') return { kind: 'gallery' }
  if (isSectionId(path)) return { kind: 'section', section: path }
  return { kind: 'unknown', hash }
}

export function sectionHref(section: SectionId): string {
  return `#/${section}`
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
