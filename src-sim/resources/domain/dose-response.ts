import type { RequestContext } from '../../core/context.ts'
import type { VaultAccess } from '../../core/sim-core.ts'
import { formatDay, formatSeconds } from '../../core/dates.ts'
import { invalid, notFound, unprocessable } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import type { Params } from '../../core/params.ts'
import {
  FitParametersError,
  parseFitParameters,
  type FitConstraints,
} from '../../pure/fit-parameters.ts'
import { readableProjects, requireEditable } from './access-rules.ts'
import {
  calculationsOf,
  refitSeries,
  refreshDoseResponse,
  seriesPoints,
  type CalculationRow,
  type MinimumActivity,
  type SeriesFit,
} from './dose-response-engine.ts'
import { protocolProjectIds, visibleProtocol } from './protocols.ts'

/**
 * Dose-response calculations and their data series (one curve per batch and run). Updating a
 * calculation's fit_parameters or minimum activity refits all its curves; a data series' own
 * fit_parameters override the calculation's for that curve.
 */

const BASE = '/vaults/{vault_id}/protocols/{protocol_id}/dose_response_calculations'
/** How long (simulator clock) vault status lists a protocol as recalculating after a change. */
const RECALCULATION_MS = 2000

interface SeriesRow {
  id: number
  calculation_id: number
  batch_id: number
  run_id: number
  fit_parameters: string
  fit: string
  modified_at: number
}

function calculationRecord(row: CalculationRow, nowMs: number): Record<string, unknown> {
  return {
    id: row.id,
    class: 'dose response calculation',
    name: row.name,
    protocol: row.protocol_id,
    equation_type: row.equation_type,
    readout_definition: row.response_definition_id,
    concentration_readout_definition: row.concentration_definition_id,
    result_readout_definition: row.result_definition_id,
    fit_parameters: JSON.parse(row.fit_parameters) as FitConstraints,
    minimum_activity: JSON.parse(row.minimum_activity) as MinimumActivity,
    recalculating: row.recalculating_until_ms !== null && row.recalculating_until_ms > nowMs,
    created_at: formatSeconds(row.created_at),
    modified_at: formatSeconds(row.modified_at),
  }
}

function seriesRecord(
  access: VaultAccess,
  calculation: CalculationRow,
  row: SeriesRow,
): Record<string, unknown> {
  const fit = JSON.parse(row.fit) as SeriesFit
  const run = access.db.prepare(`SELECT run_date FROM runs WHERE id = ?`).get(row.run_id) as {
    run_date: number
  }
  const molecule = access.db
    .prepare(`SELECT molecule_id FROM batches WHERE id = ?`)
    .get(row.batch_id) as { molecule_id: number } | undefined
  return {
    id: row.id,
    class: 'dose response data series',
    calculation: calculation.id,
    equation_type: calculation.equation_type,
    batch: row.batch_id,
    molecule: molecule?.molecule_id ?? null,
    run: { id: row.run_id, run_date: formatDay(run.run_date) },
    fit_parameters: JSON.parse(row.fit_parameters) as FitConstraints,
    status: fit.status,
    fitted_parameters: fit.parameters ?? null,
    r_squared: fit.r_squared ?? null,
    points_used: fit.points_used,
    ...(fit.error ? { error: fit.error } : {}),
    result: fit.result,
    points: seriesPoints(access.db, calculation, row.batch_id, row.run_id).map((point) => ({
      x: point.x,
      y: point.y,
      outlier: point.outlier ?? false,
      readout_row: point.rowId,
    })),
    modified_at: formatSeconds(row.modified_at),
  }
}

function visibleCalculation(ctx: RequestContext): CalculationRow {
  const protocol = visibleProtocol(ctx.access, ctx.pathId('protocol_id'))
  const id = ctx.pathId('dose_response_calculation_id')
  const row = calculationsOf(ctx.db, protocol.id).find((calculation) => calculation.id === id)
  if (!row) throw notFound(`Dose response calculation ${id}`)
  return row
}

function visibleSeries(access: VaultAccess, calculation: CalculationRow, id?: number): SeriesRow[] {
  return access.db
    .prepare(
      `SELECT dose_response_series.* FROM dose_response_series
       JOIN runs ON runs.id = dose_response_series.run_id
       WHERE calculation_id = ? AND runs.project_id IN (SELECT value FROM json_each(?))
       ${id === undefined ? '' : 'AND dose_response_series.id = ?'}
       ORDER BY dose_response_series.run_id, dose_response_series.batch_id`,
    )
    .all(calculation.id, readableProjects(access), ...(id === undefined ? [] : [id])) as SeriesRow[]
}

function readConstraints(
  params: Params,
  calculation: CalculationRow,
  where: 'calculation' | 'data series',
): FitConstraints | undefined {
  const raw = params.raw('fit_parameters')
  if (raw === undefined) return undefined
  try {
    return parseFitParameters(calculation.equation_type, raw, where)
  } catch (error) {
    if (error instanceof FitParametersError) throw unprocessable(error.message)
    throw error
  }
}

function readMinimumActivity(params: Params): MinimumActivity | undefined {
  const bounds = params.object('minimum_activity')
  if (!bounds) return undefined
  const min = bounds.number('min')
  const max = bounds.number('max')
  bounds.rejectUnknown()
  if (min !== undefined && max !== undefined && min > max) {
    throw invalid('minimum_activity', `range lower bound ${min} is above upper bound ${max}`)
  }
  return { ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) }
}

const ECHOED_CALCULATION_MEMBERS = [
  'id',
  'class',
  'name',
  'protocol',
  'equation_type',
  'readout_definition',
  'concentration_readout_definition',
  'result_readout_definition',
  'recalculating',
  'created_at',
  'modified_at',
]

async function updateCalculation(ctx: RequestContext): Promise<unknown> {
  const calculation = visibleCalculation(ctx)
  requireEditable(
    ctx.access,
    protocolProjectIds(ctx.db, calculation.protocol_id),
    `the dose response calculations of protocol ${calculation.protocol_id}`,
  )
  const params = await ctx.input()
  const constraints = readConstraints(params, calculation, 'calculation')
  const activity = readMinimumActivity(params)
  params.ignore(...ECHOED_CALCULATION_MEMBERS)
  params.rejectUnknown()
  const now = ctx.sim.clock.nowSeconds()
  ctx.db.transaction(() => {
    ctx.db
      .prepare(
        `UPDATE dose_response_calculations SET fit_parameters = ?, minimum_activity = ?,
         recalculating_until_ms = ?, modified_at = ? WHERE id = ?`,
      )
      .run(
        constraints === undefined ? calculation.fit_parameters : JSON.stringify(constraints),
        activity === undefined ? calculation.minimum_activity : JSON.stringify(activity),
        ctx.sim.clock.nowMillis() + RECALCULATION_MS,
        now,
        calculation.id,
      )
    refreshDoseResponse(ctx.db, now, calculation.protocol_id)
  })()
  return calculationRecord(visibleCalculation(ctx), ctx.sim.clock.nowMillis())
}

async function updateSeries(ctx: RequestContext): Promise<unknown> {
  const calculation = visibleCalculation(ctx)
  const seriesId = ctx.pathId('dose_response_data_series_id')
  const [series] = visibleSeries(ctx.access, calculation, seriesId)
  if (!series) throw notFound(`Dose response data series ${seriesId}`)
  const run = ctx.db.prepare(`SELECT project_id FROM runs WHERE id = ?`).get(series.run_id) as {
    project_id: number
  }
  requireEditable(ctx.access, [run.project_id], `dose response data series ${seriesId}`)
  const params = await ctx.input()
  const constraints = readConstraints(params, calculation, 'data series')
  params.ignore(
    'id',
    'class',
    'calculation',
    'equation_type',
    'batch',
    'molecule',
    'run',
    'status',
    'fitted_parameters',
    'r_squared',
    'points_used',
    'error',
    'result',
    'points',
    'modified_at',
  )
  params.rejectUnknown()
  const now = ctx.sim.clock.nowSeconds()
  ctx.db.transaction(() => {
    if (constraints !== undefined) {
      ctx.db
        .prepare(`UPDATE dose_response_series SET fit_parameters = ? WHERE id = ?`)
        .run(JSON.stringify(constraints), series.id)
    }
    refitSeries(ctx.db, now, series.id)
  })()
  return seriesRecord(
    ctx.access,
    calculation,
    visibleSeries(ctx.access, calculation, series.id)[0]!,
  )
}

export const doseResponseModule: SimModule = {
  name: 'dose response',
  routes(router) {
    router.get(BASE, (ctx) => {
      const protocol = visibleProtocol(ctx.access, ctx.pathId('protocol_id'))
      const nowMs = ctx.sim.clock.nowMillis()
      return calculationsOf(ctx.db, protocol.id).map((row) => calculationRecord(row, nowMs))
    })
    router.get(`${BASE}/{dose_response_calculation_id}`, (ctx) =>
      calculationRecord(visibleCalculation(ctx), ctx.sim.clock.nowMillis()),
    )
    router.put(`${BASE}/{dose_response_calculation_id}`, updateCalculation, { write: true })
    router.get(`${BASE}/{dose_response_calculation_id}/dose_response_data_series`, (ctx) => {
      const calculation = visibleCalculation(ctx)
      return visibleSeries(ctx.access, calculation).map((row) =>
        seriesRecord(ctx.access, calculation, row),
      )
    })
    const seriesPath = `${BASE}/{dose_response_calculation_id}/dose_response_data_series/{dose_response_data_series_id}`
    router.get(seriesPath, (ctx) => {
      const calculation = visibleCalculation(ctx)
      const id = ctx.pathId('dose_response_data_series_id')
      const [row] = visibleSeries(ctx.access, calculation, id)
      if (!row) throw notFound(`Dose response data series ${id}`)
      return seriesRecord(ctx.access, calculation, row)
    })
    router.put(seriesPath, updateSeries, { write: true })
  },
}
