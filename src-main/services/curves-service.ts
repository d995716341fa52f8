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
