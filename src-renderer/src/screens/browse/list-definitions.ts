/**
 * What each record list shows (its columns, filters, first order, and how the project switcher
 * narrows it), as its kind's declaration says (src-common/records/kinds/).
 */
import type { FilterChoice, ListFilter } from '../../../../src-common/records/kind-declaration.ts'
import { kindDeclaration, type ListedKind } from '../../../../src-common/records/record-kinds.ts'
import type { Column, SortState } from '../../components/table/table-model.ts'
import type { CachedRecord } from '../../lib/bridge.ts'
import type { ListKind } from '../../lib/records/browse-kinds.ts'
import type { ProjectFilter } from '../../lib/state/record-list.svelte.ts'

export type { FilterChoice, ListFilter }

export interface ListDefinition {
  kind: ListKind
  columns: readonly Column<CachedRecord>[]
  sort: SortState | null
  projectFilter: ProjectFilter
  filters: readonly ListFilter[]
  searchPlaceholder: string
}

export function listDefinition(kind: ListKind): ListDefinition {
  const declaration = kindDeclaration(kind) as ListedKind
  const list = declaration.browse.list
  return {
    kind,
    columns: list.columns,
    sort: list.sort ?? null,
    projectFilter: list.projectFilter,
    filters: list.filters,
    searchPlaceholder: list.searchPlaceholder,
  }
}
