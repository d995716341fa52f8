/**
 * A results table as its address holds it, so that back, forward, reload and a bookmark bring the
 * same table back: `#/results?columns=3:12,3:15&sort=3:12&order=desc&range=3:12,,1&q=VD-00`.
 * Columns are named `protocolId:definitionId` (not by position), so that a sort or a range stays on
 * its readout when other columns come and go. What cannot be read is left out, never refused: an
 * address is something a person may have typed or kept from an older version.
 */
import type {
  ResultsColumn,
  ResultsLevel,
} from '../../../../src-common/analysis/readouts/results-table.ts'

/** A column as addresses and memories name it: `protocolId:definitionId`. */
export type ColumnKey = `${number}:${number}`

export type SortDirection = 'asc' | 'desc'

export interface ResultsSort {
  column: ColumnKey | 'name'
  direction: SortDirection
}

/** A range filter on a column, inclusive, in its readout's unit; null is an open end. */
export interface ColumnRange {
  column: ColumnKey
  min: number | null
  max: number | null
}

export interface ResultsQuestion {
  level: ResultsLevel
  columns: readonly ResultsColumn[]
  sort: ResultsSort | null
  ranges: readonly ColumnRange[]
  /** Results criteria in their text form, one each (`Kinase IC50 (ADP-Glo): IC50 < 1 uM`). */
  criteria: readonly string[]
  /** The text search over the molecules' names and fields. */
  text: string
}

export const emptyQuestion: ResultsQuestion = {
  level: 'molecule',
  columns: [],
  sort: null,
  ranges: [],
  criteria: [],
  text: '',
}

/** What the main side takes (see src-main/ipc/results/contract.ts). */
export const maxColumns = 32
export const maxCriteria = 20
export const maxCriterionLength = 500
export const maxTextLength = 500

export function columnKey(column: ResultsColumn): ColumnKey {
  return `${column.protocolId}:${column.definitionId}`
}

export function columnOfKey(key: string): ResultsColumn | null {
  const match = /^(\d{1,15}):(\d{1,15})$/.exec(key.trim())
  return match ? { protocolId: Number(match[1]), definitionId: Number(match[2]) } : null
}

/** Reads the query after `#/results?`; anything unreadable is left out. */
export function parseResultsQuery(query: string): ResultsQuestion {
  const params = new URLSearchParams(query)
  const columns: ResultsColumn[] = []
  const keys = new Set<string>()
  for (const part of (params.get('columns') ?? '').split(',')) {
    const column = columnOfKey(part)
    if (!column || keys.has(columnKey(column)) || columns.length >= maxColumns) continue
    keys.add(columnKey(column))
    columns.push(column)
  }
  const sortColumn = params.get('sort')
  const sort: ResultsSort | null =
    sortColumn === 'name' || (sortColumn !== null && keys.has(sortColumn))
      ? {
          column: sortColumn as ColumnKey | 'name',
          direction: params.get('order') === 'desc' ? 'desc' : 'asc',
        }
      : null
  const ranges: ColumnRange[] = []
  for (const text of params.getAll('range')) {
    const [key = '', min = '', max = ''] = text.split(',')
    const range = { column: key as ColumnKey, min: boundOf(min), max: boundOf(max) }
    if (!keys.has(key) || range.min === undefined || range.max === undefined) continue
    if (range.min === null && range.max === null) continue
    if (range.min !== null && range.max !== null && range.min > range.max) continue
    if (ranges.some((other) => other.column === key)) continue
    ranges.push(range as ColumnRange)
  }
  const criteria = params
    .getAll('criterion')
    .map((criterion) => criterion.trim())
    .filter((criterion) => criterion !== '' && criterion.length <= maxCriterionLength)
    .slice(0, maxCriteria)
  return {
    level: params.get('level') === 'batch' ? 'batch' : 'molecule',
    columns,
    sort,
    ranges,
    criteria,
    text: (params.get('q') ?? '').slice(0, maxTextLength),
  }
}

/** A bound as written in an address: empty is an open end; undefined when it is no number. */
function boundOf(text: string): number | null | undefined {
  if (text.trim() === '') return null
  const value = Number(text)
  return Number.isFinite(value) ? value : undefined
}

/** The query of a question (empty for the empty question), in a stable order. */
export function resultsQuery(question: ResultsQuestion): string {
  const parts: [string, string][] = []
  if (question.level === 'batch') parts.push(['level', 'batch'])
  if (question.columns.length > 0) {
    parts.push(['columns', question.columns.map(columnKey).join(',')])
  }
  if (question.sort) {
    parts.push(['sort', question.sort.column])
    if (question.sort.direction === 'desc') parts.push(['order', 'desc'])
  }
  for (const range of question.ranges) {
    parts.push(['range', `${range.column},${range.min ?? ''},${range.max ?? ''}`])
  }
  for (const criterion of question.criteria) parts.push(['criterion', criterion])
  if (question.text !== '') parts.push(['q', question.text])
  return parts.map(([name, value]) => `${name}=${encodeValue(value)}`).join('&')
}

/** Colons and commas are left readable: they are allowed in an address's fragment. */
function encodeValue(value: string): string {
  return encodeURIComponent(value).replace(/%3A/gi, ':').replace(/%2C/gi, ',')
}

export const resultsPath = 'results'

/** The address of a results table (`#/results` alone for the empty one). */
export function resultsHref(question: Partial<ResultsQuestion> = {}): string {
  const query = resultsQuery({ ...emptyQuestion, ...question })
  return query === '' ? `#/${resultsPath}` : `#/${resultsPath}?${query}`
}

export function sameQuestion(first: ResultsQuestion, second: ResultsQuestion): boolean {
  return resultsQuery(first) === resultsQuery(second)
}

/** Whether two questions ask for the same rows (perhaps in another order). */
export function sameRows(first: ResultsQuestion, second: ResultsQuestion): boolean {
  return sameQuestion({ ...first, sort: null }, { ...second, sort: null })
}

/** The question with `columns` instead, keeping the sort and ranges of columns still there. */
export function withColumns(
  question: ResultsQuestion,
  columns: readonly ResultsColumn[],
): ResultsQuestion {
  const kept = new Set(columns.map(columnKey))
  const sort = question.sort
  return {
    ...question,
    columns: columns.slice(0, maxColumns),
    sort: sort && (sort.column === 'name' || kept.has(sort.column)) ? sort : null,
    ranges: question.ranges.filter((range) => kept.has(range.column)),
  }
}

/** The question with the range of one column set (null: cleared). */
export function withRange(
  question: ResultsQuestion,
  column: ColumnKey,
  range: { min: number | null; max: number | null } | null,
): ResultsQuestion {
  const others = question.ranges.filter((existing) => existing.column !== column)
  const set = range !== null && (range.min !== null || range.max !== null)
  const ranges = set ? [...others, { column, ...range }] : others
  // In the columns' order, so that one table has one address however it was reached.
  const order = question.columns.map(columnKey)
  ranges.sort((first, second) => order.indexOf(first.column) - order.indexOf(second.column))
  return { ...question, ranges }
}
