import type { Database } from 'better-sqlite3'
import type { RequestContext } from '../../core/context.ts'
import type { VaultAccess } from '../../core/sim-core.ts'
import { formatDay, formatSeconds } from '../../core/dates.ts'
import type { RecordExportable } from '../../core/exports/exportable.ts'
import { invalid, notFound } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import { envelope, idsEnvelope, readPageUnlessExporting, type Page } from '../../core/pagination.ts'
import type { Params } from '../../core/params.ts'
import { projectRef, readableProjects, requireEditable } from './access-rules.ts'
import { startCheckedExport } from './async-exports.ts'
import { listedFiles } from './file-listing.ts'
import { plateStatistics } from './plate-statistics.ts'
import { resolveProject } from './project-lists.ts'
import { readRunDay } from './run-days.ts'
import { advanceSlurps } from './slurp-lifecycle.ts'
import { cancelSlurp, visibleSlurp } from './slurp-store.ts'

/** Runs: list with filters, show with plate statistics, update (moves with project_id), delete. */

export interface RunRow {
  id: number
  vault_id: number
  protocol_id: number
  project_id: number
  run_date: number
  person: string
  place: string
  conditions: string
  slurp_id: number | null
  created_at: number
  modified_at: number
}

export function visibleRun(access: VaultAccess, id: number): RunRow {
  const row = access.db
    .prepare(
      `SELECT * FROM runs WHERE id = ? AND vault_id = ?
       AND project_id IN (SELECT value FROM json_each(?))`,
    )
    .get(id, access.vault.id, readableProjects(access)) as RunRow | undefined
  if (!row) throw notFound(`Run ${id}`)
  return row
}

function runRecord(db: Database, row: RunRow, withStatistics: boolean): Record<string, unknown> {
  const protocol = db.prepare(`SELECT id, name FROM protocols WHERE id = ?`).get(row.protocol_id)
  const record: Record<string, unknown> = {
    id: row.id,
    class: 'run',
    protocol,
    project: projectRef(db, row.project_id),
    run_date: formatDay(row.run_date),
    person: row.person,
    place: row.place,
    conditions: row.conditions,
    slurp: row.slurp_id,
    source_files: listedFiles(db, 'run', row.id),
    created_at: formatSeconds(row.created_at),
    modified_at: formatSeconds(row.modified_at),
  }
  if (withStatistics) record.plate_statistics = plateStatistics(db, { runId: row.id })
  return record
}

interface RunQuery {
  ids: number[]
  page: Page
  onlyIds: boolean
}

function readRunQuery(access: VaultAccess, params: Params): RunQuery {
  const page = readPageUnlessExporting(params)
  const onlyIds = params.boolean('only_ids', false)
  const protocols = params.ids('protocols')
  const projects = params.ids('projects')
  const slurp = params.integer('slurp', { min: 1 })
  const after = readRunDay(params, 'run_date_after')
  const before = readRunDay(params, 'run_date_before')
  params.ignore('async', 'format')
  params.rejectUnknown()
  const readable = projects ? projects.filter((id) => access.canReadProject(id)) : access.projectIds
  const clauses = [`vault_id = ?`, `project_id IN (SELECT value FROM json_each(?))`]
  const args: unknown[] = [access.vault.id, JSON.stringify(readable)]
  if (protocols) {
    clauses.push(`protocol_id IN (SELECT value FROM json_each(?))`)
    args.push(JSON.stringify(protocols))
  }
  if (slurp !== undefined) {
    clauses.push(`slurp_id = ?`)
    args.push(slurp)
  }
  if (after !== undefined) {
    clauses.push(`run_date >= ?`)
    args.push(after)
  }
  if (before !== undefined) {
    clauses.push(`run_date < ?`)
    args.push(before)
  }
  const ids = (
    access.db
      .prepare(`SELECT id FROM runs WHERE ${clauses.join(' AND ')} ORDER BY run_date, id`)
      .all(...args) as { id: number }[]
  ).map((row) => row.id)
  return { ids, page, onlyIds }
}

function runsByIds(db: Database, ids: readonly number[]): Record<string, unknown>[] {
  const rows = db
    .prepare(
      `SELECT * FROM runs WHERE id IN (SELECT value FROM json_each(?)) ORDER BY run_date, id`,
    )
    .all(JSON.stringify(ids)) as RunRow[]
  return rows.map((row) => runRecord(db, row, false))
}

const runExport: RecordExportable = {
  kind: 'runs',
  formats: ['json', 'csv'],
  *pages(access, params) {
    const { ids } = readRunQuery(access, params)
    for (let start = 0; start < ids.length; start += 1000) {
      yield runsByIds(access.db, ids.slice(start, start + 1000))
    }
  },
}

async function listRuns(ctx: RequestContext): Promise<unknown> {
  const params = await ctx.input()
  if (params.boolean('async', false)) {
    return startCheckedExport(ctx, 'runs', params, params.string('format'), (copy) =>
      readRunQuery(ctx.access, copy),
    )
  }
  const query = readRunQuery(ctx.access, params)
  if (query.onlyIds) return idsEnvelope(query.ids, query.page)
  const { offset, pageSize } = query.page
  return envelope(
    query.ids.length,
    query.page,
    runsByIds(ctx.db, query.ids.slice(offset, offset + pageSize)),
  )
}

async function updateRun(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const row = visibleRun(access, ctx.pathId('id'))
  requireEditable(access, [row.project_id], `run ${row.id}`)
  const params = await ctx.input()
  const bodyId = params.integer('id')
  if (bodyId !== undefined && bodyId !== row.id) {
    throw invalid('id', `must equal the id in the path (${row.id}), got ${bodyId}`)
  }
  const runDate = readRunDay(params, 'run_date')
  const person = params.string('person', { allowEmpty: true })
  const place = params.string('place', { allowEmpty: true })
  const conditions = params.string('conditions', { allowEmpty: true })
  const projectId = params.has('project_id')
    ? resolveProject(access, params.requiredInteger('project_id'), 'project_id')
    : undefined
  params.ignore(
    'class',
    'protocol',
    'project',
    'slurp',
    'plate_statistics',
    'created_at',
    'modified_at',
  )
  params.rejectUnknown()
  if (projectId !== undefined && projectId !== row.project_id) {
    const shared = access.db
      .prepare(`SELECT 1 FROM protocol_projects WHERE protocol_id = ? AND project_id = ?`)
      .get(row.protocol_id, projectId)
    if (!shared) {
      throw invalid(
        'project_id',
        `${projectId} is not a project of the run's protocol; share the protocol with it first`,
      )
    }
  }
  ctx.db
    .prepare(
      `UPDATE runs SET run_date = ?, person = ?, place = ?, conditions = ?, project_id = ?,
       modified_at = ? WHERE id = ?`,
    )
    .run(
      runDate ?? row.run_date,
      person ?? row.person,
      place ?? row.place,
      conditions ?? row.conditions,
      projectId ?? row.project_id,
      ctx.sim.clock.nowSeconds(),
      row.id,
    )
  return runRecord(
    ctx.db,
    ctx.db.prepare(`SELECT * FROM runs WHERE id = ?`).get(row.id) as RunRow,
    true,
  )
}

/** Deletes runs with their readout rows, data series, control layouts and attached files. */
function deleteRuns(db: Database, runIds: readonly number[]): void {
  const ids = JSON.stringify(runIds)
  db.transaction(() => {
    db.prepare(
      `DELETE FROM uploaded_files WHERE resource_class = 'run'
       AND resource_id IN (SELECT value FROM json_each(?))`,
    ).run(ids)
    db.prepare(`DELETE FROM control_layouts WHERE run_id IN (SELECT value FROM json_each(?))`).run(
      ids,
    )
    db.prepare(`DELETE FROM runs WHERE id IN (SELECT value FROM json_each(?))`).run(ids)
  })()
}

async function deleteRun(ctx: RequestContext): Promise<unknown> {
  const row = visibleRun(ctx.access, ctx.pathId('id'))
  requireEditable(ctx.access, [row.project_id], `run ${row.id}`)
  deleteRuns(ctx.db, [row.id])
  return { message: `Run ${row.id} has been destroyed` }
}

async function deleteSlurpRuns(ctx: RequestContext): Promise<unknown> {
  const params = await ctx.input()
  const slurpId = params.integer('slurp', { min: 1, required: true }) as number
  params.rejectUnknown()
  const slurp = visibleSlurp(ctx.access, slurpId)
  // A slurp due to commit by now commits first, so its runs are there to delete.
  advanceSlurps(ctx.sim, { slurpId: slurp.id })
  const runs = ctx.db
    .prepare(`SELECT id, project_id FROM runs WHERE slurp_id = ? AND vault_id = ? ORDER BY id`)
    .all(slurp.id, ctx.access.vault.id) as { id: number; project_id: number }[]
  for (const run of runs) requireEditable(ctx.access, [run.project_id], `run ${run.id}`)
  deleteRuns(
    ctx.db,
    runs.map((run) => run.id),
  )
  const canceled = cancelSlurp(ctx.db, slurp.id, ctx.sim.clock.nowMillis())
  return {
    message: `${runs.length} runs imported by slurp ${slurp.id} have been destroyed${canceled ? '; the import was canceled' : ''}`,
    runs: runs.map((run) => run.id),
  }
}

export const runsModule: SimModule = {
  name: 'runs',
  routes(router) {
    router.query('/vaults/{vault_id}/runs', listRuns)
    router.delete('/vaults/{vault_id}/runs', deleteSlurpRuns, { write: true })
    router.get('/vaults/{vault_id}/runs/{id}', async (ctx) => {
      ;(await ctx.input()).rejectUnknown()
      return runRecord(ctx.db, visibleRun(ctx.access, ctx.pathId('id')), true)
    })
    router.put('/vaults/{vault_id}/runs/{id}', updateRun, { write: true })
    router.delete('/vaults/{vault_id}/runs/{id}', deleteRun, { write: true })
  },
  exportables: [runExport],
}
