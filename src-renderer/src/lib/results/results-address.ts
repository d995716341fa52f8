/**
 * A results table as its address holds it, so that back, forward, reload and a bookmark bring the
 * same table back: `#/results?columns=3:12,3:15&sort=3:12&order=desc&range=3:12,,1&q=VD-00`.
 * Columns are named `protocolId:definitionId` (not by position), so that a sort or a range stays on
 * its readout when other columns come and go. The plot of the same rows is `view=plot`, its
 * columns `x`, `y`, `colour`, `size` and `hist` (a readout's key or a molecular property's name,
 * `x=molecularWeight`), and the molecules picked in it, which narrow the table, `picked` (see
 * molecule-pick.ts). What cannot be read is left out, never refused: an address is something a
 * person may have typed or kept from an older version.
 */
import type {
  ResultsColumn,
  ResultsLevel,
} from '../../../../src-common/analysis/readouts/results-table.ts'
import {
  molecularPropertyNames,
  type MolecularPropertyName,
} from '../../../../src-common/chem/molecular-properties.ts'
import { picks, type MoleculePick } from './molecule-pick.ts'

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

export type ResultsView = 'table' | 'plot'

/** A plotted column: a readout of the table (`3:12`) or a molecular property (`logP`). */
export type PlotColumnKey = ColumnKey | MolecularPropertyName

export const plotAxes = ['x', 'y', 'colour', 'size', 'histogram'] as const
export type PlotAxis = (typeof plotAxes)[number]

/** The plot's columns as the person chose them; an axis not chosen takes its default. */
export type PlotChoices = Partial<Record<PlotAxis, PlotColumnKey>>

/** What each axis is called in the address. */
const axisParams: Record<PlotAxis, string> = {
  x: 'x',
  y: 'y',
  colour: 'colour',
  size: 'size',
  histogram: 'hist',
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
  /** The plot of these rows instead of the table; the table when absent. */
  view?: ResultsView
  /** The plot's chosen columns; absent while every one takes its default. */
  plot?: PlotChoices
  /** Molecules picked in the plot: the table shows only them. */
  picked?: MoleculePick
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

export function isPropertyKey(key: string): key is MolecularPropertyName {
  return (molecularPropertyNames as readonly string[]).includes(key)
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
  const plot: PlotChoices = {}
  for (const axis of plotAxes) {
    const key = params.get(axisParams[axis])?.trim() ?? ''
    if (keys.has(key) || isPropertyKey(key)) plot[axis] = key as PlotColumnKey
  }
  const pickedText = params.get('picked')?.trim() ?? ''
  const picked = pickedText === '' ? null : picks.read(pickedText)
  return {
    level: params.get('level') === 'batch' ? 'batch' : 'molecule',
    columns,
    sort,
    ranges,
    criteria,
    text: (params.get('q') ?? '').slice(0, maxTextLength),
    ...(params.get('view') === 'plot' ? { view: 'plot' as const } : {}),
    ...(Object.keys(plot).length > 0 ? { plot } : {}),
    ...(picked !== null ? { picked } : {}),
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
  if (question.view === 'plot') parts.push(['view', 'plot'])
  for (const axis of plotAxes) {
    const key = question.plot?.[axis]
    if (key !== undefined) parts.push([axisParams[axis], key])
  }
  if (question.picked) parts.push(['picked', question.picked.token])
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
  return sameTable({ ...first, sort: null }, { ...second, sort: null })
}

/** Whether two questions ask for the same table, however it is shown (a table or a plot). */
export function sameTable(first: ResultsQuestion, second: ResultsQuestion): boolean {
  return resultsQuery(tableOf(first)) === resultsQuery(tableOf(second))
}

/** The question without how it is shown. */
function tableOf(question: ResultsQuestion): ResultsQuestion {
  const { view: _view, plot: _plot, ...table } = question
  return table
}

/** The question with one plot axis chosen (null: back to its default). */
export function withPlotColumn(
  question: ResultsQuestion,
  axis: PlotAxis,
  key: PlotColumnKey | null,
): ResultsQuestion {
  const plot: PlotChoices = { ...question.plot }
  if (key === null) delete plot[axis]
  else plot[axis] = key
  const { plot: _plot, ...rest } = question
  return Object.keys(plot).length > 0 ? { ...rest, plot } : rest
}

/** The question narrowed to molecules picked in the plot (null: no longer narrowed). */
export function withPicked(
  question: ResultsQuestion,
  picked: MoleculePick | null,
): ResultsQuestion {
  const { picked: _picked, ...rest } = question
  return picked === null ? rest : { ...rest, picked }
}

/** The question shown as a table or as a plot. */
export function withView(question: ResultsQuestion, view: ResultsView): ResultsQuestion {
  const { view: _view, ...rest } = question
  return view === 'plot' ? { ...rest, view } : rest
}

/** The question with `columns` instead, keeping the sort and ranges of columns still there. */
export function withColumns(
  question: ResultsQuestion,
  columns: readonly ResultsColumn[],
): ResultsQuestion {
  const kept = new Set<string>(columns.map(columnKey))
  const sort = question.sort
  const plot = Object.fromEntries(
    Object.entries(question.plot ?? {}).filter(([, key]) => isPropertyKey(key) || kept.has(key)),
  ) as PlotChoices
  const { plot: _plot, ...rest } = question
  return {
    ...rest,
    columns: columns.slice(0, maxColumns),
    sort: sort && (sort.column === 'name' || kept.has(sort.column)) ? sort : null,
    ranges: question.ranges.filter((range) => kept.has(range.column)),
    ...(Object.keys(plot).length > 0 ? { plot } : {}),
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
