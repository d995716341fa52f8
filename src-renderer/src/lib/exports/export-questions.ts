/**
 * The question a view asks, as an export takes it: the whole list or table, paging aside. It must
 * be exactly what the view asks for its pages, so that the file holds the rows the person sees;
 * the tests compare the two.
 */
import type { RequestArgs } from '../bridge.ts'
import { columnKey } from '../results/results-address.ts'
import type { RecordList } from '../state/record-list.svelte.ts'
import { scopeArgs, type ResultsTable } from '../state/results-table.svelte.ts'

type ListStart = RequestArgs<'exports.start'>
type ResultsStart = RequestArgs<'exports.startResults'>
type Chosen = 'format' | 'bom' | 'path'

export type ListExportQuestion = Omit<ListStart, Chosen | 'columns'>
export type ResultsExportQuestion = Omit<ResultsStart, Chosen>

/** A list as it is shown: searched, filtered, narrowed to the project, by structure, sorted. */
export function listExportQuestion(list: RecordList): ListExportQuestion {
  const { connectionId, vaultId, kind, projectFilter, fixedFilters } = list.options
  const filters = { ...list.filters, ...fixedFilters }
  if (projectFilter === 'project_id' && list.projectId !== null) {
    filters.project_id = list.projectId
  }
  const text = list.text.trim()
  return {
    connectionId,
    vaultId,
    kind,
    ...(text ? { text } : {}),
    ...(Object.keys(filters).length > 0 ? { filters } : {}),
    ...(projectFilter === 'projects' && list.projectId !== null
      ? { projectId: list.projectId }
      : {}),
    ...(list.structure ? { structure: list.structure } : {}),
    ...(list.properties ? { properties: list.properties } : {}),
    ...(list.sort
      ? {
          sort: list.sort.columnId,
          direction: list.sort.direction === 'ascending' ? ('asc' as const) : ('desc' as const),
        }
      : {}),
  }
}

/** A results table as it is shown: its columns, sort, ranges, criteria, search and pick. */
export function resultsExportQuestion(table: ResultsTable): ResultsExportQuestion {
  const { connectionId, vaultId } = table.options
  const { level, columns, sort, ranges, picked } = table.question
  const keys = columns.map(columnKey)
  const sortColumn =
    sort === null ? -1 : sort.column === 'name' ? 'name' : keys.indexOf(sort.column)
  return {
    connectionId,
    vaultId,
    level,
    columns: columns.map(({ protocolId, definitionId }) => ({ protocolId, definitionId })),
    ...(sort !== null && sortColumn !== -1
      ? { sort: { column: sortColumn, direction: sort.direction } }
      : {}),
    ...(ranges.length > 0
      ? {
          ranges: ranges.flatMap(({ column, min, max }) => {
            const index = keys.indexOf(column)
            if (index === -1) return []
            return [
              {
                column: index,
                ...(min !== null ? { min } : {}),
                ...(max !== null ? { max } : {}),
              },
            ]
          }),
        }
      : {}),
    ...scopeArgs(table.question, table.projectId),
    ...(picked?.ids ? { moleculeIds: [...picked.ids] } : {}),
  }
}
