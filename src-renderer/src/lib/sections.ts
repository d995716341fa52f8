import { listedKinds } from '../../../src-common/records/record-kinds.ts'
import { sectionIds, type SectionId } from '../../../src-common/records/kind-declaration.ts'
import type { IconName } from '../components/icons.ts'
import type { ListKind } from './records/browse-kinds.ts'

export { sectionIds, type SectionId }

export interface Section {
  id: SectionId
  label: string
  icon: IconName
  /** One line under the title, saying what the section holds. */
  summary: string
  /** What an empty section says once a vault is connected. */
  emptyTitle: string
  emptyDetail: string
  /** The record lists the section shows, as tabs (its kinds', in their order); the first leads. */
  lists: readonly ListKind[]
  /** Screens of the section beside its lists (the results table), as tabs after them. */
  views: readonly SectionView[]
}

export type SectionViewId = 'results' | 'saved-searches'

export interface SectionView {
  id: SectionViewId
  label: string
}

const views: Partial<Record<SectionId, readonly SectionView[]>> = {
  molecules: [{ id: 'saved-searches', label: 'Saved searches' }],
  assays: [{ id: 'results', label: 'Results' }],
}

const details: Record<SectionId, Omit<Section, 'id' | 'lists' | 'views'>> = {
  molecules: {
    label: 'Molecules',
    icon: 'molecule',
    summary: 'Registered structures and their properties.',
    emptyTitle: 'No molecules yet',
    emptyDetail: 'Molecules appear here once a vault has been synced to this computer.',
  },
  batches: {
    label: 'Batches',
    icon: 'vial',
    summary: 'Physical batches of each molecule, with their fields.',
    emptyTitle: 'No batches yet',
    emptyDetail: 'Batches appear here once a vault has been synced to this computer.',
  },
  assays: {
    label: 'Assays',
    icon: 'flask',
    summary: 'Protocols, runs and their readouts.',
    emptyTitle: 'No assays yet',
    emptyDetail: 'Protocols and their runs appear here once a vault has been synced.',
  },
  plates: {
    label: 'Plates',
    icon: 'plate',
    summary: 'Plate layouts, wells and the batches in them.',
    emptyTitle: 'No plates yet',
    emptyDetail: 'Plates appear here once a vault has been synced to this computer.',
  },
  inventory: {
    label: 'Inventory',
    icon: 'box',
    summary: 'Locations, samples and amounts on hand.',
    emptyTitle: 'No inventory yet',
    emptyDetail: 'Locations and samples appear here once a vault has been synced.',
  },
  notebook: {
    label: 'Notebook',
    icon: 'notebook',
    summary: 'Electronic lab notebook entries.',
    emptyTitle: 'No notebook entries yet',
    emptyDetail: 'Entries appear here once a vault has been synced to this computer.',
  },
  outbox: {
    label: 'Outbox',
    icon: 'outbox',
    summary: 'Work waiting to be sent to the vault.',
    emptyTitle: 'Nothing waiting to be sent',
    emptyDetail:
      'Uploads, imports, notebook edits and corrections made offline wait here, safely on disk, until the vault answers again.',
  },
}

function listsOf(id: SectionId): ListKind[] {
  return listedKinds
    .filter((kind) => kind.browse.section === id)
    .map((kind) => kind.name as ListKind)
}

/** In the order the sidebar lists them. */
export const sections: readonly Section[] = sectionIds.map((id) => sectionById(id))

export function isSectionId(value: string): value is SectionId {
  return (sectionIds as readonly string[]).includes(value)
}

export function sectionById(id: SectionId): Section {
  return { id, ...details[id], lists: listsOf(id), views: views[id] ?? [] }
}
