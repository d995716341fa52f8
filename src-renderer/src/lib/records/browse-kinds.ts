/**
 * The record kinds the browser shows, with the words and addresses it uses for them. Kinds are the
 * cache's names (`inventory_samples`); addresses use short words (`#/samples/12`).
 */
import type { IconName } from '../../components/icons.ts'
import type { SectionId } from '../sections.ts'

export const browseKinds = [
  'molecules',
  'batches',
  'protocols',
  'runs',
  'readout_rows',
  'plates',
  'inventory_samples',
  'inventory_locations',
  'eln_entries',
  'files',
] as const

export type BrowseKind = (typeof browseKinds)[number]

/**
 * The kinds browsed as lists. Locations are browsed as the inventory's tree, and files are
 * reached from the records they belong to (the vault offers no listing of files).
 */
export type ListKind = Exclude<BrowseKind, 'inventory_locations' | 'files'>

export function isListKind(kind: BrowseKind): kind is ListKind {
  return kind !== 'inventory_locations' && kind !== 'files'
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

const details: Record<BrowseKind, Omit<BrowseKindInfo, 'kind'>> = {
  molecules: {
    slug: 'molecules',
    singular: 'Molecule',
    plural: 'Molecules',
    section: 'molecules',
    icon: 'molecule',
  },
  batches: {
    slug: 'batches',
    singular: 'Batch',
    plural: 'Batches',
    section: 'batches',
    icon: 'vial',
  },
  protocols: {
    slug: 'protocols',
    singular: 'Protocol',
    plural: 'Protocols',
    section: 'assays',
    icon: 'flask',
  },
  runs: { slug: 'runs', singular: 'Run', plural: 'Runs', section: 'assays', icon: 'flask' },
  readout_rows: {
    slug: 'readout-rows',
    singular: 'Readout row',
    plural: 'Readout rows',
    section: 'assays',
    icon: 'flask',
  },
  plates: { slug: 'plates', singular: 'Plate', plural: 'Plates', section: 'plates', icon: 'plate' },
  inventory_samples: {
    slug: 'samples',
    singular: 'Sample',
    plural: 'Samples',
    section: 'inventory',
    icon: 'box',
  },
  inventory_locations: {
    slug: 'locations',
    singular: 'Location',
    plural: 'Locations',
    section: 'inventory',
    icon: 'box',
  },
  eln_entries: {
    slug: 'entries',
    singular: 'Notebook entry',
    plural: 'Notebook entries',
    section: 'notebook',
    icon: 'notebook',
  },
  files: { slug: 'files', singular: 'File', plural: 'Files', section: 'notebook', icon: 'file' },
}

export function browseKind(kind: BrowseKind): BrowseKindInfo {
  return { kind, ...details[kind] }
}

export function isBrowseKind(value: string): value is BrowseKind {
  return (browseKinds as readonly string[]).includes(value)
}

export function browseKindOfSlug(slug: string): BrowseKind | null {
  return browseKinds.find((kind) => details[kind].slug === slug) ?? null
}

export function recordHref(kind: BrowseKind, id: number): string {
  return `#/${details[kind].slug}/${id}`
}

export function listHref(kind: BrowseKind): string {
  return `#/${details[kind].slug}`
}
