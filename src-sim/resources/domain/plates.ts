import type { Database } from 'better-sqlite3'
import type { RequestContext } from '../../core/context.ts'
import type { VaultAccess } from '../../core/sim-core.ts'
import { formatSeconds } from '../../core/dates.ts'
import type { RecordExportable } from '../../core/exports/exportable.ts'
import { invalid, notFound, unprocessable } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import { envelope, idsEnvelope, readPageUnlessExporting, type Page } from '../../core/pagination.ts'
import type { Params } from '../../core/params.ts'
import { plateFormat, wellLabel, type PlateFormat } from '../../pure/well-positions.ts'
import { projectRefs, readableProjects, requireEditable } from './access-rules.ts'
import { startCheckedExport } from './async-exports.ts'
import { plateStatistics } from './plate-statistics.ts'
import { resolveProjects } from './project-lists.ts'
import { readWellPosition } from './well-input.ts'

/** Plates: list, create, show, update (supplied wells replace the wells), delete. */

const schema = `
CREATE TABLE IF NOT EXISTS plates (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  name TEXT NOT NULL,
  location TEXT NOT NULL DEFAULT '',
  concentration REAL,
  volume REAL,
  size INTEGER NOT NULL DEFAULT 96,
  owner_id INTEGER NOT NULL REFERENCES users(id),
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS plate_projects (
  plate_id INTEGER NOT NULL REFERENCES plates(id) ON DELETE CASCADE,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  PRIMARY KEY (plate_id, project_id)
);

CREATE TABLE IF NOT EXISTS plate_wells (
  plate_id INTEGER NOT NULL REFERENCES plates(id) ON DELETE CASCADE,
  row INTEGER NOT NULL,
  col INTEGER NOT NULL,
  batch_id INTEGER REFERENCES batches(id),
  sample_id INTEGER REFERENCES inventory_samples(id),
  PRIMARY KEY (plate_id, row, col)
);
CREATE INDEX IF NOT EXISTS plate_wells_by_batch ON plate_wells (batch_id);
CREATE INDEX IF NOT EXISTS plate_wells_by_sample ON plate_wells (sample_id);
`

interface PlateRow {
  id: number
  vault_id: number
  name: string
  location: string
  concentration: number | null
  volume: number | null
  size: number
  owner_id: number
  created_at: number
  modified_at: number
}

interface WellInput {
  row: number
  col: number
  batch: number | null
  sample: number | null
}

function visiblePlate(access: VaultAccess, id: number): PlateRow {
  const row = access.db
    .prepare(
      `SELECT * FROM plates WHERE id = ? AND vault_id = ? AND EXISTS (
         SELECT 1 FROM plate_projects WHERE plate_id = plates.id
         AND project_id IN (SELECT value FROM json_each(?)))`,
    )
    .get(id, access.vault.id, readableProjects(access)) as PlateRow | undefined
  if (!row) throw notFound(`Plate ${id}`)
  return row
}

function plateProjectIds(db: Database, plateId: number): number[] {
  return (
    db
      .prepare(`SELECT project_id FROM plate_projects WHERE plate_id = ? ORDER BY project_id`)
      .all(plateId) as {
      project_id: number
    }[]
  ).map((row) => row.project_id)
}

function plateRecord(access: VaultAccess, row: PlateRow): Record<string, unknown> {
  const format = plateFormat(row.size)!
  const wells = access.db
    .prepare(`SELECT * FROM plate_wells WHERE plate_id = ? ORDER BY row, col`)
    .all(row.id) as {
    row: number
    col: number
    batch_id: number | null
    sample_id: number | null
  }[]
  return {
    id: row.id,
    class: 'plate',
    name: row.name,
    location: row.location,
    concentration: row.concentration,
    volume: row.volume,
    size: row.size,
    projects: projectRefs(
      access.db,
      plateProjectIds(access.db, row.id).filter((id) => access.canReadProject(id)),
    ),
    wells: wells.map((well) => ({
      row: well.row,
      col: well.col,
      pos: wellLabel(well, format),
      batch: well.batch_id,
      sample: well.sample_id,
    })),
    statistics: plateStatistics(access.db, {
      plateId: row.id,
      readableProjects: readableProjects(access),
    }),
    created_at: formatSeconds(row.created_at),
    modified_at: formatSeconds(row.modified_at),
  }
}

interface PlateQuery {
  ids: number[]
  page: Page
  onlyIds: boolean
}

function readPlateQuery(access: VaultAccess, params: Params): PlateQuery {
  const page = readPageUnlessExporting(params)
  const onlyIds = params.boolean('only_ids', false)
  const plates = params.ids('plates')
  const projects = params.ids('projects')
  if (params.origin === 'query' && params.has('names')) {
    params.raw('names')
    throw invalid('names', 'filters plates only through the POST /plates/query form')
  }
  const names = params.strings('names')
  params.ignore('async', 'format')
  params.rejectUnknown()
  const readable = projects ? projects.filter((id) => access.canReadProject(id)) : access.projectIds
  const clauses = [
    `vault_id = ?`,
    `EXISTS (SELECT 1 FROM plate_projects WHERE plate_id = plates.id
       AND project_id IN (SELECT value FROM json_each(?)))`,
  ]
  const args: unknown[] = [access.vault.id, JSON.stringify(readable)]
  if (plates) {
    clauses.push(`id IN (SELECT value FROM json_each(?))`)
    args.push(JSON.stringify(plates))
  }
  if (names) {
    clauses.push(`name IN (SELECT value FROM json_each(?))`)
    args.push(JSON.stringify(names))
  }
  const ids = (
    access.db
      .prepare(`SELECT id FROM plates WHERE ${clauses.join(' AND ')} ORDER BY id`)
      .all(...args) as {
      id: number
    }[]
  ).map((row) => row.id)
  return { ids, page, onlyIds }
}

function platesByIds(access: VaultAccess, ids: readonly number[]): Record<string, unknown>[] {
  const rows = access.db
    .prepare(`SELECT * FROM plates WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`)
    .all(JSON.stringify(ids)) as PlateRow[]
  return rows.map((row) => plateRecord(access, row))
}

const plateExport: RecordExportable = {
  kind: 'plates',
  formats: ['json', 'csv'],
  *pages(access, params) {
    const { ids } = readPlateQuery(access, params)
    for (let start = 0; start < ids.length; start += 200) {
      yield platesByIds(access, ids.slice(start, start + 200))
    }
  },
}

async function listPlates(ctx: RequestContext): Promise<unknown> {
  const params = await ctx.input()
  if (params.boolean('async', false)) {
    return startCheckedExport(ctx, 'plates', params, params.string('format'), (copy) =>
      readPlateQuery(ctx.access, copy),
    )
  }
  const query = readPlateQuery(ctx.access, params)
  if (query.onlyIds) return idsEnvelope(query.ids, query.page)
  const { offset, pageSize } = query.page
  return envelope(
    query.ids.length,
    query.page,
    platesByIds(ctx.access, query.ids.slice(offset, offset + pageSize)),
  )
}

function readWells(
  access: VaultAccess,
  params: Params,
  format: PlateFormat,
): WellInput[] | undefined {
  const items = params.objects('wells')
  if (!items) return undefined
  const seen = new Set<string>()
  return items.map((item, index) => {
    const member = `wells[${index}]`
    const position = readWellPosition(item, format, member)
    const batch = item.integer('batch', { min: 1 }) ?? null
    const sample = item.integer('sample', { min: 1 }) ?? null
    item.rejectUnknown()
    const key = `${position.row}:${position.col}`
    if (seen.has(key)) throw invalid(member, `repeats well ${wellLabel(position, format)}`)
    seen.add(key)
    if (batch !== null) {
      const found = access.db
        .prepare(
          `SELECT 1 FROM batches WHERE id = ? AND vault_id = ? AND EXISTS (
             SELECT 1 FROM batch_projects WHERE batch_id = batches.id
             AND project_id IN (SELECT value FROM json_each(?)))`,
        )
        .get(batch, access.vault.id, readableProjects(access))
      if (!found) throw invalid(`${member}.batch`, `${batch} is not a batch of this vault`)
    }
    if (sample !== null) {
      const found = access.db
        .prepare(`SELECT 1 FROM inventory_samples WHERE id = ? AND vault_id = ?`)
        .get(sample, access.vault.id)
      if (!found)
        throw invalid(`${member}.sample`, `${sample} is not an inventory sample of this vault`)
    }
    return { row: position.row, col: position.col, batch, sample }
  })
}

function readSize(params: Params): number | undefined {
  const size = params.integer('size')
  if (size !== undefined && !plateFormat(size)) {
    throw invalid('size', `${size} is not a plate size (use 6, 12, 24, 48, 96, 384 or 1536)`)
  }
  return size
}

function replaceWells(db: Database, plateId: number, wells: readonly WellInput[]): void {
  db.prepare(`DELETE FROM plate_wells WHERE plate_id = ?`).run(plateId)
  const insert = db.prepare(
    `INSERT INTO plate_wells (plate_id, row, col, batch_id, sample_id) VALUES (?, ?, ?, ?, ?)`,
  )
  for (const well of wells) insert.run(plateId, well.row, well.col, well.batch, well.sample)
}

function replaceProjects(db: Database, plateId: number, projectIds: readonly number[]): void {
  db.prepare(`DELETE FROM plate_projects WHERE plate_id = ?`).run(plateId)
  const insert = db.prepare(
    `INSERT OR IGNORE INTO plate_projects (plate_id, project_id) VALUES (?, ?)`,
  )
  for (const projectId of projectIds) insert.run(plateId, projectId)
}

function runDataOf(db: Database, plateId: number): number {
  return (
    db.prepare(`SELECT COUNT(*) AS count FROM readout_rows WHERE plate_id = ?`).get(plateId) as {
      count: number
    }
  ).count
}

const ECHOED_MEMBERS = ['id', 'class', 'statistics', 'created_at', 'modified_at']

async function createPlate(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const params = await ctx.input()
  const name = params.requiredString('name').trim()
  const projectItems = params.idsOrNames('projects')
  if (!projectItems || projectItems.length === 0)
    throw invalid('projects', 'is required: name at least one project')
  const projects = resolveProjects(access, projectItems, 'projects')
  const size = readSize(params) ?? 96
  const wells = readWells(access, params, plateFormat(size)!) ?? []
  const location = params.string('location', { allowEmpty: true }) ?? ''
  const concentration = params.number('concentration') ?? null
  const volume = params.number('volume') ?? null
  params.ignore(...ECHOED_MEMBERS)
  params.rejectUnknown()
  const now = ctx.sim.clock.nowSeconds()
  const id = ctx.db.transaction(() => {
    const plateId = Number(
      ctx.db
        .prepare(
          `INSERT INTO plates (vault_id, name, location, concentration, volume, size, owner_id, created_at, modified_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(access.vault.id, name, location, concentration, volume, size, ctx.user.id, now, now)
        .lastInsertRowid,
    )
    replaceProjects(ctx.db, plateId, projects)
    replaceWells(ctx.db, plateId, wells)
    return plateId
  })()
  return plateRecord(access, visiblePlate(access, id))
}

async function updatePlate(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const row = visiblePlate(access, ctx.pathId('id'))
  requireEditable(access, plateProjectIds(ctx.db, row.id), `plate ${row.id}`)
  const params = await ctx.input()
  const bodyId = params.integer('id')
  if (bodyId !== undefined && bodyId !== row.id) {
    throw invalid('id', `must equal the id in the path (${row.id}), got ${bodyId}`)
  }
  const name = params.string('name')?.trim()
  const projectItems = params.idsOrNames('projects')
  const projects = projectItems ? resolveProjects(access, projectItems, 'projects') : undefined
  if (projects && projects.length === 0) throw invalid('projects', 'must name at least one project')
  const size = readSize(params) ?? row.size
  const wells = readWells(access, params, plateFormat(size)!)
  const location = params.string('location', { allowEmpty: true })
  const concentration = params.number('concentration')
  const volume = params.number('volume')
  params.ignore(...ECHOED_MEMBERS)
  params.rejectUnknown()
  const runData = runDataOf(ctx.db, row.id)
  if ((wells || size !== row.size) && runData > 0) {
    throw unprocessable(
      `Plate ${row.id} has run data (${runData} readout rows): its wells cannot change`,
    )
  }
  if (!wells && size !== row.size) {
    const outside = ctx.db
      .prepare(
        `SELECT COUNT(*) AS count FROM plate_wells WHERE plate_id = ? AND (row > ? OR col > ?)`,
      )
      .get(row.id, plateFormat(size)!.rows, plateFormat(size)!.columns) as { count: number }
    if (outside.count > 0)
      throw invalid(
        'size',
        `${size} wells leave ${outside.count} of the plate's wells off the plate`,
      )
  }
  ctx.db.transaction(() => {
    ctx.db
      .prepare(
        `UPDATE plates SET name = ?, location = ?, concentration = ?, volume = ?, size = ?, modified_at = ?
         WHERE id = ?`,
      )
      .run(
        name ?? row.name,
        location ?? row.location,
        concentration ?? row.concentration,
        volume ?? row.volume,
        size,
        ctx.sim.clock.nowSeconds(),
        row.id,
      )
    if (projects) {
      const hidden = plateProjectIds(ctx.db, row.id).filter((id) => !access.canReadProject(id))
      replaceProjects(ctx.db, row.id, [...projects, ...hidden])
    }
    if (wells) replaceWells(ctx.db, row.id, wells)
  })()
  return plateRecord(access, visiblePlate(access, row.id))
}

async function deletePlate(ctx: RequestContext): Promise<unknown> {
  const row = visiblePlate(ctx.access, ctx.pathId('id'))
  requireEditable(ctx.access, plateProjectIds(ctx.db, row.id), `plate ${row.id}`)
  const runData = runDataOf(ctx.db, row.id)
  if (runData > 0) {
    throw unprocessable(
      `Plate ${row.id} has run data (${runData} readout rows) and cannot be deleted`,
    )
  }
  ctx.db.transaction(() => {
    ctx.db.prepare(`UPDATE control_layouts SET plate_id = NULL WHERE plate_id = ?`).run(row.id)
    ctx.db.prepare(`DELETE FROM plates WHERE id = ?`).run(row.id)
  })()
  return { message: `Plate ${row.id} has been destroyed` }
}

export const platesModule: SimModule = {
  name: 'plates',
  schema,
  routes(router) {
    router.query('/vaults/{vault_id}/plates', listPlates)
    router.post('/vaults/{vault_id}/plates', createPlate, { write: true })
    router.get('/vaults/{vault_id}/plates/{id}', (ctx) =>
      plateRecord(ctx.access, visiblePlate(ctx.access, ctx.pathId('id'))),
    )
    router.put('/vaults/{vault_id}/plates/{id}', updatePlate, { write: true })
    router.delete('/vaults/{vault_id}/plates/{id}', deletePlate, { write: true })
  },
  exportables: [plateExport],
  dependentData: {
    batch: (db, batchId) => {
      const { count } = db
        .prepare(`SELECT COUNT(*) AS count FROM plate_wells WHERE batch_id = ?`)
        .get(batchId) as { count: number }
      return count > 0 ? `${count} plate wells` : undefined
    },
    project: (db, projectId) => {
      const { count } = db
        .prepare(`SELECT COUNT(*) AS count FROM plate_projects WHERE project_id = ?`)
        .get(projectId) as { count: number }
      return count > 0 ? `${count} plates` : undefined
    },
  },
}
