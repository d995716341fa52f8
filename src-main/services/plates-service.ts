/**
 * Plate quality from the cache, offline: a plate's readouts, one readout's wells with the plate's
 * statistics (controls' means and spreads, signal window, Z′ and Z, flags by the person's
 * thresholds), and a run's plates side by side. Read from the readout value index through a
 * read-only connection of its own per question (as the curve workers read it), so that the
 * answer never waits for the cache writer and never holds the main connection. Corrections still
 * waiting in the outbox (a well marked as an outlier) are applied first.
 */
import Database from 'better-sqlite3'
import type { PlateQualityOptions } from '../../src-common/analysis/plate-quality.ts'
import { AppError } from '../shared/app-error.ts'
import { PlateQueries, type PlateAnswer, type RunPlatesAnswer } from '../store/plate-queries.ts'
import type { ReadoutIndexBacklog } from '../store/readout-index.ts'
import type { Outbox } from '../sync/outbox/outbox.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'
import { pendingReadoutRows } from './pending-readout-rows.ts'

export interface PlateQuestion {
  definitionId?: number
  runId?: number
  quality?: PlateQualityOptions
}

export interface RunPlatesQuestion {
  definitionId?: number
  quality?: PlateQualityOptions
}

export interface PlateQualityAnswer extends PlateAnswer {
  /** Readout rows and aggregates still to index (0 and 0: every well is there). */
  backlog: ReadoutIndexBacklog
}

export interface RunPlatesQualityAnswer extends RunPlatesAnswer {
  backlog: ReadoutIndexBacklog
}

export interface PlatesServiceOptions {
  runtimes: ConnectionRuntimes
  /** Corrections waiting in it are applied before the statistics. */
  outbox?: Outbox | null
}

export class PlatesService {
  readonly #options: PlatesServiceOptions

  constructor(options: PlatesServiceOptions) {
    this.#options = options
  }

  /** A plate's readouts and one readout's wells with the plate's statistics. */
  plate(
    connectionId: string,
    vaultId: number,
    plateId: number,
    question: PlateQuestion = {},
  ): PlateQualityAnswer {
    const pending = pendingReadoutRows(this.#options.outbox, connectionId, vaultId)
    return this.#read(connectionId, (queries) =>
      queries.plate(vaultId, plateId, { ...question, pending }),
    )
  }

  /** A run's plates, each with its wells and statistics of one readout. */
  run(
    connectionId: string,
    vaultId: number,
    runId: number,
    question: RunPlatesQuestion = {},
  ): RunPlatesQualityAnswer {
    const pending = pendingReadoutRows(this.#options.outbox, connectionId, vaultId)
    return this.#read(connectionId, (queries) =>
      queries.runPlates(vaultId, runId, { ...question, pending }),
    )
  }

  #read<T>(
    connectionId: string,
    question: (queries: PlateQueries) => T,
  ): T & { backlog: ReadoutIndexBacklog } {
    const cache = this.#options.runtimes.get(connectionId).cache
    let db: Database.Database
    try {
      db = new Database(cache.file, { readonly: true, fileMustExist: true })
    } catch (error) {
      throw new AppError(
        'storage',
        `Cannot read the cache ${cache.file}: ${(error as Error).message}`,
        {
          cause: error,
        },
      )
    }
    try {
      db.pragma('busy_timeout = 5000')
      // One read transaction: the plate's counts and its wells from the same moment.
      const answer = db.transaction(() => question(new PlateQueries(db)))()
      return { ...answer, backlog: cache.readoutIndex().backlog() }
    } finally {
      db.close()
    }
  }
}
