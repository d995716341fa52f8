/**
 * The record kinds the window has pages for, as the renderer uses them: each kind's words, address
 * and section come from its declaration (src-common/records/kinds/). Kinds are the cache's names
 * (`inventory_samples`); addresses use short words (`#/samples/12`).
 */
import {
  browsedKinds,
  kindDeclaration,
  type BrowseKindName,
  type BrowsedKind,
  type ListKindName,
} from '../../../../src-common/records/record-kinds.ts'
import type { KindIcon, SectionId } from '../../../../src-common/records/kind-declaration.ts'
import type { IconName } from '../../components/icons.ts'

export type BrowseKind = BrowseKindName

/** The kinds browsed as lists; locations are browsed as the inventory's tree, files from records. */
export type ListKind = ListKindName

export const browseKinds: readonly BrowseKind[] = browsedKinds.map(
  (kind) => kind.name as BrowseKind,
)

/** Every icon a kind declares is one the window can draw. */
const kindIcons: Record<KindIcon, IconName> = {
  molecule: 'molecule',
  vial: 'vial',
  flask: 'flask',
  plate: 'plate',
  box: 'box',
  notebook: 'notebook',
  file: 'file',
}

export interface BrowseKindInfo {
  kind: BrowseKind
  /** The word in addresses: `#/<slug>` lists, `#/<slug>/<id>` shows one record. */
  slug: string
  singular: string
  plural: string
  /** The sidebar section a record of this kind belongs to. */
  section: SectionId
  icon: IconName
}

function declared(kind: BrowseKind): BrowsedKind {
  return kindDeclaration(kind) as BrowsedKind
}

export function browseKind(kind: BrowseKind): BrowseKindInfo {
  const { singular, plural, browse } = declared(kind)
  return {
    kind,
    slug: browse.slug,
    singular,
    plural,
    section: browse.section,
    icon: kindIcons[browse.icon],
  }
}

export function isBrowseKind(value: string): value is BrowseKind {
  return (browseKinds as readonly string[]).includes(value)
}

export function isListKind(kind: BrowseKind): kind is ListKind {
  return declared(kind).browse.list !== undefined
}

export function browseKindOfSlug(slug: string): BrowseKind | null {
  return browseKinds.find((kind) => declared(kind).browse.slug === slug) ?? null
}

export function recordHref(kind: BrowseKind, id: number): string {
  return `#/${declared(kind).browse.slug}/${id}`
}

export function listHref(kind: BrowseKind): string {
  return `#/${declared(kind).browse.slug}`
}
