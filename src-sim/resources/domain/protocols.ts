import type { Database } from 'better-sqlite3'
import type { RequestContext } from '../../core/context.ts'
import type { VaultAccess } from '../../core/sim-core.ts'
import { formatDay, formatSeconds } from '../../core/dates.ts'
import type { RecordExportable } from '../../core/exports/exportable.ts'
import { invalid, missingIds, notFound, unprocessable } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import { envelope, idsEnvelope, readPageUnlessExporting, type Page } from '../../core/pagination.ts'
import type { Params } from '../../core/params.ts'
import { formatVaultNumber } from '../../pure/assay-statistics.ts'
import { checkFieldValues } from '../fields.ts'
import {
  projectRef,
  projectRefs,
  readableProjects,
  requireEditable,
  userName,
} from './access-rules.ts'
import { assaySchema } from './assay-schema.ts'
import { startCheckedExport } from './async-exports.ts'
import { calculationsOf } from './dose-response-engine.ts'
import { listedFiles } from './file-listing.ts'
import { resolveProtocolCriteria } from './protocol-criteria.ts'
import { resolveProjects } from './project-lists.ts'

/** Protocols: list, show and update (name, projects and protocol field values). */

export interface ProtocolRow {
  id: number
  vault_id: number
  name: string
  description: string
  category: string
  data_set_id: number | null
  owner_id: number
  created_at: number
  modified_at: number
}

export interface ReadoutDefinitionRow {
  id: number
  protocol_id: number
  name: string
  data_type: 'Number' | 'Text'
  unit_label: string
  precision: number
  aggregation: string
  role: 'concentration' | 'measured' | 'calculated'
  position: number
}

/** A protocol the user reads (one of its projects is theirs), or 404. */
export function visibleProtocol(access: VaultAccess, id: number): ProtocolRow {
  const row = access.db
    .prepare(
      `SELECT * FROM protocols WHERE id = ? AND vault_id = ? AND EXISTS (
         SELECT 1 FROM protocol_projects WHERE protocol_id = protocols.id
         AND project_id IN (SELECT value FROM json_each(?)))`,
    )
    .get(id, access.vault.id, readableProjects(access)) as ProtocolRow | undefined
  if (!row) throw notFound(`Protocol ${id}`)
  return row
}

export function protocolProjectIds(db: Database, protocolId: number): number[] {
  return (
    db
      .prepare(`SELECT project_id FROM protocol_projects WHERE protocol_id = ? ORDER BY project_id`)
      .all(protocolId) as { project_id: number }[]
  ).map((row) => row.project_id)
}

export function readoutDefinitionsOf(db: Database, protocolId: number): ReadoutDefinitionRow[] {
  return db
    .prepare(`SELECT * FROM readout_definitions WHERE protocol_id = ? ORDER BY position, id`)
    .all(protocolId) as ReadoutDefinitionRow[]
}

function readoutDefinitionRecord(definition: ReadoutDefinitionRow): Record<string, unknown> {
  return {
    id: definition.id,
    name: definition.name,
    data_type: definition.data_type,
    unit_label: definition.unit_label,
    precision: definition.precision,
    aggregation: definition.aggregation,
    calculated: definition.role === 'calculated',
  }
}

function protocolRecord(
  access: VaultAccess,
  row: ProtocolRow,
  noRuns: boolean,
): Record<string, unknown> {
  const db = access.db
  const readable = readableProjects(access)
  const dataSet = row.data_set_id
    ? (db.prepare(`SELECT id, name FROM data_sets WHERE id = ?`).get(row.data_set_id) ?? null)
    : null
  const fields = Object.fromEntries(
    (
      db
        .prepare(
          `SELECT name, value FROM protocol_field_values WHERE protocol_id = ? ORDER BY name`,
        )
        .all(row.id) as { name: string; value: string }[]
    ).map((field) => [field.name, field.value]),
  )
  const record: Record<string, unknown> = {
    id: row.id,
    class: 'protocol',
    name: row.name,
    description: row.description,
    category: row.category,
    data_set: dataSet,
    projects: projectRefs(
      db,
      protocolProjectIds(db, row.id).filter((id) => access.canReadProject(id)),
    ),
    owner: userName(db, row.owner_id),
    protocol_fields: fields,
    readout_definitions: readoutDefinitionsOf(db, row.id).map(readoutDefinitionRecord),
    calculations: calculationsOf(db, row.id).map((calculation) => ({
      id: calculation.id,
      name: calculation.name,
      equation_type: calculation.equation_type,
      readout_definition: calculation.response_definition_id,
      concentration_readout_definition: calculation.concentration_definition_id,
      result_readout_definition: calculation.result_definition_id,
    })),
    protocol_statistics: protocolStatistics(db, row.id, readable),
    source_files: listedFiles(db, 'protocol', row.id),
    created_at: formatSeconds(row.created_at),
    modified_at: formatSeconds(row.modified_at),
  }
  if (!noRuns) {
    const runs = db
      .prepare(
        `SELECT * FROM runs WHERE protocol_id = ? AND project_id IN (SELECT value FROM json_each(?))
         ORDER BY run_date, id`,
      )
      .all(row.id, readable) as {
      id: number
      run_date: number
      person: string
      place: string
      conditions: string
      project_id: number
    }[]
    record.runs = runs.map((run) => ({
      id: run.id,
      run_date: formatDay(run.run_date),
      person: run.person,
      place: run.place,
      conditions: run.conditions,
      project: projectRef(db, run.project_id),
    }))
  }
  return record
}

/** Averages of the numeric readouts over the rows the user reads, outliers left out. */
function protocolStatistics(
  db: Database,
  protocolId: number,
  readable: string,
): Record<string, unknown>[] {
  const rows = db
    .prepare(
      `SELECT readout_definitions.id, readout_definitions.name, COUNT(*) AS count,
              AVG(readout_cells.number_value) AS average
       FROM readout_definitions
       JOIN readout_cells ON readout_cells.definition_id = readout_definitions.id
       JOIN readout_rows ON readout_rows.id = readout_cells.row_id
       JOIN runs ON runs.id = readout_rows.run_id
       WHERE readout_definitions.protocol_id = ? AND readout_definitions.data_type = 'Number'
         AND readout_definitions.role != 'concentration' AND readout_cells.outlier = 0
         AND readout_cells.number_value IS NOT NULL
         AND runs.project_id IN (SELECT value FROM json_each(?))
       GROUP BY readout_definitions.id ORDER BY readout_definitions.position`,
    )
    .all(protocolId, readable) as { id: number; name: string; count: number; average: number }[]
  return rows.map((row) => ({
    readout_definition: { id: row.id, name: row.name },
    count: row.count,
    average: formatVaultNumber(row.average),
  }))
}

interface ProtocolQuery {
  ids: number[]
  page: Page
  onlyIds: boolean
  noRuns: boolean
}

function readProtocolQuery(access: VaultAccess, params: Params): ProtocolQuery {
  const page = readPageUnlessExporting(params)
  const onlyIds = params.boolean('only_ids', false)
  const noRuns = params.boolean('no_runs', false)
  const names = params.strings('names')
  const wanted = params.ids('protocols')
  const projects = params.ids('projects')
  params.ignore('async', 'format')
  params.rejectUnknown()
  const clauses = [`vault_id = ?`]
  const args: unknown[] = [access.vault.id]
  const visibleProjects = projects
    ? projects.filter((id) => access.canReadProject(id))
    : access.projectIds
  clauses.push(`EXISTS (SELECT 1 FROM protocol_projects WHERE protocol_id = protocols.id
    AND project_id IN (SELECT value FROM json_each(?)))`)
  args.push(JSON.stringify(visibleProjects))
  if (names) {
    clauses.push(`name IN (SELECT value FROM json_each(?))`)
    args.push(JSON.stringify(names))
  }
  if (wanted) {
    clauses.push(`id IN (SELECT value FROM json_each(?))`)
    args.push(JSON.stringify(wanted))
  }
  const ids = (
    access.db
      .prepare(`SELECT id FROM protocols WHERE ${clauses.join(' AND ')} ORDER BY id`)
      .all(...args) as { id: number }[]
  ).map((row) => row.id)
  if (wanted && !projects && !names) {
    const found = new Set(ids)
    const missing = wanted.filter((id) => !found.has(id))
    if (missing.length > 0) throw missingIds('Protocols', missing)
  }
  return { ids, page, onlyIds, noRuns }
}

function protocolsByIds(access: VaultAccess, ids: readonly number[], noRuns: boolean) {
  const rows = access.db
    .prepare(`SELECT * FROM protocols WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`)
    .all(JSON.stringify(ids)) as ProtocolRow[]
  return rows.map((row) => protocolRecord(access, row, noRuns))
}

const protocolExport: RecordExportable = {
  kind: 'protocols',
  formats: ['json', 'csv'],
  *pages(access, params) {
    const query = readProtocolQuery(access, params)
    for (let start = 0; start < query.ids.length; start += 200) {
      yield protocolsByIds(access, query.ids.slice(start, start + 200), query.noRuns)
    }
  },
}

async function listProtocols(ctx: RequestContext): Promise<unknown> {
  const params = await ctx.input()
  if (params.boolean('async', false)) {
    return startCheckedExport(ctx, 'protocols', params, params.string('format'), (copy) =>
      readProtocolQuery(ctx.access, copy),
    )
  }
  const query = readProtocolQuery(ctx.access, params)
  if (query.onlyIds) return idsEnvelope(query.ids, query.page)
  const pageIds = query.ids.slice(query.page.offset, query.page.offset + query.page.pageSize)
  return envelope(query.ids.length, query.page, protocolsByIds(ctx.access, pageIds, query.noRuns))
}

async function showProtocol(ctx: RequestContext): Promise<unknown> {
  const params = await ctx.input()
  const noRuns = params.boolean('no_runs', false)
  params.rejectUnknown()
  return protocolRecord(ctx.access, visibleProtocol(ctx.access, ctx.pathId('id')), noRuns)
}

async function updateProtocol(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const row = visibleProtocol(access, ctx.pathId('id'))
  requireEditable(access, protocolProjectIds(ctx.db, row.id), `protocol ${row.id}`)
  const params = await ctx.input()
  if (params.has('readout_definitions')) {
    params.raw('readout_definitions')
    throw unprocessable(
      'readout_definitions cannot be changed through the API; only name, projects and protocol_fields can',
    )
  }
  const bodyId = params.integer('id')
  if (bodyId !== undefined && bodyId !== row.id) {
    throw invalid('id', `must equal the id in the path (${row.id}), got ${bodyId}`)
  }
  const name = params.string('name')?.trim()
  const projects = params.has('projects')
    ? resolveProjects(access, params.idsOrNames('projects') ?? [], 'projects')
    : undefined
  const fieldValues = params.record('protocol_fields')
  params.ignore(
    'class',
    'description',
    'category',
    'data_set',
    'owner',
    'calculations',
    'runs',
    'protocol_statistics',
    'created_at',
    'modified_at',
  )
  params.rejectUnknown()
  if (projects && projects.length === 0) {
    throw invalid('projects', 'must name at least one project')
  }
  const checkedFields = fieldValues
    ? checkFieldValues(ctx.db, access.vault.id, 'protocol', fieldValues, 'protocol_fields')
    : {}
  if (name !== undefined && name !== row.name) {
    const clash = ctx.db
      .prepare(`SELECT id FROM protocols WHERE vault_id = ? AND name = ? AND id != ?`)
      .get(access.vault.id, name, row.id)
    if (clash) throw invalid('name', `'${name}' is already the name of another protocol`)
  }
  const now = ctx.sim.clock.nowSeconds()
  ctx.db.transaction(() => {
    if (name !== undefined)
      ctx.db.prepare(`UPDATE protocols SET name = ? WHERE id = ?`).run(name, row.id)
    if (projects) {
      // Projects the user cannot read stay: a user cannot unshare what they cannot see.
      const hidden = protocolProjectIds(ctx.db, row.id).filter((id) => !access.canReadProject(id))
      ctx.db.prepare(`DELETE FROM protocol_projects WHERE protocol_id = ?`).run(row.id)
      const insert = ctx.db.prepare(
        `INSERT OR IGNORE INTO protocol_projects (protocol_id, project_id) VALUES (?, ?)`,
      )
      for (const projectId of [...projects, ...hidden]) insert.run(row.id, projectId)
    }
    for (const [field, value] of Object.entries(checkedFields)) {
      if (value === null) {
        ctx.db
          .prepare(`DELETE FROM protocol_field_values WHERE protocol_id = ? AND name = ?`)
          .run(row.id, field)
      } else {
        ctx.db
          .prepare(
            `INSERT OR REPLACE INTO protocol_field_values (protocol_id, name, value) VALUES (?, ?, ?)`,
          )
          .run(row.id, field, String(value))
      }
    }
    ctx.db.prepare(`UPDATE protocols SET modified_at = ? WHERE id = ?`).run(now, row.id)
  })()
  return protocolRecord(access, visibleProtocol(access, row.id), false)
}

export const protocolsModule: SimModule = {
  name: 'protocols',
  schema: assaySchema,
  routes(router) {
    router.query('/vaults/{vault_id}/protocols', listProtocols)
    router.get('/vaults/{vault_id}/protocols/{id}', showProtocol)
    router.put('/vaults/{vault_id}/protocols/{id}', updateProtocol, { write: true })
  },
  exportables: [protocolExport],
  protocolCriteria: resolveProtocolCriteria,
  dependentData: {
    project: (db, projectId) => {
      const counts = db
        .prepare(
          `SELECT (SELECT COUNT(*) FROM runs WHERE project_id = ?) AS runs,
                  (SELECT COUNT(*) FROM protocol_projects WHERE project_id = ?) AS protocols`,
        )
        .get(projectId, projectId) as { runs: number; protocols: number }
      const parts = [
        ...(counts.protocols > 0 ? [`${counts.protocols} protocols`] : []),
        ...(counts.runs > 0 ? [`${counts.runs} runs`] : []),
      ]
      return parts.length > 0 ? parts.join(' and ') : undefined
    },
  },
}
