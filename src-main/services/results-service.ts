/**
 * Assay results from the cache: the catalogue of protocols and readouts, searches by results
 * (criteria in the text form the CLI and the criteria builder share), and results tables. Never
 * the network; the readout index is kept by the cache writer, and how much of it is still to
 * build is said with every answer. A table's aggregates that corrections waiting in the outbox
 * change are shown recomputed with them, marked pending.
 */
import type { Catalogue } from '../../src-common/analysis/readouts/catalogue.ts'
import type { Comparison } from '../../src-common/analysis/readouts/comparisons.ts'
import { parseCriteria } from '../../src-common/analysis/readouts/criteria-text.ts'
import { utcDay, type ResultsCriterion } from '../../src-common/analysis/readouts/criteria.ts'
import type {
  ResultsColumn,
  ResultsLevel,
  ResultsPage,
} from '../../src-common/analysis/readouts/results-table.ts'
import { AppError } from '../shared/app-error.ts'
import type { ListOptions } from '../store/record-queries.ts'
import type { ReadoutIndexBacklog } from '../store/readout-index.ts'
import type { PointColumn, PointsAnswer, SubjectAggregate } from '../store/readout-queries.ts'
import type { Outbox } from '../sync/outbox/outbox.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'
import { pendingReadoutRows } from './pending-readout-rows.ts'

export interface ResultsCatalogue {
  protocols: Catalogue
  /** Readout rows and aggregates still to index (0 and 0: every answer is complete). */
  backlog: ReadoutIndexBacklog
}

/** A range filter on a column's aggregates, in the readout definition's unit, inclusive. */
export interface ResultsRange {
  column: number
  min?: number
  max?: number
}

export interface ResultsTableQuestion {
  level: ResultsLevel
  columns: readonly ResultsColumn[]
  sort?: { column: number | 'name'; direction: 'asc' | 'desc' }
  ranges?: readonly ResultsRange[]
  /** Results criteria (text form) the molecules or batches must meet. */
  criteria?: readonly string[]
  /** The molecules a list's other criteria allow (text, project, fields, filters). */
  within?: Pick<ListOptions, 'text' | 'projectId' | 'fields' | 'filters'>
  /** Only these molecules (a selection, a plot's lasso, one record page). */
  moleculeIds?: readonly number[]
  limit?: number
  offset?: number
}

export interface ResultsAnswer extends ResultsPage {
  backlog: ReadoutIndexBacklog
}

export class ResultsService {
  readonly #runtimes: ConnectionRuntimes
  /** Where corrections wait (an outlier marked offline): tables show the aggregates with them. */
  readonly #outbox: Outbox | null

  constructor(runtimes: ConnectionRuntimes, outbox: Outbox | null = null) {
    this.#runtimes = runtimes
    this.#outbox = outbox
  }

  catalogue(connectionId: string, vaultId: number): ResultsCatalogue {
    const cache = this.#runtimes.get(connectionId).cache
    return {
      protocols: cache.results().catalogue(vaultId),
      backlog: cache.readoutIndex().backlog(),
    }
  }

  /** Criteria from their text form; what is wrong with each (closest names first) refuses all. */
  criteria(connectionId: string, vaultId: number, texts: readonly string[]): ResultsCriterion[] {
    const catalogue = this.#runtimes.get(connectionId).cache.results().catalogue(vaultId)
    const parsed = parseCriteria(texts, catalogue)
    if (!parsed.ok) {
      throw new AppError('invalid_argument', parsed.errors.map((error) => error.message).join(' '))
    }
    return parsed.criteria
  }

  /**
   * The molecules (or batches) meeting criteria given in text form; a criterion on aggregates
   * counts the corrections waiting in the outbox, as the results table shows them.
   */
  matching(
    connectionId: string,
    vaultId: number,
    texts: readonly string[],
    level: ResultsLevel,
  ): readonly number[] {
    const criteria = this.criteria(connectionId, vaultId, texts)
    return this.#runtimes
      .get(connectionId)
      .cache.results()
      .matching(
        vaultId,
        criteria,
        level,
        utcDay(Date.now()),
        pendingReadoutRows(this.#outbox, connectionId, vaultId),
      )
  }

  table(connectionId: string, vaultId: number, question: ResultsTableQuestion): ResultsAnswer {
    const cache = this.#runtimes.get(connectionId).cache
    const moleculeIds = this.#scope(connectionId, vaultId, question)
    const page = cache.results().table(vaultId, {
      level: question.level,
      columns: question.columns,
      ...(question.sort ? { sort: question.sort } : {}),
      filters: (question.ranges ?? []).map(({ column, min, max }) => ({
        column,
        comparison: rangeOf(min, max),
      })),
      ...(moleculeIds ? { moleculeIds } : {}),
      pending: pendingReadoutRows(this.#outbox, connectionId, vaultId),
      ...(question.limit !== undefined ? { limit: question.limit } : {}),
      ...(question.offset !== undefined ? { offset: question.offset } : {}),
    })
    return { ...page, backlog: cache.readoutIndex().backlog() }
  }

  /** Numeric columns of every molecule in scope, for plots. */
  points(
    connectionId: string,
    vaultId: number,
    question: PointsQuestion,
  ): PointsAnswer & {
    backlog: ReadoutIndexBacklog
  } {
    const cache = this.#runtimes.get(connectionId).cache
    const moleculeIds = this.#scope(connectionId, vaultId, question)
    const answer = cache
      .results()
      .points(vaultId, { columns: question.columns, ...(moleculeIds ? { moleculeIds } : {}) })
    return { ...answer, backlog: cache.readoutIndex().backlog() }
  }

  /** Every aggregate of one molecule or batch, by protocol and readout. */
  summary(
    connectionId: string,
    vaultId: number,
    level: ResultsLevel,
    subjectId: number,
  ): SubjectAggregate[] {
    return this.#runtimes
      .get(connectionId)
      .cache.results()
      .subjectSummary(vaultId, level, subjectId)
  }

  /** The molecules a question's list criteria and results criteria allow; undefined: all. */
  #scope(
    connectionId: string,
    vaultId: number,
    question: Pick<ResultsTableQuestion, 'criteria' | 'within'> & {
      moleculeIds?: readonly number[]
    },
  ): readonly number[] | undefined {
    const cache = this.#runtimes.get(connectionId).cache
    let moleculeIds: readonly number[] | undefined = question.moleculeIds
      ? [...question.moleculeIds]
      : undefined
    const within = question.within
    if (within && Object.values(within).some((value) => value !== undefined && value !== '')) {
      const allowed = cache.ids('molecules', vaultId, within)
      moleculeIds = moleculeIds ? intersect(moleculeIds, allowed) : allowed
    }
    if (question.criteria && question.criteria.length > 0) {
      const met = this.matching(connectionId, vaultId, question.criteria, 'molecule')
      moleculeIds = moleculeIds ? intersect(moleculeIds, met) : met
    }
    return moleculeIds
  }
}

function intersect(first: readonly number[], second: readonly number[]): number[] {
  const kept = new Set(second)
  return first.filter((id) => kept.has(id))
}

export interface PointsQuestion extends Pick<ResultsTableQuestion, 'criteria' | 'within'> {
  columns: readonly PointColumn[]
}

function rangeOf(min: number | undefined, max: number | undefined): Comparison {
  if (min !== undefined && max !== undefined && min > max) {
    throw new AppError(
      'invalid_argument',
      `A range runs from its lower bound to its upper bound: ${min} is above ${max}.`,
    )
  }
  return {
    kind: 'range',
    scale: 'number',
    lower: min === undefined ? null : { value: min, inclusive: true },
    upper: max === undefined ? null : { value: max, inclusive: true },
  }
}
