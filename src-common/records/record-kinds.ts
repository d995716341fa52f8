/**
 * The registry of record kinds: every declaration of `kinds/`, checked once when it loads, and the
 * views the rest of the app derives from them (what a list may sort and filter on, addresses,
 * titles, labels). A new kind is a new declaration in a file of `kinds/`, listed below.
 */
import { assayKinds } from './kinds/assays.ts'
import { inventoryKinds } from './kinds/inventory.ts'
import { notebookKinds } from './kinds/notebook.ts'
import { plateKinds } from './kinds/plates.ts'
import { referenceKinds } from './kinds/reference.ts'
import { registryKinds } from './kinds/registry.ts'
import {
  frameColumns,
  type BrowseDeclaration,
  type KindDeclaration,
  type ListDeclaration,
} from './kind-declaration.ts'
import type { PendingMark } from '../outbox/pending-mark.ts'
import { toId, type JsonObject } from '../values.ts'
import type { RecordRow } from './record-row.ts'
import { recordRowOf } from './row-of.ts'

const declared = [
  ...referenceKinds,
  ...registryKinds,
  ...assayKinds,
  ...plateKinds,
  ...inventoryKinds,
  ...notebookKinds,
] as const

type Declared = (typeof declared)[number]

export type RecordKindName = Declared['name']

/** Kinds with pages in the window. */
export type BrowseKindName = Extract<Declared, { browse: object }>['name']

/** Kinds browsed as lists (the others are reached through the records they belong to). */
export type ListKindName = Extract<Declared, { browse: { list: object } }>['name']

export type RecordKindDeclaration = KindDeclaration<RecordKindName>

/** Every kind, in the order of their codes. */
export const kindDeclarations: readonly RecordKindDeclaration[] = [...declared].sort(
  (a, b) => a.code - b.code,
)

export const recordKindNames: readonly RecordKindName[] = kindDeclarations.map((kind) => kind.name)

const byName = new Map<string, RecordKindDeclaration>(
  kindDeclarations.map((kind) => [kind.name, kind]),
)

export function isRecordKindName(value: unknown): value is RecordKindName {
  return typeof value === 'string' && byName.has(value)
}

/** The declaration of a kind; an unknown name is an error that lists the known ones. */
export function kindDeclaration(name: string): RecordKindDeclaration {
  const kind = byName.get(name)
  if (!kind) {
    throw new Error(`Unknown record kind "${name}". Known kinds: ${recordKindNames.join(', ')}.`)
  }
  return kind
}

/** A record as a typed row of its kind, its columns read by the kind's declared readers. */
export function rowOfKind<Name extends RecordKindName>(
  name: Name,
  record: JsonObject,
  pending?: PendingMark,
): RecordRow<Name> {
  return recordRowOf(kindDeclaration(name) as KindDeclaration<Name>, record, pending)
}

/** Columns a list of the kind may be sorted by: the frame's and the declared sortable ones. */
export function sortableColumns(kind: KindDeclaration): string[] {
  return [
    'name',
    'created_at',
    'modified_at',
    'id',
    ...(kind.columns ?? []).filter((column) => column.sortable).map((column) => column.name),
  ]
}

/** Columns a list of the kind may be filtered on by equality. */
export function filterableColumns(kind: KindDeclaration): string[] {
  return [
    'id',
    ...(kind.columns ?? []).filter((column) => column.filterable).map((column) => column.name),
  ]
}

/** Whether text search finds records of the kind (in its own documents or another kind's). */
export function isSearchable(kind: KindDeclaration): boolean {
  return kind.searchOf !== undefined || kind.searchedThrough !== undefined
}

/** A kind with pages in the window. */
export type BrowsedKind = RecordKindDeclaration & { readonly browse: BrowseDeclaration }

/** A kind browsed as a list. */
export type ListedKind = RecordKindDeclaration & {
  readonly browse: BrowseDeclaration & { readonly list: ListDeclaration }
}

export const browsedKinds: readonly BrowsedKind[] = kindDeclarations.filter(
  (kind): kind is BrowsedKind => kind.browse !== undefined,
)

export const listedKinds: readonly ListedKind[] = browsedKinds.filter(
  (kind): kind is ListedKind => kind.browse.list !== undefined,
)

export function browsedKindOfSlug(slug: string): BrowsedKind | null {
  return browsedKinds.find((kind) => kind.browse.slug === slug) ?? null
}

export function recordHref(kind: BrowsedKind, id: number): string {
  return `#/${kind.browse.slug}/${id}`
}

export function listHref(kind: BrowsedKind): string {
  return `#/${kind.browse.slug}`
}

/** How a record is named wherever it appears: its title, or its kind and id. */
export function recordTitle(kind: KindDeclaration, record: JsonObject): string {
  const title = kind.titleOf ? kind.titleOf(record) : (kind.nameOf?.(record) ?? record.name)
  if (typeof title === 'string' && title.trim() !== '') return title
  return `${kind.singular} ${toId(record.id) ?? ''}`.trim()
}

/** "Readout rows" for `readout_rows`; a kind this version does not know is named from its key. */
export function kindLabel(name: string): string {
  const kind = byName.get(name)
  if (kind) return kind.plural
  const words = name.replaceAll('_', ' ').trim()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** Every reference between declarations resolves, and codes and names are unique. */
function checkDeclarations(): void {
  const problems: string[] = []
  const codes = new Set<number>()
  const pullOrders = new Set<number>()
  const slugs = new Set<string>()
  const columnsOf = (kind: KindDeclaration) => [
    ...frameColumns,
    ...(kind.columns ?? []).map((column) => column.name),
  ]
  for (const kind of kindDeclarations) {
    if (!Number.isInteger(kind.code) || kind.code < 1 || kind.code > 63) {
      problems.push(`${kind.name}: code ${kind.code} is not an integer from 1 to 63`)
    }
    if (codes.has(kind.code)) problems.push(`${kind.name}: code ${kind.code} is taken`)
    codes.add(kind.code)
    if (kind.browse) {
      if (slugs.has(kind.browse.slug)) problems.push(`${kind.name}: slug is taken`)
      slugs.add(kind.browse.slug)
    }
    const own = columnsOf(kind)
    for (const column of kind.columns ?? []) {
      if (column.linksTo !== undefined && !byName.has(column.linksTo)) {
        problems.push(`${kind.name}.${column.name} links to unknown kind ${column.linksTo}`)
      }
    }
    if (kind.pull) {
      if (pullOrders.has(kind.pull.order)) problems.push(`${kind.name}: pull order is taken`)
      pullOrders.add(kind.pull.order)
      if (kind.pull.carries !== undefined && !byName.has(kind.pull.carries)) {
        problems.push(`${kind.name} carries unknown kind ${kind.pull.carries}`)
      }
    }
    if (kind.searchedThrough && !byName.has(kind.searchedThrough.kind)) {
      problems.push(`${kind.name} is searched through unknown kind ${kind.searchedThrough.kind}`)
    }
    if (kind.parentColumn !== undefined && !own.includes(kind.parentColumn)) {
      problems.push(`${kind.name}: parent column ${kind.parentColumn} is not a column`)
    }
    for (const link of kind.links ?? []) {
      const target = byName.get(link.kind)
      if (!target) {
        problems.push(`${kind.name} links to unknown kind ${link.kind}`)
        continue
      }
      const targetColumns = columnsOf(target)
      for (const column of [
        link.column,
        ...Object.keys(link.where ?? {}),
        link.ancestors ?? 'id',
      ]) {
        if (!targetColumns.includes(column)) {
          problems.push(`${kind.name} links to ${link.kind}.${column}, which is not a column`)
        }
      }
      for (const source of [link.from].flat()) {
        if ('own' in source && !own.includes(source.own)) {
          problems.push(`${kind.name}'s link to ${link.kind} reads its own ${source.own}`)
        }
        if ('linked' in source) {
          const linked = byName.get(source.linked)
          if (!linked || !columnsOf(linked).includes(source.column)) {
            problems.push(
              `${kind.name}'s link to ${link.kind} reads ${source.linked}.${source.column}`,
            )
          }
        }
      }
    }
    const list = kind.browse?.list
    for (const filter of list?.filters ?? []) {
      if (
        'distinct' in filter.choices &&
        !filterableColumns(kind).includes(filter.choices.distinct)
      ) {
        problems.push(`${kind.name}: filter ${filter.id} offers values of an unfilterable column`)
      }
    }
  }
  if (problems.length > 0) {
    throw new Error(`Record kind declarations are inconsistent:\n- ${problems.join('\n- ')}`)
  }
}

checkDeclarations()
