/**
 * Dose-response curves from the cache, fitted offline: each data series of a protocol (or of a
 * batch) with its points from the readout value index, fitted locally by the pure fitter beside
 * the vault's own fit, compared with it, and the curve to draw. Corrections still waiting in the
 * outbox (a well marked as an outlier, a corrected value) are applied before fitting, so that a
 * correction refits its curve at once. Reading and fitting run in the curve workers, never on the
 * main thread; each worker keeps the fits of its share of the batches with a content hash of
 * their points and constraints, and fits a series again only when they change.
 */
import {
  listNames,
  lookUpName,
  type ProtocolEntry,
} from '../../src-common/analysis/readouts/catalogue.ts'
import { AppError } from '../shared/app-error.ts'
import { silentLogger, type Logger } from '../shared/logger.ts'
import { CurveFitPool } from '../store/curve-fit-pool.ts'
import type { CurveSeries } from '../store/curve-fits.ts'
import type { CurveCalculation, CurveSelection, PendingSeriesEdit } from '../store/curve-queries.ts'
import type { ReadoutIndexBacklog } from '../store/readout-index.ts'
import type { Outbox } from '../sync/outbox/outbox.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'
import { pendingReadoutRows } from './pending-readout-rows.ts'

export type { CurveCalculation, CurveSeries }

export interface CurvesQuestion {
  /** A protocol's id, or its name (exactly, or ignoring case, `µ`/`μ` and runs of spaces). */
  protocol: number | string
  /** Only this batch's series, or only this series. */
  batchId?: number
  seriesId?: number
  /** A page of the protocol's series, in order (calculation, run, batch), or by `sort`. */
  offset?: number
  limit?: number
  /**
   * `potency`: the page is cut from the series ordered by the drawn curve's IC50, lowest first
   * (series without one last, in run order). Every series of the selection is then fitted (the
   * workers keep the fits, so the next page costs a read, not a refit).
   */
  sort?: 'run' | 'potency'
}

export interface CurvesAnswer {
  vaultId: number
  /** The protocol asked for; null for the curves of a batch across protocols. */
  protocol: { id: number; name: string } | null
  calculations: CurveCalculation[]
  /** Series in the selection (before paging). */
  total: number
  offset: number
  /** By protocol, calculation, run and batch. */
  series: CurveSeries[]
  /** Fits computed for this answer, and fits kept from before (same points and constraints). */
  fits: { computed: number; reused: number }
  /** Readout rows and aggregates still to index (0 and 0: every point is there). */
  backlog: ReadoutIndexBacklog
}

/** A readout column of a results table: one readout definition of one protocol. */
export interface ReadoutColumn {
  protocolId: number
  definitionId: number
}

/** The curves of the rows of a results table in view. */
export interface ResultsCurvesQuestion {
  level: 'molecule' | 'batch'
  /** The molecules or batches of the rows in view. */
  subjectIds: number[]
  /** The table's readout columns, in their order. */
  columns: ReadoutColumn[]
}

/** A "Curve" column of a results table: one dose-response calculation. */
export interface CurveColumn {
  calculation: CurveCalculation
  /** The readout column it stands after: its result, response or concentration readout's. */
  after: ReadoutColumn
}

/** A row's curves of one calculation: its series, the one with the median IC50 first. */
export interface RowCurves {
  subjectId: number
  calculationId: number
  /** Series of the row and calculation: a batch's, or those of every batch of a molecule. */
  total: number
  /**
   * The median of the drawn curves' IC50s (the middle one; of two middle ones, their geometric
   * mean, as potencies spread on a log scale), and how many series have one; null when none does.
   */
  potency: { median: number; count: number } | null
  /**
   * The series to draw, at most `seriesPerRowCurves`: first the one whose IC50 is the median (of
   * two middle ones, the lower), then others spread over the range of IC50s, lowest first, then
   * those without an IC50 in run order. With no IC50 at all, the first is the row's first series.
   */
  series: CurveSeries[]
}

export interface ResultsCurvesAnswer {
  vaultId: number
  /** In the table's column order; none when no chosen readout's protocol has calculations. */
  columns: CurveColumn[]
  /** Per row in view and curve column, only where the row has series. */
  rows: RowCurves[]
  fits: { computed: number; reused: number }
  backlog: ReadoutIndexBacklog
}

/** Series of one row and calculation sent to draw: a sparkline shows a few, overlaid. */
export const seriesPerRowCurves = 8

export interface CurvesServiceOptions {
  runtimes: ConnectionRuntimes
  /** Corrections waiting in it are applied before fitting. */
  outbox?: Outbox | null
  /** Curve worker threads (two by default, one on a single core). */
  workers?: number
  /**
   * Fits the workers keep to reuse while their series' points and constraints stay the same
   * (20,000 by default: a large protocol is fitted again only where it changed).
   */
  keptFits?: number
  log?: Logger
}

/** The IC50 of the curve a series draws (a Hill curve's centre); null without one. */
export function drawnPotency(series: CurveSeries): number | null {
  const drawn = series.drawn
  const centre = drawn?.equationType === 'Hill' ? drawn.parameters.ic50 : undefined
  return centre !== undefined && centre > 0 ? centre : null
}

/**
 * Which calculations get a "Curve" column, and after which readout column: each calculation after
 * the first column that is its result, response or concentration readout (in that preference);
 * a protocol whose columns are none of its calculations' readouts gets all its calculations
 * after its last column. Calculations of protocols without a column get none.
 */
export function curveColumns(
  columns: readonly ReadoutColumn[],
  calculations: readonly CurveCalculation[],
): CurveColumn[] {
  const placed = new Map<number, ReadoutColumn>()
  const readoutsOf = (calculation: CurveCalculation) =>
    [calculation.result, calculation.response, calculation.concentration].map(
      (readout) => readout?.definitionId ?? null,
    )
  for (const rank of [0, 1, 2]) {
    for (const calculation of calculations) {
      if (placed.has(calculation.id)) continue
      const definitionId = readoutsOf(calculation)[rank]
      const column = columns.find(
        (candidate) =>
          candidate.protocolId === calculation.protocolId &&
          candidate.definitionId === definitionId,
      )
      if (column) placed.set(calculation.id, column)
    }
  }
  for (const calculation of calculations) {
    const ofProtocol = columns.filter((column) => column.protocolId === calculation.protocolId)
    const matched = calculations.some(
      (other) => other.protocolId === calculation.protocolId && placed.has(other.id),
    )
    if (!matched && ofProtocol.length > 0) placed.set(calculation.id, ofProtocol.at(-1)!)
  }
  const order = (column: ReadoutColumn) =>
    columns.findIndex(
      (candidate) =>
        candidate.protocolId === column.protocolId &&
        candidate.definitionId === column.definitionId,
    )
  return calculations
    .filter((calculation) => placed.has(calculation.id))
    .map((calculation) => ({ calculation, after: placed.get(calculation.id)! }))
    .sort((a, b) => order(a.after) - order(b.after) || a.calculation.id - b.calculation.id)
}

/**
 * A row's series of one calculation made into what its sparkline draws: the median IC50, the
 * series whose IC50 it is first, then a spread of the others (see `RowCurves`).
 */
export function rowCurves(
  subjectId: number,
  calculationId: number,
  series: readonly CurveSeries[],
  limit = seriesPerRowCurves,
): RowCurves {
  const withPotency = series
    .map((entry) => ({ entry, potency: drawnPotency(entry) }))
    .filter((item): item is { entry: CurveSeries; potency: number } => item.potency !== null)
    .sort((a, b) => a.potency - b.potency || a.entry.id - b.entry.id)
  const without = series.filter((entry) => drawnPotency(entry) === null)
  const count = withPotency.length
  let potency: RowCurves['potency'] = null
  let shown: CurveSeries[]
  if (count === 0) {
    shown = without.slice(0, limit)
  } else {
    const lower = Math.floor((count - 1) / 2)
    const upper = Math.floor(count / 2)
    const median =
      lower === upper
        ? withPotency[lower]!.potency
        : Math.sqrt(withPotency[lower]!.potency * withPotency[upper]!.potency)
    potency = { median, count }
    // Evenly spread over the ordered IC50s, the extremes included, the median's place left out.
    const room = Math.min(limit - 1, count - 1)
    const others = withPotency.filter((_, index) => index !== lower)
    const picked =
      room >= others.length
        ? others
        : Array.from(
            { length: room },
            (_, index) =>
              others[room === 1 ? 0 : Math.round((index * (others.length - 1)) / (room - 1))]!,
          )
    shown = [
      withPotency[lower]!.entry,
      ...picked.map((item) => item.entry),
      ...without.slice(0, Math.max(0, limit - 1 - picked.length)),
    ]
  }
  return { subjectId, calculationId, total: series.length, potency, series: shown }
}

export class CurvesService {
  readonly #options: CurvesServiceOptions
  readonly #log: Logger
  #pool: CurveFitPool | null = null
  #closed = false

  constructor(options: CurvesServiceOptions) {
    this.#options = options
    this.#log = options.log ?? silentLogger
  }

  /** The curves of a protocol's data series (optionally one batch's, one series, or a page). */
  async ofProtocol(
    connectionId: string,
    vaultId: number,
    question: CurvesQuestion,
  ): Promise<CurvesAnswer> {
    const protocol = this.protocol(connectionId, vaultId, question.protocol)
    const byPotency = question.sort === 'potency'
    const selection: CurveSelection = {
      protocolId: protocol.id,
      ...(question.batchId !== undefined ? { batchId: question.batchId } : {}),
      ...(question.seriesId !== undefined ? { seriesId: question.seriesId } : {}),
      ...(question.offset !== undefined && !byPotency ? { offset: question.offset } : {}),
      ...(question.limit !== undefined && !byPotency ? { limit: question.limit } : {}),
    }
    const answer = await this.#answer(connectionId, vaultId, selection, {
      id: protocol.id,
      name: protocol.name,
    })
    if (!byPotency) return answer
    const offset = question.offset ?? 0
    const end = question.limit === undefined ? undefined : offset + question.limit
    return {
      ...answer,
      offset,
      series: answer.series
        .map((series, order) => ({ series, order, potency: drawnPotency(series) }))
        .sort(
          (a, b) =>
            (a.potency ?? Number.POSITIVE_INFINITY) - (b.potency ?? Number.POSITIVE_INFINITY) ||
            a.order - b.order,
        )
        .slice(offset, end)
        .map(({ series }) => series),
    }
  }

  /** Every curve of a batch, across protocols (or in one). */
  async ofBatch(
    connectionId: string,
    vaultId: number,
    batchId: number,
    protocolId?: number,
  ): Promise<CurvesAnswer> {
    const protocol =
      protocolId === undefined ? null : this.protocol(connectionId, vaultId, protocolId)
    return this.#answer(
      connectionId,
      vaultId,
      { batchId, ...(protocol ? { protocolId: protocol.id } : {}) },
      protocol ? { id: protocol.id, name: protocol.name } : null,
    )
  }

  /**
   * The curves of the rows of a results table in view: its "Curve" columns (a calculation of a
   * chosen readout's protocol each), and each row's series of each (see `RowCurves`), read and
   * fitted in the curve workers with their kept fits, as the batch page's are.
   */
  async ofResults(
    connectionId: string,
    vaultId: number,
    question: ResultsCurvesQuestion,
  ): Promise<ResultsCurvesAnswer> {
    const cache = this.#options.runtimes.get(connectionId).cache
    // Only protocols with calculations: a table of none asks nothing of the curve workers.
    const protocolIds = [...new Set(question.columns.map((column) => column.protocolId))].filter(
      (protocolId) =>
        cache.ids('dose_response_calculations', vaultId, { filters: { protocol_id: protocolId } })
          .length > 0,
    )
    const subjectIds = [...new Set(question.subjectIds)]
    if (protocolIds.length === 0) {
      return {
        vaultId,
        columns: [],
        rows: [],
        fits: { computed: 0, reused: 0 },
        backlog: cache.readoutIndex().backlog(),
      }
    }
    const answer = await this.#answer(
      connectionId,
      vaultId,
      {
        protocolIds,
        ...(question.level === 'batch' ? { batchIds: subjectIds } : { moleculeIds: subjectIds }),
      },
      null,
    )
    const columns = curveColumns(question.columns, answer.calculations)
    const shown = new Set(columns.map((column) => column.calculation.id))
    const groups = new Map<
      string,
      { subjectId: number; calculationId: number; series: CurveSeries[] }
    >()
    for (const series of answer.series) {
      const subjectId = question.level === 'batch' ? series.batchId : series.moleculeId
      if (subjectId === null || !shown.has(series.calculationId)) continue
      const key = `${subjectId}:${series.calculationId}`
      let group = groups.get(key)
      if (!group)
        groups.set(key, (group = { subjectId, calculationId: series.calculationId, series: [] }))
      group.series.push(series)
    }
    return {
      vaultId,
      columns,
      rows: [...groups.values()].map((group) =>
        rowCurves(group.subjectId, group.calculationId, group.series),
      ),
      fits: answer.fits,
      backlog: answer.backlog,
    }
  }

  /** A protocol by id or name; an unknown one is refused with the existing names, closest first. */
  protocol(connectionId: string, vaultId: number, reference: number | string): ProtocolEntry {
    const catalogue = this.#options.runtimes.get(connectionId).cache.results().catalogue(vaultId)
    const text = String(reference).trim()
    const numeric = /^\d+$/.test(text)
    const byId = numeric ? catalogue.find((protocol) => protocol.id === Number(text)) : undefined
    if (byId) return byId
    if (catalogue.length === 0) {
      throw new AppError(
        'invalid_argument',
        `There is no protocol ${numeric ? text : `"${text}"`} in vault ${vaultId}: its cache holds no protocols (sync it first).`,
      )
    }
    const lookup = typeof reference === 'number' ? null : lookUpName(text, catalogue)
    if (lookup && 'found' in lookup) return lookup.found
    const named = (entries: readonly ProtocolEntry[]): string =>
      listNames(entries.map((entry) => `${entry.name} (${entry.id})`))
    if (lookup && 'ambiguous' in lookup) {
      throw new AppError(
        'invalid_argument',
        `"${text}" could be any of the protocols ${named(lookup.ambiguous)}: give its id, or its name with its exact case.`,
      )
    }
    throw new AppError(
      'invalid_argument',
      numeric
        ? `There is no protocol ${text} in vault ${vaultId}. Protocols: ${named(catalogue)}`
        : `Unknown protocol "${text}". Protocols, closest first: ${named(lookup && 'closest' in lookup ? lookup.closest : catalogue)}`,
    )
  }

  async close(): Promise<void> {
    this.#closed = true
    await this.#pool?.close()
  }

  async #answer(
    connectionId: string,
    vaultId: number,
    selection: CurveSelection,
    protocol: CurvesAnswer['protocol'],
  ): Promise<CurvesAnswer> {
    if (this.#closed) throw new AppError('cancelled', 'The curves service has shut down.')
    const cache = this.#options.runtimes.get(connectionId).cache
    const pending = pendingReadoutRows(this.#options.outbox, connectionId, vaultId)
    const pendingSeries = this.#pendingSeries(connectionId, vaultId)
    const pool = (this.#pool ??= new CurveFitPool({
      ...(this.#options.workers !== undefined ? { size: this.#options.workers } : {}),
      ...(this.#options.keptFits !== undefined ? { keptFits: this.#options.keptFits } : {}),
      logger: this.#log,
    }))
    // Each worker gets the same share of the batches every time, and so keeps their fits; a
    // batch's series are all one worker's.
    const shares =
      selection.batchId !== undefined
        ? [selection.batchId % pool.size]
        : Array.from({ length: pool.size }, (_, index) => index)
    const calculations = new Map<number, CurveCalculation>()
    const series: CurveSeries[] = []
    let total = 0
    const summaries = await Promise.all(
      shares.map((index) =>
        pool.run(
          {
            file: cache.file,
            vaultId,
            selection:
              pool.size > 1 ? { ...selection, shard: { index, count: pool.size } } : selection,
            pending,
            pendingSeries,
          },
          {
            onHead: (found, count) => {
              for (const calculation of found) calculations.set(calculation.id, calculation)
              total = count
            },
            onPart: (part) => {
              series.push(...part)
            },
          },
          index,
        ),
      ),
    )
    series.sort(
      (a, b) =>
        a.protocolId - b.protocolId ||
        a.calculationId - b.calculationId ||
        (a.runId ?? 0) - (b.runId ?? 0) ||
        (a.batchId ?? 0) - (b.batchId ?? 0) ||
        a.id - b.id,
    )
    return {
      vaultId,
      protocol,
      calculations: [...calculations.values()].sort(
        (a, b) => a.protocolId - b.protocolId || a.id - b.id,
      ),
      total,
      offset: selection.offset ?? 0,
      series,
      fits: summaries.reduce(
        (sum, summary) => ({
          computed: sum.computed + summary.fitted,
          reused: sum.reused + summary.reused,
        }),
        { computed: 0, reused: 0 },
      ),
      backlog: cache.readoutIndex().backlog(),
    }
  }

  /** Edits of series' fit constraints waiting in the outbox, as the cache's series with them. */
  #pendingSeries(connectionId: string, vaultId: number): PendingSeriesEdit[] {
    const outbox = this.#options.outbox
    if (!outbox) return []
    return outbox.pendingList(connectionId, vaultId, 'dose_response_series').flatMap((pending) =>
      pending.id === null
        ? []
        : [
            {
              seriesId: pending.id,
              record: pending.record,
              state: pending.state,
              itemIds: pending.itemIds,
            },
          ],
    )
  }
}
