import type { BrowseKind } from '../records/browse-kinds.ts'

/** The record a page shows, where "attach to this record" sends a file dropped anywhere. */
export interface ShownRecord {
  kind: BrowseKind
  /** The server id; null for an entry written offline (named by `item`). */
  id: number | null
  item: number | null
  title: string
}

/**
 * Files dropped outside any drop zone (or chosen with the window's file picker) wait here until
 * the person says where they go: the record shown, another record, or an import.
 */
export class DropDesk {
  /** The record the page shows, when it can take files. */
  shown = $state.raw<ShownRecord | null>(null)
  /** Files waiting for the person's choice. */
  offered = $state.raw<File[] | null>(null)
  /** A file the person chose to import; the import dialog is open for it. */
  importing = $state.raw<File | null>(null)

  offer(files: readonly File[]): void {
    if (files.length > 0) this.offered = [...files]
  }

  /** Forgets the shown record when its page goes (only if it is still the one shown). */
  leave(record: ShownRecord): void {
    if (this.shown === record) this.shown = null
  }
}
