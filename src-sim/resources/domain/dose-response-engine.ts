import type { Database } from 'better-sqlite3'
import { fitDoseResponse, FitError } from '../../pure/dose-response-fit.ts'
import type { CurvePoint, EquationType } from '../../pure/dose-response-models.ts'
import { mergeConstraints, type FitConstraints } from '../../pure/fit-parameters.ts'
import { writeCell, type ReadoutCell } from './readout-store.ts'

/**
 * Keeps dose-response data series and the aggregate rows that carry their results in step with
 * the detail rows: every change to detail rows of a run refits the curves of that run.
 */

export interface CalculationRow {
  id: number
  protocol_id: number
  name: string
  equation_type: EquationType
  concentration_definition_id: number
  response_definition_id: number
  result_definition_id: number
  fit_parameters: string
  minimum_activity: string
  recalculating_until_ms: number | null
  created_at: number
  modified_at: number
}

/** Responses that never leave [min, max] mean the compound is inactive. */
export interface MinimumActivity {
  min?: number
  max?: number
}

export interface SeriesFit {
  status: 'fitted' | 'inactive' | 'failed'
  parameters?: Record<string, number>
  r_squared?: number | null
  points_used: number
  error?: string
  /** The cell written to the aggregate row. */
  result: ReadoutCell
}

export interface SeriesPoint extends CurvePoint {
  rowId: number
}

/** The fitted parameter each equation reports as its result (the aggregate row's value). */
const RESULT_PARAMETER: Readonly<Record<EquationType, string>> = {
  Hill: 'ic50',
  Biphasic: 'center1',
  'Bell Curve': 'center1',
  Linear: 'slope',
  'Exponential Decay': 'k',
  'Michaelis-Menten': 'k_d',
}

/** Equations whose result is a concentration, reported with < or > outside the tested range. */
const CONCENTRATION_RESULTS = new Set<EquationType>([
  'Hill',
  'Biphasic',
  'Bell Curve',
  'Michaelis-Menten',
])

export function calculationsOf(db: Database, protocolId: number): CalculationRow[] {
  return db
    .prepare(`SELECT * FROM dose_response_calculations WHERE protocol_id = ? ORDER BY id`)
    .all(protocolId) as CalculationRow[]
}

export function seriesPoints(
  db: Database,
  calculation: CalculationRow,
  batchId: number,
  runId: number,
): SeriesPoint[] {
  const rows = db
    .prepare(
      `SELECT readout_rows.id AS row_id, x.number_value AS x, y.number_value AS y,
              y.outlier AS outlier
       FROM readout_rows
       JOIN readout_cells x ON x.row_id = readout_rows.id AND x.definition_id = ?
       JOIN readout_cells y ON y.row_id = readout_rows.id AND y.definition_id = ?
       WHERE readout_rows.run_id = ? AND readout_rows.batch_id = ?
         AND readout_rows.type = 'detail row'
         AND x.number_value IS NOT NULL AND y.number_value IS NOT NULL
       ORDER BY x.number_value, readout_rows.id`,
    )
    .all(
      calculation.concentration_definition_id,
      calculation.response_definition_id,
      runId,
      batchId,
    ) as { row_id: number; x: number; y: number; outlier: number }[]
  return rows.map((row) => ({ rowId: row.row_id, x: row.x, y: row.y, outlier: row.outlier === 1 }))
}

function fitSeries(
  calculation: CalculationRow,
  seriesConstraints: FitConstraints,
  points: readonly CurvePoint[],
): SeriesFit {
  const used = points.filter((point) => !point.outlier)
  const activity = JSON.parse(calculation.minimum_activity) as MinimumActivity
  const concentrations = used.map((point) => point.x)
  const highest = concentrations.length > 0 ? Math.max(...concentrations) : undefined
  const lowest = concentrations.length > 0 ? Math.min(...concentrations) : undefined
  const isConcentration = CONCENTRATION_RESULTS.has(calculation.equation_type)
  if (
    used.length > 0 &&
    (activity.min !== undefined || activity.max !== undefined) &&
    used.every(
      (point) =>
        point.y >= (activity.min ?? Number.NEGATIVE_INFINITY) &&
        point.y <= (activity.max ?? Number.POSITIVE_INFINITY),
    )
  ) {
    return {
      status: 'inactive',
      points_used: used.length,
      result: {
        ...(isConcentration && highest !== undefined
          ? { value: highest, modifier: '>' as const }
          : {}),
        note: 'inactive: no response outside the minimum activity bounds',
      },
    }
  }
  try {
    const constraints = mergeConstraints(
      JSON.parse(calculation.fit_parameters) as FitConstraints,
      seriesConstraints,
    )
    const fit = fitDoseResponse(calculation.equation_type, points, constraints)
    const value = fit.parameters[RESULT_PARAMETER[calculation.equation_type]]!
    const result: ReadoutCell = { value: roundTo(value, 4) }
    if (isConcentration && highest !== undefined && value > highest) {
      Object.assign(result, { value: highest, modifier: '>' })
    } else if (isConcentration && lowest !== undefined && value < lowest) {
      Object.assign(result, { value: lowest, modifier: '<' })
    }
    if (fit.rSquared !== null) result.note = `R² ${fit.rSquared.toFixed(3)}`
    return {
      status: 'fitted',
      parameters: Object.fromEntries(
        Object.entries(fit.parameters).map(([name, fitted]) => [name, roundTo(fitted, 6)]),
      ),
      r_squared: fit.rSquared === null ? null : roundTo(fit.rSquared, 4),
      points_used: fit.pointsUsed,
      result,
    }
  } catch (error) {
    if (!(error instanceof FitError)) throw error
    return {
      status: 'failed',
      points_used: used.length,
      error: error.message,
      result: { note: `no fit: ${error.message}` },
    }
  }
}

/**
 * Refits every curve of the protocol that has detail rows in the given runs (all runs when
 * omitted), updates the data series and the aggregate rows, and removes series and results whose
 * detail rows are gone.
 */
export function refreshDoseResponse(
  db: Database,
  now: number,
  protocolId: number,
  runIds?: readonly number[],
): void {
  const calculations = calculationsOf(db, protocolId)
  if (calculations.length === 0) return
  const runs =
    runIds ??
    (
      db.prepare(`SELECT id FROM runs WHERE protocol_id = ?`).all(protocolId) as { id: number }[]
    ).map((run) => run.id)
  const upsertSeries = db.prepare(
    `INSERT INTO dose_response_series (calculation_id, batch_id, run_id, fit, modified_at)
     VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (calculation_id, batch_id, run_id) DO UPDATE SET fit = excluded.fit,
       modified_at = excluded.modified_at`,
  )
  for (const runId of runs) {
    const batches = (
      db
        .prepare(
          `SELECT DISTINCT batch_id FROM readout_rows
           WHERE run_id = ? AND type = 'detail row' AND batch_id IS NOT NULL ORDER BY batch_id`,
        )
        .all(runId) as { batch_id: number }[]
    ).map((row) => row.batch_id)
    for (const calculation of calculations) {
      db.prepare(
        `DELETE FROM dose_response_series WHERE calculation_id = ? AND run_id = ?
         AND batch_id NOT IN (SELECT value FROM json_each(?))`,
      ).run(calculation.id, runId, JSON.stringify(batches))
      for (const batchId of batches) {
        const points = seriesPoints(db, calculation, batchId, runId)
        if (points.length === 0) continue
        const existing = db
          .prepare(
            `SELECT fit_parameters FROM dose_response_series
             WHERE calculation_id = ? AND batch_id = ? AND run_id = ?`,
          )
          .get(calculation.id, batchId, runId) as { fit_parameters: string } | undefined
        const fit = fitSeries(
          calculation,
          JSON.parse(existing?.fit_parameters ?? '{}') as FitConstraints,
          points,
        )
        upsertSeries.run(calculation.id, batchId, runId, JSON.stringify(fit), now)
      }
    }
    writeAggregateRows(db, now, protocolId, runId, calculations)
  }
}

/** Refits one series after its own fit_parameters changed, and updates its aggregate cell. */
export function refitSeries(db: Database, now: number, seriesId: number): void {
  const series = db.prepare(`SELECT * FROM dose_response_series WHERE id = ?`).get(seriesId) as {
    calculation_id: number
    batch_id: number
    run_id: number
    fit_parameters: string
  }
  const calculation = db
    .prepare(`SELECT * FROM dose_response_calculations WHERE id = ?`)
    .get(series.calculation_id) as CalculationRow
  const fit = fitSeries(
    calculation,
    JSON.parse(series.fit_parameters) as FitConstraints,
    seriesPoints(db, calculation, series.batch_id, series.run_id),
  )
  db.prepare(`UPDATE dose_response_series SET fit = ?, modified_at = ? WHERE id = ?`).run(
    JSON.stringify(fit),
    now,
    seriesId,
  )
  writeAggregateRows(db, now, calculation.protocol_id, series.run_id, [calculation])
}

/** One aggregate row per batch of the run holds the result cells of the calculations given. */
function writeAggregateRows(
  db: Database,
  now: number,
  protocolId: number,
  runId: number,
  calculations: readonly CalculationRow[],
): void {
  const run = db.prepare(`SELECT vault_id FROM runs WHERE id = ?`).get(runId) as {
    vault_id: number
  }
  for (const calculation of calculations) {
    db.prepare(
      `DELETE FROM readout_cells WHERE definition_id = ? AND row_id IN
         (SELECT id FROM readout_rows WHERE run_id = ? AND type = 'aggregate row')`,
    ).run(calculation.result_definition_id, runId)
    const series = db
      .prepare(
        `SELECT batch_id, fit FROM dose_response_series WHERE calculation_id = ? AND run_id = ?`,
      )
      .all(calculation.id, runId) as { batch_id: number; fit: string }[]
    for (const { batch_id: batchId, fit } of series) {
      const rowId = aggregateRowFor(db, now, run.vault_id, protocolId, runId, batchId)
      writeCell(db, rowId, calculation.result_definition_id, (JSON.parse(fit) as SeriesFit).result)
      db.prepare(`UPDATE readout_rows SET modified_at = ? WHERE id = ?`).run(now, rowId)
    }
  }
  db.prepare(
    `DELETE FROM readout_rows WHERE run_id = ? AND type = 'aggregate row'
     AND NOT EXISTS (SELECT 1 FROM readout_cells WHERE readout_cells.row_id = readout_rows.id)`,
  ).run(runId)
}

function aggregateRowFor(
  db: Database,
  now: number,
  vaultId: number,
  protocolId: number,
  runId: number,
  batchId: number,
): number {
  const existing = db
    .prepare(
      `SELECT id FROM readout_rows WHERE run_id = ? AND batch_id = ? AND type = 'aggregate row'`,
    )
    .get(runId, batchId) as { id: number } | undefined
  if (existing) return existing.id
  return Number(
    db
      .prepare(
        `INSERT INTO readout_rows (vault_id, protocol_id, run_id, type, batch_id, created_at, modified_at)
         VALUES (?, ?, ?, 'aggregate row', ?, ?, ?)`,
      )
      .run(vaultId, protocolId, runId, batchId, now, now).lastInsertRowid,
  )
}

function roundTo(value: number, significant: number): number {
  return value === 0 || !Number.isFinite(value) ? value : Number(value.toPrecision(significant))
}
