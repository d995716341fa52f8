/**
 * How a record is named wherever it appears (a page title, a link, a list's preview): its name
 * where it has one, otherwise what a scientist calls it ("Run of 24 Jul 2026", "Well A03").
 */
import { formatDay } from '../format/dates.ts'
import { browseKind, type BrowseKind } from './browse-kinds.ts'
import { idOf, isRecord, linkNameOf, textOf, type RecordJson } from './record-values.ts'

export function recordTitle(kind: BrowseKind, record: RecordJson): string {
  const id = idOf(record.id)
  const fallback = `${browseKind(kind).singular} ${id ?? ''}`.trim()
  switch (kind) {
    case 'batches':
      return textOf(record.molecule_batch_identifier) ?? textOf(record.name) ?? fallback
    case 'runs': {
      const date = textOf(record.run_date)
      return date ? `Run of ${formatDay(date)}` : fallback
    }
    case 'readout_rows': {
      const well = isRecord(record.well) ? textOf(record.well.pos) : textOf(record.well)
      return well ? `${fallback} · well ${well}` : fallback
    }
    case 'inventory_locations':
      return textOf(record.value) ?? textOf(record.name) ?? fallback
    case 'inventory_samples':
      return textOf(record.name) ?? fallback
    case 'eln_entries':
      return textOf(record.name) ?? textOf(record.title) ?? fallback
    default:
      return textOf(record.name) ?? fallback
  }
}

/** The name of a linked record given as `{id, name}`, or the kind and id of a bare id. */
export function linkTitle(kind: BrowseKind, link: unknown, id: number): string {
  return linkNameOf(link) ?? `${browseKind(kind).singular} ${id}`
}
