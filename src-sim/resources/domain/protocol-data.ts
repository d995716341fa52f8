import type { RequestContext } from '../../core/context.ts'
import type { VaultAccess } from '../../core/sim-core.ts'
import type { RecordExportable } from '../../core/exports/exportable.ts'
import type { SimModule } from '../../core/module.ts'
import { envelope, readPageUnlessExporting, type Page } from '../../core/pagination.ts'
import type { Params } from '../../core/params.ts'
import { startCheckedExport } from './async-exports.ts'
import { readoutDefinitionsOf, visibleProtocol, type ReadoutDefinitionRow } from './protocols.ts'
import {
  cellObject,
  cellOf,
  readoutRowColumns,
  readoutRowJoins,
  readoutRowsFrom,
  type CellData,
  type ReadoutRowRecord,
} from './readout-store.ts'

/**
 * GET /protocols/{protocol_id}/data: the protocol's detail rows, each with the readouts of its
 * run and batch's aggregate row merged in. `format=csv` (or `async=true`) makes an export; the
 * CSV has one column per readout, named with its unit.
 */

interface DataQuery {
  protocolId: number
  rowIds: number[]
  page: Page
}

function readDataQuery(access: VaultAccess, protocolId: number, params: Params): DataQuery {
  visibleProtocol(access, protocolId)
  // A format asks for an export as async does (the spec: "csv gives a CSV export").
  const page = readPageUnlessExporting(
    params,
    params.boolean('async', false) || params.has('format'),
  )
  const molecules = params.ids('molecules')
  const runs = params.ids('runs')
  const plates = params.ids('plates')
  const projects = params.ids('projects')
  params.ignore('async', 'format', 'protocol_id')
  params.rejectUnknown()
  const readable = projects ? projects.filter((id) => access.canReadProject(id)) : access.projectIds
  const clauses = [
    `readout_rows.protocol_id = ?`,
    `readout_rows.type = 'detail row'`,
    `runs.project_id IN (SELECT value FROM json_each(?))`,
  ]
  const args: unknown[] = [protocolId, JSON.stringify(readable)]
  if (molecules) {
    clauses.push(`batches.molecule_id IN (SELECT value FROM json_each(?))`)
    args.push(JSON.stringify(molecules))
  }
  if (runs) {
    clauses.push(`readout_rows.run_id IN (SELECT value FROM json_each(?))`)
    args.push(JSON.stringify(runs))
  }
  if (plates) {
    clauses.push(`readout_rows.plate_id IN (SELECT value FROM json_each(?))`)
    args.push(JSON.stringify(plates))
  }
  const rowIds = (
    access.db
      .prepare(
        `SELECT readout_rows.id FROM readout_rows JOIN runs ON runs.id = readout_rows.run_id
         LEFT JOIN batches ON batches.id = readout_rows.batch_id
         WHERE ${clauses.join(' AND ')} ORDER BY readout_rows.run_id, readout_rows.id`,
      )
      .all(...args) as { id: number }[]
  ).map((row) => row.id)
  return { protocolId, rowIds, page }
}

/** Detail rows with the cells of the matching aggregate row added to their readouts. */
function mergedRows(access: VaultAccess, rowIds: readonly number[]): ReadoutRowRecord[] {
  const db = access.db
  const rows = db
    .prepare(
      `SELECT ${readoutRowColumns} FROM readout_rows ${readoutRowJoins}
       WHERE readout_rows.id IN (SELECT value FROM json_each(?))
       ORDER BY readout_rows.run_id, readout_rows.id`,
    )
    .all(JSON.stringify(rowIds))
  const bare = access.sim.faults.settings.bareReadoutCells === true
  const records = readoutRowsFrom(db, rows, undefined, bare)
  const aggregateCells = db.prepare(
    `SELECT readout_cells.* FROM readout_cells JOIN readout_rows ON readout_rows.id = readout_cells.row_id
     WHERE readout_rows.run_id = ? AND readout_rows.batch_id = ? AND readout_rows.type = 'aggregate row'`,
  )
  const cache = new Map<string, CellData[]>()
  for (const record of records) {
    if (record.batch === null) continue
    const key = `${record.run.id}:${record.batch}`
    let cells = cache.get(key)
    if (!cells) {
      cells = aggregateCells.all(record.run.id, record.batch) as CellData[]
      cache.set(key, cells)
    }
    for (const cell of cells) record.readouts[String(cell.definition_id)] = cellOf(cell, bare)
  }
  return records
}

/** One CSV-friendly record: readouts become columns named after their definitions. */
function flatRecord(
  record: ReadoutRowRecord,
  definitions: readonly ReadoutDefinitionRow[],
): Record<string, unknown> {
  const flat: Record<string, unknown> = {
    id: record.id,
    run: record.run.id,
    run_date: record.run.run_date,
    molecule: record.molecule,
    batch: record.batch,
    plate: record.plate ?? null,
    well: record.well ?? null,
    control_state: record.control_state ?? null,
  }
  for (const definition of definitions) {
    const label = definition.unit_label
      ? `${definition.name} (${definition.unit_label})`
      : definition.name
    const cell = cellObject(record.readouts[String(definition.id)])
    flat[label] = cell?.value === undefined ? '' : `${cell.modifier ?? ''}${cell.value}`
    if (cell?.outlier) flat[`${definition.name} outlier`] = true
    if (cell?.note) flat[`${definition.name} note`] = cell.note
  }
  return flat
}

const protocolDataExport: RecordExportable = {
  kind: 'protocol_data',
  formats: ['json', 'csv'],
  *pages(access, params) {
    const csv = params.string('format')?.toLowerCase() === 'csv'
    const query = readDataQuery(access, params.requiredInteger('protocol_id'), params)
    const definitions = readoutDefinitionsOf(access.db, query.protocolId)
    for (let start = 0; start < query.rowIds.length; start += 1000) {
      const records = mergedRows(access, query.rowIds.slice(start, start + 1000))
      yield csv
        ? records.map((record) => flatRecord(record, definitions))
        : (records as unknown as Record<string, unknown>[])
    }
  },
}

async function protocolData(ctx: RequestContext): Promise<unknown> {
  const params = await ctx.input()
  const protocolId = ctx.pathId('protocol_id')
  const format = params.string('format')
  if (params.boolean('async', false) || format !== undefined) {
    return startCheckedExport(
      ctx,
      'protocol_data',
      params,
      format,
      (copy) => readDataQuery(ctx.access, protocolId, copy),
      { protocol_id: protocolId },
    )
  }
  const query = readDataQuery(ctx.access, protocolId, params)
  const { offset, pageSize } = query.page
  return envelope(
    query.rowIds.length,
    query.page,
    mergedRows(ctx.access, query.rowIds.slice(offset, offset + pageSize)),
  )
}

export const protocolDataModule: SimModule = {
  name: 'protocol data',
  routes(router) {
    router.query('/vaults/{vault_id}/protocols/{protocol_id}/data', protocolData)
  },
  exportables: [protocolDataExport],
}
