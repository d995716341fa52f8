import type { RequestContext } from '../../core/context.ts'
import type { VaultAccess } from '../../core/sim-core.ts'
import type { RecordExportable } from '../../core/exports/exportable.ts'
import { badRequest, forbidden, notFound, unprocessable } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import { envelope, idsEnvelope, readPageUnlessExporting, type Page } from '../../core/pagination.ts'
import type { Params } from '../../core/params.ts'
import { SqlWhere } from '../../core/sql-where.ts'
import { readableProjects, requireEditable } from './access-rules.ts'
import { startCheckedExport } from './async-exports.ts'
import { refreshDoseResponse } from './dose-response-engine.ts'
import { readoutDefinitionsOf } from './protocols.ts'
import {
  readoutRowColumns,
  readoutRowJoins,
  cellObject,
  readoutRowsFrom,
  writeCell,
  type ReadoutCell,
  type ReadoutRowRecord,
} from './readout-store.ts'

/**
 * Readout rows: query (both forms), show, update of `value` and `outlier` on detail rows, delete of
 * detail rows. Changing or deleting a detail row refits the dose-response curves of its run.
 */

const ROW_TYPES = {
  'detail row': 'detail row',
  detail: 'detail row',
  'aggregate row': 'aggregate row',
  aggregate: 'aggregate row',
} as const

/** Read-only members of a row a client may send back unchanged. */
const ECHOED_MEMBERS = [
  'id',
  'class',
  'type',
  'molecule',
  'batch',
  'run',
  'protocol',
  'plate',
  'well',
  'control_state',
  'created_at',
  'modified_at',
]

interface RowQuery {
  ids: number[]
  page: Page
  onlyIds: boolean
  definitions: number[] | undefined
}

function readRowQuery(access: VaultAccess, params: Params): RowQuery {
  const page = readPageUnlessExporting(params)
  const onlyIds = params.boolean('only_ids', false)
  const rawType = params.raw('type')
  if (
    rawType !== undefined &&
    rawType !== null &&
    rawType !== 'all' &&
    !(String(rawType) in ROW_TYPES)
  ) {
    throw unprocessable(
      `type ${JSON.stringify(rawType)} is not a readout row type (use 'detail', 'aggregate' or 'all')`,
    )
  }
  const type =
    rawType === undefined || rawType === null || rawType === 'all'
      ? undefined
      : ROW_TYPES[String(rawType) as keyof typeof ROW_TYPES]
  const where = new SqlWhere()
    .add(`readout_rows.vault_id = ?`, access.vault.id)
    .add(`runs.project_id IN (SELECT value FROM json_each(?))`, readableProjects(access))
  const idFilters: [string, string][] = [
    ['readout_rows', 'readout_rows.id'],
    ['protocols', 'readout_rows.protocol_id'],
    ['runs', 'readout_rows.run_id'],
    ['batches', 'readout_rows.batch_id'],
    ['molecules', 'batches.molecule_id'],
    ['plates', 'readout_rows.plate_id'],
    ['projects', 'runs.project_id'],
  ]
  for (const [key, column] of idFilters) {
    const ids = params.ids(key)
    if (ids) where.ids(column, ids)
  }
  if (type) where.add(`readout_rows.type = ?`, type)
  where.dateRange(params, 'created', 'readout_rows.created_at')
  where.dateRange(params, 'modified', 'readout_rows.modified_at')
  const definitions = params.ids('readout_definitions')
  params.ignore('async', 'format')
  params.rejectUnknown()
  const ids = (
    access.db
      .prepare(
        `SELECT readout_rows.id FROM readout_rows JOIN runs ON runs.id = readout_rows.run_id
         LEFT JOIN batches ON batches.id = readout_rows.batch_id${where}
         ORDER BY readout_rows.id`,
      )
      .all(...where.args) as { id: number }[]
  ).map((row) => row.id)
  return { ids, page, onlyIds, definitions }
}

function rowsByIds(
  access: VaultAccess,
  ids: readonly number[],
  definitions?: readonly number[],
): ReadoutRowRecord[] {
  const rows = access.db
    .prepare(
      `SELECT ${readoutRowColumns} FROM readout_rows ${readoutRowJoins}
       WHERE readout_rows.id IN (SELECT value FROM json_each(?)) ORDER BY readout_rows.id`,
    )
    .all(JSON.stringify(ids))
  return readoutRowsFrom(
    access.db,
    rows,
    definitions,
    access.sim.faults.settings.bareReadoutCells === true,
  )
}

const readoutRowExport: RecordExportable = {
  kind: 'readout_rows',
  formats: ['json', 'csv'],
  *pages(access, params) {
    const query = readRowQuery(access, params)
    for (let start = 0; start < query.ids.length; start += 1000) {
      yield rowsByIds(
        access,
        query.ids.slice(start, start + 1000),
        query.definitions,
      ) as unknown as Record<string, unknown>[]
    }
  },
}

async function queryRows(ctx: RequestContext): Promise<unknown> {
  const params = await ctx.input()
  if (params.boolean('async', false)) {
    return startCheckedExport(ctx, 'readout_rows', params, params.string('format'), (copy) =>
      readRowQuery(ctx.access, copy),
    )
  }
  const query = readRowQuery(ctx.access, params)
  if (query.onlyIds) return idsEnvelope(query.ids, query.page)
  const { offset, pageSize } = query.page
  return envelope(
    query.ids.length,
    query.page,
    rowsByIds(ctx.access, query.ids.slice(offset, offset + pageSize), query.definitions),
  )
}

interface VisibleRow {
  record: ReadoutRowRecord
  projectId: number
}

function visibleRow(access: VaultAccess, id: number): VisibleRow {
  const row = access.db
    .prepare(
      `SELECT runs.project_id FROM readout_rows JOIN runs ON runs.id = readout_rows.run_id
       WHERE readout_rows.id = ? AND readout_rows.vault_id = ?
       AND runs.project_id IN (SELECT value FROM json_each(?))`,
    )
    .get(id, access.vault.id, readableProjects(access)) as { project_id: number } | undefined
  if (!row) throw notFound(`Readout row ${id}`)
  return { record: rowsByIds(access, [id])[0]!, projectId: row.project_id }
}

function requireDetailRow(row: VisibleRow, action: string): void {
  if (row.record.type === 'aggregate row') {
    throw forbidden(
      `Readout row ${row.record.id} is an aggregate row; aggregate rows are calculated and cannot be ${action}`,
    )
  }
}

/** Reads one cell of a PUT: only value and outlier, checked against the readout's definition. */
function readCellChange(
  definitionKey: string,
  raw: unknown,
  definition: { data_type: string; role: string; name: string } | undefined,
  current: ReadoutCell | undefined,
): ReadoutCell {
  const label = `readouts.${definitionKey}`
  if (!definition || definition.role === 'calculated') {
    throw badRequest(`${label}: the row has no such readout that can be changed`)
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw badRequest(`${label} must be an object with value and/or outlier`)
  }
  const change = raw as Record<string, unknown>
  const extra = Object.keys(change).filter((key) => key !== 'value' && key !== 'outlier')
  if (extra.length > 0) {
    throw badRequest(`${label}: only value and outlier can be changed, not ${extra.join(', ')}`)
  }
  const cell: ReadoutCell = { ...current }
  if ('value' in change) {
    const value = change['value']
    delete cell.value
    delete cell.modifier
    if (value !== null && value !== '') {
      if (definition.data_type === 'Number') {
        const number =
          typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN
        if (!Number.isFinite(number)) {
          throw badRequest(
            `${label}.value must be a number for ${definition.name}, got ${JSON.stringify(value)}`,
          )
        }
        cell.value = number
      } else if (typeof value === 'string') {
        cell.value = value
      } else {
        throw badRequest(
          `${label}.value must be text for ${definition.name}, got ${JSON.stringify(value)}`,
        )
      }
    }
  }
  if ('outlier' in change) {
    const flag = change['outlier']
    if (flag !== true && flag !== false && flag !== 'true' && flag !== 'false') {
      throw badRequest(`${label}.outlier must be true or false, got ${JSON.stringify(flag)}`)
    }
    const outlier = flag === true || flag === 'true'
    if (outlier && (definition.data_type !== 'Number' || cell.value === undefined)) {
      throw badRequest(`${label} cannot be flagged as an outlier: only numeric values can`)
    }
    if (outlier) cell.outlier = true
    else delete cell.outlier
  }
  if (cell.outlier && cell.value === undefined) delete cell.outlier
  return cell
}

async function updateRow(ctx: RequestContext): Promise<unknown> {
  const row = visibleRow(ctx.access, ctx.pathId('readout_row_id'))
  requireDetailRow(row, 'changed')
  requireEditable(ctx.access, [row.projectId], `readout row ${row.record.id}`)
  const params = await ctx.input()
  const readouts = params.raw('readouts')
  params.ignore(...ECHOED_MEMBERS)
  const unknown = params.keys().filter((key) => key !== 'readouts' && !ECHOED_MEMBERS.includes(key))
  if (unknown.length > 0) {
    throw badRequest(
      `only readouts (their value and outlier) can be changed, not ${unknown.join(', ')}`,
    )
  }
  if (typeof readouts !== 'object' || readouts === null || Array.isArray(readouts)) {
    throw badRequest('readouts must be an object keyed by readout definition id')
  }
  const definitions = new Map(
    readoutDefinitionsOf(ctx.db, row.record.protocol).map((definition) => [
      String(definition.id),
      definition,
    ]),
  )
  const changes = Object.entries(readouts).map(
    ([key, raw]) =>
      [
        key,
        readCellChange(key, raw, definitions.get(key), cellObject(row.record.readouts[key])),
      ] as const,
  )
  const now = ctx.sim.clock.nowSeconds()
  ctx.db.transaction(() => {
    for (const [key, cell] of changes) {
      if (Object.keys(cell).length === 0) {
        ctx.db
          .prepare(`DELETE FROM readout_cells WHERE row_id = ? AND definition_id = ?`)
          .run(row.record.id, Number(key))
      } else {
        writeCell(ctx.db, row.record.id, Number(key), cell)
      }
    }
    ctx.db.prepare(`UPDATE readout_rows SET modified_at = ? WHERE id = ?`).run(now, row.record.id)
    refreshDoseResponse(ctx.db, now, row.record.protocol, [row.record.run.id])
  })()
  return rowsByIds(ctx.access, [row.record.id])[0]
}

async function deleteRow(ctx: RequestContext): Promise<unknown> {
  const row = visibleRow(ctx.access, ctx.pathId('readout_row_id'))
  requireDetailRow(row, 'deleted')
  requireEditable(ctx.access, [row.projectId], `readout row ${row.record.id}`)
  ctx.db.transaction(() => {
    ctx.db.prepare(`DELETE FROM readout_rows WHERE id = ?`).run(row.record.id)
    refreshDoseResponse(ctx.db, ctx.sim.clock.nowSeconds(), row.record.protocol, [
      row.record.run.id,
    ])
  })()
  return { message: `Readout row ${row.record.id} has been destroyed` }
}

export const readoutRowsModule: SimModule = {
  name: 'readout rows',
  routes(router) {
    router.query('/vaults/{vault_id}/readout_rows', queryRows)
    router.get(
      '/vaults/{vault_id}/readout_rows/{readout_row_id}',
      (ctx) => visibleRow(ctx.access, ctx.pathId('readout_row_id')).record,
    )
    router.put('/vaults/{vault_id}/readout_rows/{readout_row_id}', updateRow, { write: true })
    router.delete('/vaults/{vault_id}/readout_rows/{readout_row_id}', deleteRow, { write: true })
  },
  exportables: [readoutRowExport],
  dependentData: {
    batch: (db, batchId) => {
      const { count } = db
        .prepare(`SELECT COUNT(*) AS count FROM readout_rows WHERE batch_id = ?`)
        .get(batchId) as { count: number }
      return count > 0 ? `${count} readout rows` : undefined
    },
  },
}
