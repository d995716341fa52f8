import type { RequestContext } from '../../core/context.ts'
import { invalid, notFound } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import { bytesReply } from '../../core/replies.ts'
import { renderDoseResponsePng } from '../../pure/dose-response-plot.ts'
import { DOSE_RESPONSE_MODELS } from '../../pure/dose-response-models.ts'
import { createZip } from '../../pure/zip-writer.ts'
import { readableProjects } from './access-rules.ts'
import {
  calculationsOf,
  seriesPoints,
  type CalculationRow,
  type SeriesFit,
  type SeriesPoint,
} from './dose-response-engine.ts'
import { readoutDefinitionsOf, visibleProtocol } from './protocols.ts'

/**
 * GET /batches/{batch_id}/protocols/{id}/plot: the dose-response curves of a batch in a protocol
 * as a PNG (one calculation) or a ZIP of PNGs (several), drawn from the points and fits of the
 * runs the user reads (or the runs asked for).
 */

interface Plot {
  fileName: string
  png: Buffer
}

async function plot(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const protocol = visibleProtocol(access, ctx.pathId('id'))
  const batchId = ctx.pathId('batch_id')
  const batch = ctx.db
    .prepare(
      `SELECT batches.id, molecules.name || '-' || batches.name AS name FROM batches
       JOIN molecules ON molecules.id = batches.molecule_id
       WHERE batches.id = ? AND batches.vault_id = ? AND EXISTS (
         SELECT 1 FROM batch_projects WHERE batch_id = batches.id
         AND project_id IN (SELECT value FROM json_each(?)))`,
    )
    .get(batchId, access.vault.id, readableProjects(access)) as
    { id: number; name: string } | undefined
  if (!batch) throw notFound(`Batch ${batchId}`)
  const params = await ctx.input()
  const scale = readScale(params.string('size'))
  const wantedRuns = params.ids('runs')
  params.rejectUnknown()
  const runs = (
    ctx.db
      .prepare(
        `SELECT DISTINCT runs.id FROM runs JOIN readout_rows ON readout_rows.run_id = runs.id
         WHERE runs.protocol_id = ? AND readout_rows.batch_id = ?
         AND runs.project_id IN (SELECT value FROM json_each(?)) ORDER BY runs.id`,
      )
      .all(protocol.id, batch.id, readableProjects(access)) as { id: number }[]
  )
    .map((run) => run.id)
    .filter((id) => !wantedRuns || wantedRuns.includes(id))
  const definitions = new Map(readoutDefinitionsOf(ctx.db, protocol.id).map((d) => [d.id, d]))
  const label = (id: number): string => {
    const definition = definitions.get(id)
    if (!definition) return ''
    return definition.unit_label ? `${definition.name} (${definition.unit_label})` : definition.name
  }

  const plots: Plot[] = []
  for (const calculation of calculationsOf(ctx.db, protocol.id)) {
    const points: SeriesPoint[] = runs.flatMap((runId) =>
      seriesPoints(ctx.db, calculation, batch.id, runId),
    )
    if (points.length === 0) continue
    plots.push({
      fileName: `${safeName(batch.name)}-${safeName(calculation.name)}.png`,
      png: renderDoseResponsePng({
        title: `${batch.name}: ${calculation.name}`,
        xLabel: label(calculation.concentration_definition_id),
        yLabel: label(calculation.response_definition_id),
        logX: DOSE_RESPONSE_MODELS[calculation.equation_type].logConcentration,
        points,
        curves: fittedCurves(ctx, calculation, batch.id, runs),
        scale,
      }),
    })
  }
  if (plots.length === 0) {
    throw notFound(`Plot data for batch ${batch.id} in protocol ${protocol.id}`)
  }
  if (plots.length === 1) {
    return bytesReply(plots[0]!.png, 'application/octet-stream', {
      'content-disposition': `attachment; filename="${plots[0]!.fileName}"`,
    })
  }
  const zip = createZip(
    plots.map((entry) => ({ name: entry.fileName, data: entry.png, method: 'store' })),
  )
  return bytesReply(zip, 'application/zip', {
    'content-disposition': `attachment; filename="${safeName(batch.name)}-plots.zip"`,
  })
}

function fittedCurves(
  ctx: RequestContext,
  calculation: CalculationRow,
  batchId: number,
  runIds: readonly number[],
): ((x: number) => number)[] {
  const model = DOSE_RESPONSE_MODELS[calculation.equation_type]
  const fits = ctx.db
    .prepare(
      `SELECT run_id, fit FROM dose_response_series WHERE calculation_id = ? AND batch_id = ?
       ORDER BY run_id`,
    )
    .all(calculation.id, batchId) as { run_id: number; fit: string }[]
  return fits
    .filter((row) => runIds.includes(row.run_id))
    .map((row) => JSON.parse(row.fit) as SeriesFit)
    .filter((fit) => fit.status === 'fitted' && fit.parameters)
    .map((fit) => (x: number) => model.evaluate(x, fit.parameters!))
}

/** The `size` parameter multiplies the default 480 x 360 pixels. */
function readScale(size: string | undefined): number {
  if (size === undefined) return 1
  const scale = Number(size)
  if (!Number.isFinite(scale) || scale < 0.25 || scale > 8) {
    throw invalid('size', `must be a multiplier between 0.25 and 8, got ${JSON.stringify(size)}`)
  }
  return scale
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_')
}

export const plotsModule: SimModule = {
  name: 'plots',
  routes(router) {
    router.get('/vaults/{vault_id}/batches/{batch_id}/protocols/{id}/plot', plot)
  },
}
