/**
 * The question a view asks, as an export takes it: the whole list or table, paging aside, read
 * from the view's own state class, so that the file holds exactly the rows the person sees.
 */
import type { RequestArgs } from '../bridge.ts'
import type { RecordList } from '../state/record-list.svelte.ts'
import type { ResultsTable } from '../state/results-table.svelte.ts'

type ListStart = RequestArgs<'exports.start'>
type ResultsStart = RequestArgs<'exports.startResults'>
type Chosen = 'format' | 'bom' | 'path'

export type ListExportQuestion = Omit<ListStart, Chosen | 'columns'>
export type ResultsExportQuestion = Omit<ResultsStart, Chosen>

/** A list as it is shown: searched, filtered, narrowed to the project, by structure, sorted. */
export function listExportQuestion(list: RecordList): ListExportQuestion {
  return list.listQuestion()
}

/** A results table as it is shown: its columns, sort, ranges, criteria, search and pick. */
export function resultsExportQuestion(table: ResultsTable): ResultsExportQuestion {
  return table.tableQuestion()
}
