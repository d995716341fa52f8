/**
 * Results criteria in their normalized form, and their evaluation, with the meaning of the vault's
 * own protocol criteria: a criterion is met by a batch when one of its readout rows meets it (in
 * the protocol, in a run the run filter keeps, with the readout meeting the comparison, a
 * qualified value compared by its bound as the vault compares it: see `asBound`). Outliers
 * count, as in the vault's search; control wells belong to no batch. A negated criterion is met by
 * every batch that does not meet it, batches never tested included. Criteria combine left to
 * right by their junctions, without precedence (`a AND b OR c` is `(a AND b) OR c`), the first
 * junction ignored. A molecule matches when one of its batches matches the whole combination.
 *
 * "Its aggregate meets it" is a separate choice (`scope: 'aggregate'`): the batch's (or
 * molecule's) aggregate of the readout over the rows the protocol and run filter keep, as
 * `aggregates.ts` computes it, must meet the comparison.
 *
 * The normalized form is also what the SQL layer turns into a WHERE clause: ids, the run filter
 * as a day range (`runDayRange`), and a `Comparison` with bounds in the definition's unit that
 * `comparisonSql` writes for the index's cell columns.
 */
import { aggregateCells, type AggregateInput } from './aggregates.ts'
import { asBound, indexedCellOf, meetsComparison, type Comparison } from './comparisons.ts'
import type { ValueType } from './readout-value.ts'
import type { ResultRow } from './result-rows.ts'

/** Which runs a criterion looks at. Days are ISO (`2024-03-05`); `before` is exclusive. */
export type RunFilter =
  | { kind: 'any' }
  | { kind: 'dates'; onOrAfter: string | null; before: string | null }
  /** Runs on or after the day `days` days before today (0: today), as the vault's since_days_ago. */
  | { kind: 'recent'; days: number }
  | { kind: 'run'; runId: number }

export interface ReadoutTest {
  definitionId: number
  valueType: ValueType
  /** The definition's unit: numeric bounds are in it. */
  unit: string | null
  aggregation: string | null
  scope: 'any row' | 'aggregate'
  comparison: Comparison
}

export interface ResultsCriterion {
  /** How it joins the criteria before it; ignored on the first. */
  junction: 'AND' | 'OR'
  negated: boolean
  /** Null: runs of every protocol (a run date criterion). */
  protocolId: number | null
  runs: RunFilter
  /** Null: being in the protocol (and runs) is the criterion. */
  readout: ReadoutTest | null
}

export interface EvaluationContext {
  /** Today's ISO day, for recent runs: the vault counts days in UTC (`utcDay`). */
  today: string
}

const DAY_MS = 86_400_000

/** The UTC day of an instant, as ISO. */
export function utcDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10)
}

/** The ISO day `days` after (or before, when negative) the given one. */
export function addDays(day: string, days: number): string {
  return utcDay(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS)
}

/** The run days a filter keeps: `[onOrAfter, before)`, either end open when null. */
export function runDayRange(
  filter: RunFilter,
  context: EvaluationContext,
): { onOrAfter: string | null; before: string | null } {
  if (filter.kind === 'dates') return { onOrAfter: filter.onOrAfter, before: filter.before }
  if (filter.kind === 'recent')
    return { onOrAfter: addDays(context.today, -filter.days), before: null }
  return { onOrAfter: null, before: null }
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}/

function runMeets(filter: RunFilter, row: ResultRow, context: EvaluationContext): boolean {
  if (filter.kind === 'any') return true
  if (filter.kind === 'run') return row.runId === filter.runId
  const day = row.runDate !== null && ISO_DAY.test(row.runDate) ? row.runDate.slice(0, 10) : null
  if (day === null) return false
  const { onOrAfter, before } = runDayRange(filter, context)
  return (onOrAfter === null || day >= onOrAfter) && (before === null || day < before)
}

function inScope(criterion: ResultsCriterion, row: ResultRow, context: EvaluationContext): boolean {
  return (
    (criterion.protocolId === null || row.protocolId === criterion.protocolId) &&
    runMeets(criterion.runs, row, context)
  )
}

/** Whether one readout row meets a criterion (ignoring its negation and aggregate scope). */
export function rowMeets(
  criterion: ResultsCriterion,
  row: ResultRow,
  context: EvaluationContext,
): boolean {
  if (!inScope(criterion, row, context)) return false
  const test = criterion.readout
  if (test === null) return true
  const cell = row.cells.get(test.definitionId)
  return (
    cell !== undefined &&
    meetsComparison(test.comparison, asBound(indexedCellOf(cell.value, test.unit)))
  )
}

/**
 * Whether the rows of one batch (or molecule) meet a criterion, negation applied: one row
 * meeting it, or with aggregate scope their aggregate.
 */
export function subjectMeets(
  criterion: ResultsCriterion,
  rows: readonly ResultRow[],
  context: EvaluationContext,
): boolean {
  const test = criterion.readout
  let met: boolean
  if (test === null || test.scope === 'any row') {
    met = rows.some((row) => rowMeets(criterion, row, context))
  } else {
    const detail: AggregateInput[] = []
    const aggregate: AggregateInput[] = []
    for (const row of rows) {
      const cell = row.cells.get(test.definitionId)
      if (cell === undefined || !inScope(criterion, row, context)) continue
      ;(row.aggregateRow ? aggregate : detail).push({ cell, controlState: row.controlState })
    }
    const inputs = detail.some((input) => input.cell.value.kind !== 'empty') ? detail : aggregate
    const value = aggregateCells(inputs, test).value
    met =
      value.kind !== 'empty' && meetsComparison(test.comparison, indexedCellOf(value, test.unit))
  }
  return met !== criterion.negated
}

/** Whether one batch's rows match criteria combined left to right by their junctions. */
export function subjectMatches(
  criteria: readonly ResultsCriterion[],
  rows: readonly ResultRow[],
  context: EvaluationContext,
): boolean {
  let result = true
  criteria.forEach((criterion, index) => {
    const met = subjectMeets(criterion, rows, context)
    if (index === 0) result = met
    else if (criterion.junction === 'OR') result = result || met
    else result = result && met
  })
  return result
}

/** Whether a molecule matches: one of its batches (each given as its rows) matches. */
export function moleculeMatches(
  criteria: readonly ResultsCriterion[],
  batches: Iterable<readonly ResultRow[]>,
  context: EvaluationContext,
): boolean {
  for (const rows of batches) if (subjectMatches(criteria, rows, context)) return true
  return false
}
