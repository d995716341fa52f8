import type { RequestContext } from '../../core/context.ts'
import type { VaultAccess } from '../../core/sim-core.ts'
import { formatSeconds } from '../../core/dates.ts'
import type { RecordExportable } from '../../core/exports/exportable.ts'
import { invalid, notFound } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import { emptyReply } from '../../core/replies.ts'
import { envelope, idsEnvelope, readPageUnlessExporting, type Page } from '../../core/pagination.ts'
import type { Params } from '../../core/params.ts'
import { SqlWhere } from '../../core/sql-where.ts'
import { plateFormat, wellLabel } from '../../pure/well-positions.ts'
import { readableProjects, requireEditable } from './access-rules.ts'
import { startCheckedExport } from './async-exports.ts'
import { protocolProjectIds } from './protocols.ts'
import { readWellPosition } from './well-input.ts'

/**
 * Control layouts: which wells of a protocol's or a run's plates hold controls. A layout targets
 * exactly one of a protocol or a run and takes its dimensions from exactly one of a size or a
 * plate. Control states: `+` (positive), `-` (negative), `#` (reference molecule).
 */

const schema = `
CREATE TABLE IF NOT EXISTS control_layouts (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  protocol_id INTEGER REFERENCES protocols(id) ON DELETE CASCADE,
  run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
  plate_id INTEGER REFERENCES plates(id),
  size INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL,
  CHECK ((protocol_id IS NULL) != (run_id IS NULL))
);

CREATE TABLE IF NOT EXISTS control_layout_wells (
  layout_id INTEGER NOT NULL REFERENCES control_layouts(id) ON DELETE CASCADE,
  row INTEGER NOT NULL,
  col INTEGER NOT NULL,
  control_state TEXT NOT NULL CHECK (control_state IN ('+', '-', '#')),
  PRIMARY KEY (layout_id, row, col)
);
`

const CONTROL_STATES = ['+', '-', '#'] as const

interface LayoutRow {
  id: number
  vault_id: number
  protocol_id: number | null
  run_id: number | null
  plate_id: number | null
  size: number
  created_at: number
  modified_at: number
}

/** Layouts whose protocol, or whose run's project, the user reads. */
const VISIBLE = `(
  EXISTS (SELECT 1 FROM protocol_projects WHERE protocol_projects.protocol_id = control_layouts.protocol_id
          AND protocol_projects.project_id IN (SELECT value FROM json_each(?)))
  OR EXISTS (SELECT 1 FROM runs WHERE runs.id = control_layouts.run_id
          AND runs.project_id IN (SELECT value FROM json_each(?))))`

function layoutRecord(access: VaultAccess, row: LayoutRow): Record<string, unknown> {
  const format = plateFormat(row.size)!
  const wells = access.db
    .prepare(
      `SELECT row, col, control_state FROM control_layout_wells WHERE layout_id = ? ORDER BY row, col`,
    )
    .all(row.id) as { row: number; col: number; control_state: string }[]
  return {
    id: row.id,
    class: 'control layout',
    protocol: row.protocol_id,
    run: row.run_id,
    plate_id: row.plate_id,
    size: row.size,
    control_wells: wells.map((well) => ({ ...well, pos: wellLabel(well, format) })),
    created_at: formatSeconds(row.created_at),
    modified_at: formatSeconds(row.modified_at),
  }
}

function visibleLayout(access: VaultAccess, id: number): LayoutRow {
  const readable = readableProjects(access)
  const row = access.db
    .prepare(`SELECT * FROM control_layouts WHERE id = ? AND vault_id = ? AND ${VISIBLE}`)
    .get(id, access.vault.id, readable, readable) as LayoutRow | undefined
  if (!row) throw notFound(`Control layout ${id}`)
  return row
}

interface LayoutQuery {
  ids: number[]
  page: Page
  onlyIds: boolean
}

function readLayoutQuery(access: VaultAccess, params: Params): LayoutQuery {
  const page = readPageUnlessExporting(params)
  const onlyIds = params.boolean('only_ids', false)
  const projects = params.ids('projects')
  const readable = JSON.stringify(
    projects ? projects.filter((id) => access.canReadProject(id)) : access.projectIds,
  )
  const where = new SqlWhere()
    .add(`vault_id = ?`, access.vault.id)
    .add(VISIBLE, readable, readable)
    .dateRange(params, 'created', 'created_at')
    .dateRange(params, 'modified', 'modified_at')
  params.ignore('async', 'format')
  params.rejectUnknown()
  const ids = (
    access.db.prepare(`SELECT id FROM control_layouts${where} ORDER BY id`).all(...where.args) as {
      id: number
    }[]
  ).map((row) => row.id)
  return { ids, page, onlyIds }
}

function layoutsByIds(access: VaultAccess, ids: readonly number[]): Record<string, unknown>[] {
  const rows = access.db
    .prepare(
      `SELECT * FROM control_layouts WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`,
    )
    .all(JSON.stringify(ids)) as LayoutRow[]
  return rows.map((row) => layoutRecord(access, row))
}

const layoutExport: RecordExportable = {
  kind: 'control_layouts',
  formats: ['json', 'csv'],
  *pages(access, params) {
    const { ids } = readLayoutQuery(access, params)
    for (let start = 0; start < ids.length; start += 500) {
      yield layoutsByIds(access, ids.slice(start, start + 500))
    }
  },
}

async function listLayouts(ctx: RequestContext): Promise<unknown> {
  const params = await ctx.input()
  if (params.boolean('async', false)) {
    return startCheckedExport(ctx, 'control_layouts', params, params.string('format'), (copy) =>
      readLayoutQuery(ctx.access, copy),
    )
  }
  const query = readLayoutQuery(ctx.access, params)
  if (query.onlyIds) return idsEnvelope(query.ids, query.page)
  const { offset, pageSize } = query.page
  return envelope(
    query.ids.length,
    query.page,
    layoutsByIds(ctx.access, query.ids.slice(offset, offset + pageSize)),
  )
}

/** The target's projects, for the edit check; 422 when the target is not one the user reads. */
function targetProjects(
  access: VaultAccess,
  protocolId: number | undefined,
  runId: number | undefined,
): number[] {
  if (protocolId !== undefined) {
    const projects = protocolProjectIds(access.db, protocolId).filter((id) =>
      access.canReadProject(id),
    )
    const inVault = access.db
      .prepare(`SELECT 1 FROM protocols WHERE id = ? AND vault_id = ?`)
      .get(protocolId, access.vault.id)
    if (!inVault || projects.length === 0)
      throw invalid('protocol', `${protocolId} is not a protocol of this vault`)
    return projects
  }
  const run = access.db
    .prepare(`SELECT project_id FROM runs WHERE id = ? AND vault_id = ?`)
    .get(runId, access.vault.id) as { project_id: number } | undefined
  if (!run || !access.canReadProject(run.project_id))
    throw invalid('run', `${runId} is not a run of this vault`)
  return [run.project_id]
}

async function createLayout(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const params = await ctx.input()
  const protocolId = params.integer('protocol', { min: 1 })
  const runId = params.integer('run', { min: 1 })
  if ((protocolId === undefined) === (runId === undefined)) {
    throw invalid('protocol', 'or run: exactly one of the two must be given as the target')
  }
  const size = params.integer('size')
  const plateId = params.integer('plate', { min: 1 })
  if ((size === undefined) === (plateId === undefined)) {
    throw invalid('size', 'or plate: exactly one of the two must give the dimensions')
  }
  let layoutSize: number
  if (plateId !== undefined) {
    const plate = access.db
      .prepare(
        `SELECT size FROM plates WHERE id = ? AND vault_id = ? AND EXISTS (
           SELECT 1 FROM plate_projects WHERE plate_id = plates.id
           AND project_id IN (SELECT value FROM json_each(?)))`,
      )
      .get(plateId, access.vault.id, readableProjects(access)) as { size: number } | undefined
    if (!plate) throw invalid('plate', `${plateId} is not a plate of this vault`)
    layoutSize = plate.size
  } else {
    if (!plateFormat(size!))
      throw invalid('size', `${size} is not a plate size (use 6, 12, 24, 48, 96, 384 or 1536)`)
    layoutSize = size!
  }
  const format = plateFormat(layoutSize)!
  const items = params.objects('control_wells')
  if (!items || items.length === 0)
    throw invalid('control_wells', 'is required: list at least one control well')
  const seen = new Set<string>()
  const wells = items.map((item, index) => {
    const member = `control_wells[${index}]`
    const position = readWellPosition(item, format, member)
    const state = item.oneOf('control_state', CONTROL_STATES)
    if (state === undefined)
      throw invalid(`${member}.control_state`, "is required: '+', '-' or '#'")
    item.rejectUnknown()
    const key = `${position.row}:${position.col}`
    if (seen.has(key)) throw invalid(member, `repeats well ${wellLabel(position, format)}`)
    seen.add(key)
    return { ...position, state }
  })
  params.ignore('id', 'class', 'plate_id', 'created_at', 'modified_at')
  params.rejectUnknown()
  requireEditable(
    access,
    targetProjects(access, protocolId, runId),
    'the control layouts of that target',
  )
  const now = ctx.sim.clock.nowSeconds()
  const id = ctx.db.transaction(() => {
    const layoutId = Number(
      ctx.db
        .prepare(
          `INSERT INTO control_layouts (vault_id, protocol_id, run_id, plate_id, size, created_at, modified_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          access.vault.id,
          protocolId ?? null,
          runId ?? null,
          plateId ?? null,
          layoutSize,
          now,
          now,
        ).lastInsertRowid,
    )
    const insert = ctx.db.prepare(
      `INSERT INTO control_layout_wells (layout_id, row, col, control_state) VALUES (?, ?, ?, ?)`,
    )
    for (const well of wells) insert.run(layoutId, well.row, well.col, well.state)
    return layoutId
  })()
  return layoutRecord(access, visibleLayout(access, id))
}

async function deleteLayout(ctx: RequestContext): Promise<unknown> {
  const row = visibleLayout(ctx.access, ctx.pathId('id'))
  requireEditable(
    ctx.access,
    targetProjects(ctx.access, row.protocol_id ?? undefined, row.run_id ?? undefined),
    `control layout ${row.id}`,
  )
  ctx.db.prepare(`DELETE FROM control_layouts WHERE id = ?`).run(row.id)
  return emptyReply(200)
}

export const controlLayoutsModule: SimModule = {
  name: 'control layouts',
  schema,
  routes(router) {
    router.query('/vaults/{vault_id}/control_layouts', listLayouts)
    router.post('/vaults/{vault_id}/control_layouts', createLayout, { write: true })
    router.get('/vaults/{vault_id}/control_layouts/{id}', (ctx) =>
      layoutRecord(ctx.access, visibleLayout(ctx.access, ctx.pathId('id'))),
    )
    router.delete('/vaults/{vault_id}/control_layouts/{id}', deleteLayout, { write: true })
  },
  exportables: [layoutExport],
}
