import type Database from 'better-sqlite3'
import {
  protocolEntryOf,
  type ReadoutDefinitionEntry,
} from '../../src-common/analysis/readouts/catalogue.ts'
import { indexedCellOf } from '../../src-common/analysis/readouts/comparisons.ts'
import { givenText } from '../../src-common/analysis/readouts/readout-value.ts'
import { readResultRow } from '../../src-common/analysis/readouts/result-rows.ts'
import {
  isObject,
  toId,
  toLinkId,
  toNumber,
  toText,
  type JsonObject,
} from '../../src-common/values.ts'

/**
 * The data series of dose-response calculations with their points, from the cache: the
 * calculations and series as the vault sent them, and each series' points from the readout value
 * index (the detail rows of its batch and run, concentration and response in their definitions'
 * units). However many series a selection holds, it is read with seven statements (series, their
 * count, calculations, protocols, cells, batch and plate names), never one per series.
 * Corrections still waiting in the outbox are laid over the index's cells before anything is
 * reported, so that a well marked as an outlier offline is an outlier here at once.
 */

/**
 * Which series: of a protocol, of a batch, or one; of some protocols' batches or molecules (the
 * rows of a results table); optionally one worker's share, or a page. Conditions add up.
 */
export interface CurveSelection {
  protocolId?: number
  batchId?: number
  seriesId?: number
  /** Of these protocols (their calculations are answered even where no series is selected). */
  protocolIds?: number[]
  /** Of these batches. */
  batchIds?: number[]
  /** Of the cached batches of these molecules (as each batch's page shows them). */
  moleculeIds?: number[]
  /**
   * Only series whose batch id modulo `count` is `index` (a batch's series stay together): one
   * worker's share. Of a page, its share of the page.
   */
  shard?: { index: number; count: number }
  offset?: number
  limit?: number
}

/** A readout row with changes waiting in the outbox: its cached copy with the changes applied. */
export interface PendingReadoutRow {
  rowId: number
  record: JsonObject
  /** The most pressing state of its items (queued, sending, conflict...). */
  state: string
  itemIds: number[]
}

/** A data series with new fit constraints waiting in the outbox: its cached copy with them. */
export interface PendingSeriesEdit {
  seriesId: number
  record: JsonObject
  state: string
  itemIds: number[]
}

export interface CurveReadout {
  definitionId: number
  /** Null when the protocol does not define it (a calculation naming a definition since removed). */
  name: string | null
  unit: string | null
}

export interface CurveCalculation {
  id: number
  protocolId: number
  protocolName: string | null
  name: string | null
  /** As the vault names it; not necessarily one of the six (the fit then says so). */
  equationType: string | null
  response: CurveReadout | null
  concentration: CurveReadout | null
  result: CurveReadout | null
  /** The calculation's constraints as the vault sent them (`fit_parameters`). */
  fitParameters: unknown
  minimumActivity: { min: number | null; max: number | null } | null
}

export interface CurvePoint {
  rowId: number
  plateId: number | null
  /** The plate's name as the cache holds it; null when the plate is not cached. */
  plateName: string | null
  well: string | null
  /**
   * In the concentration readout's unit: the number, or a qualified value's bound (see
   * `concentrationModifier`); null for text, an empty cell or no cell.
   */
  concentration: number | null
  concentrationModifier: string | null
  /** In the response readout's unit; a qualified value's bound with `responseModifier`. */
  response: number | null
  /** `<`, `>`, `~`...: a censored response (`>30`), drawn apart and never fitted as a number. */
  responseModifier: string | null
  /** The cells as given (`>30`, `n.d.`, `850 nM`); null for an empty cell or no cell. */
  concentrationText: string | null
  responseText: string | null
  /** Flagged as an outlier (by the vault, or by a correction waiting in the outbox). */
  outlier: boolean
  /** A correction of this row waits in the outbox (its state and items); null otherwise. */
  pending: { state: string; itemIds: number[] } | null
}

/** What the vault said of a series' curve. */
export interface VaultFit {
  /** `fitted`, `inactive` or `failed` as the vault says; null when it did not say. */
  status: string | null
  /** Its fitted parameters (numbers), null when it sent none. */
  parameters: Record<string, number> | null
  rSquared: number | null
  pointsUsed: number | null
  error: string | null
  /** The cell it wrote to the result readout (`>30` when outside the tested range). */
  result: { value: number | null; modifier: string | null; note: string | null } | null
  /**
   * Whether the vault fitted the points the cache holds (same rows, values and outlier flags):
   * false when readout rows changed since the series was synced; null when it listed no points.
   */
  samePoints: boolean | null
}

export interface CurveSeriesData {
  id: number
  calculationId: number
  protocolId: number
  batchId: number | null
  /** The batch's name as the cache holds it; null when the batch is not cached. */
  batchName: string | null
  moleculeId: number | null
  runId: number | null
  runDate: string | null
  /** The equation type the series record names (its calculation's, normally). */
  equationType: string | null
  /**
   * The series' own constraints, which override the calculation's: as the vault sent them, or as
   * an edit waiting in the outbox makes them (see `pendingEdit`).
   */
  fitParameters: unknown
  /** An edit of the series' constraints waits in the outbox (its state and items); else null. */
  pendingEdit: { state: string; itemIds: number[] } | null
  /** The series' `modified_at` as the vault sent it: what an edit of it is based on. */
  modifiedAt: string | null
  vault: VaultFit
  /** Ordered by concentration (cells without one last), then row. */
  points: CurvePoint[]
}

export interface CurveData {
  calculations: CurveCalculation[]
  /** Series in the selection before paging (or sharding). */
  total: number
  series: CurveSeriesData[]
}

interface SeriesRow {
  id: number
  calculation_id: number
  batch_id: number | null
  run_id: number | null
  protocol_id: number
  json: string
}

interface CalculationRow {
  id: number
  protocol_id: number
  name: string | null
  json: string
}

/** A cell of the index: row, run, batch, definition, plate, well, outlier, kind, number, modifier, text. */
type CellRow = [
  number,
  number | null,
  number | null,
  number,
  number | null,
  string | null,
  number,
  string,
  number | null,
  string | null,
  string | null,
]

/** A cell as the index holds it, or as a pending correction makes it. */
interface Cell {
  kind: string
  number: number | null
  modifier: string | null
  text: string | null
  outlier: boolean
}

interface RowCells {
  rowId: number
  plateId: number | null
  well: string | null
  cells: Map<number, Cell>
}

/** Above this many series a selection's cells are read by definition, not batch by batch. */
const batchLookupLimit = 200

/** Up to this many rows waiting for the index are read from the cache itself (see below). */
const queuedRowsLimit = 2000

export class CurveQueries {
  readonly #db: Database.Database
  readonly #statements = new Map<string, Database.Statement>()

  constructor(db: Database.Database) {
    this.#db = db
  }

  /** The series of a selection with their calculations and points, pending corrections applied. */
  read(
    vaultId: number,
    selection: CurveSelection,
    pending: readonly PendingReadoutRow[] = [],
    pendingSeries: readonly PendingSeriesEdit[] = [],
  ): CurveData {
    if (
      selection.protocolId === undefined &&
      selection.batchId === undefined &&
      selection.seriesId === undefined &&
      selection.protocolIds === undefined &&
      selection.batchIds === undefined &&
      selection.moleculeIds === undefined
    ) {
      throw new Error('A selection of curves names a protocol, a batch, a molecule or a series.')
    }
    const { rows: seriesRows, total } = this.#seriesRows(vaultId, selection)
    const protocolIds = [
      ...(selection.protocolId !== undefined ? [selection.protocolId] : []),
      ...(selection.protocolIds ?? []),
    ]
    const calculations = this.#calculations(vaultId, protocolIds, seriesRows)
    const byId = new Map(calculations.map((calculation) => [calculation.id, calculation]))
    const rows = this.#rowCells(vaultId, calculations, seriesRows, selection)
    const definitions = new Map(
      calculations.map((calculation) => [calculation.protocolId, calculation.definitions]),
    )
    this.#withQueuedRows(vaultId, seriesRows, definitions, rows)
    const overrides = pendingOverrides(pending, definitions)
    const edits = new Map(pendingSeries.map((edit) => [edit.seriesId, edit]))
    const series = seriesRows.map((row) =>
      seriesData(row, byId.get(row.calculation_id) ?? null, rows, overrides, edits.get(row.id)),
    )
    this.#name(vaultId, series)
    return {
      calculations: calculations.map(
        ({ definitions: _definitions, ...calculation }) => calculation,
      ),
      total,
      series,
    }
  }

  /**
   * Lays over the index's cells the cached rows it has yet to index (a correction just sent and
   * stored, a page sync just wrote), read as the index will read them: without it a curve would
   * go back to its old points between a correction's sending and its indexing. Only while few
   * are waiting: behind a large first sync the answer says so by its backlog instead.
   */
  #withQueuedRows(
    vaultId: number,
    seriesRows: readonly SeriesRow[],
    definitions: ReadonlyMap<number, ReadonlyMap<number, ReadoutDefinitionEntry>>,
    rowsByKey: Map<string, RowCells[]>,
  ): void {
    if (seriesRows.length === 0) return
    const queued = this.#statement(
      `SELECT q.row_id, r.json FROM readout_index_queue q
         LEFT JOIN readout_rows r ON r.vault_id = q.vault_id AND r.id = q.row_id
        WHERE q.vault_id = @vaultId
          AND (r.id IS NULL OR r.batch_id IN (SELECT value FROM json_each(@batchIds)))
        LIMIT @limit`,
    )
      .raw()
      .all({
        vaultId,
        batchIds: JSON.stringify([...new Set(seriesRows.map((row) => row.batch_id))]),
        limit: queuedRowsLimit + 1,
      }) as [number, string | null][]
    if (queued.length === 0 || queued.length > queuedRowsLimit) return
    // Rows deleted since they were indexed leave their series.
    const deleted = new Set(queued.flatMap(([rowId, json]) => (json === null ? [rowId] : [])))
    if (deleted.size > 0) {
      for (const [key, group] of rowsByKey) {
        rowsByKey.set(
          key,
          group.filter((cells) => !deleted.has(cells.rowId)),
        )
      }
    }
    const wanted = new Set(seriesRows.map((row) => seriesKey(row.run_id, row.batch_id)))
    const overrides = pendingOverrides(
      queued.flatMap(([rowId, json]) =>
        json === null
          ? []
          : [
              {
                rowId,
                record: JSON.parse(json) as JsonObject,
                state: '',
                itemIds: [],
              },
            ],
      ),
      definitions,
    )
    for (const override of overrides.values()) {
      const key = seriesKey(override.runId, override.batchId)
      for (const [otherKey, group] of rowsByKey) {
        if (otherKey === key) continue
        const index = group.findIndex((cells) => cells.rowId === override.rowId)
        if (index >= 0) group.splice(index, 1)
      }
      if (override.aggregateRow || !wanted.has(key)) continue
      const group = rowsByKey.get(key) ?? []
      rowsByKey.set(key, group)
      const row = {
        rowId: override.rowId,
        plateId: override.plateId,
        well: override.well,
        cells: override.cells,
      }
      const index = group.findIndex((cells) => cells.rowId === override.rowId)
      if (index >= 0) group[index] = row
      else group.push(row)
    }
  }

  /**
   * Gives the series their batches' names (as their pages are titled: the molecule-batch
   * identifier) and molecules (the cached batch's, as a molecule's page lists its batches), and
   * the points their plates' names, as cached.
   */
  #name(vaultId: number, series: CurveSeriesData[]): void {
    const titles = {
      batches: "coalesce(json_extract(json, '$.molecule_batch_identifier'), name), molecule_id",
      plates: 'name, NULL',
    }
    const namesOf = (table: 'batches' | 'plates', ids: Set<number | null>) =>
      new Map(
        ids.size === 0
          ? []
          : (
              this.#statement(
                `SELECT id, ${titles[table]} FROM ${table}
                  WHERE vault_id = ? AND id IN (SELECT value FROM json_each(?))`,
              )
                .raw()
                .all(vaultId, JSON.stringify([...ids].filter((id) => id !== null))) as [
                number,
                string | null,
                number | null,
              ][]
            ).map(([id, name, moleculeId]) => [id, { name, moleculeId }]),
      )
    const batches = namesOf('batches', new Set(series.map((entry) => entry.batchId)))
    const plates = namesOf(
      'plates',
      new Set(series.flatMap((entry) => entry.points.map((point) => point.plateId))),
    )
    for (const entry of series) {
      const batch = entry.batchId === null ? undefined : batches.get(entry.batchId)
      entry.batchName = batch?.name ?? null
      entry.moleculeId = batch?.moleculeId ?? entry.moleculeId
      for (const point of entry.points) {
        point.plateName = point.plateId === null ? null : (plates.get(point.plateId)?.name ?? null)
      }
    }
  }

  /**
   * The selection's series in order (a page of them when asked), then the shard's share of those,
   * with the number of series in the whole selection.
   */
  #seriesRows(vaultId: number, selection: CurveSelection): { rows: SeriesRow[]; total: number } {
    const conditions = ['s.vault_id = @vaultId']
    if (selection.protocolId !== undefined) conditions.push('c.protocol_id = @protocolId')
    if (selection.batchId !== undefined) conditions.push('s.batch_id = @batchId')
    if (selection.seriesId !== undefined) conditions.push('s.id = @seriesId')
    if (selection.protocolIds !== undefined) {
      conditions.push('c.protocol_id IN (SELECT value FROM json_each(@protocolIds))')
    }
    if (selection.batchIds !== undefined) {
      conditions.push('s.batch_id IN (SELECT value FROM json_each(@batchIds))')
    }
    if (selection.moleculeIds !== undefined) {
      conditions.push(
        `s.batch_id IN (SELECT id FROM batches
                         WHERE vault_id = @vaultId
                           AND molecule_id IN (SELECT value FROM json_each(@moleculeIds)))`,
      )
    }
    const paged = selection.limit !== undefined || selection.offset !== undefined
    const from = `FROM dose_response_series s
                  JOIN dose_response_calculations c
                    ON c.vault_id = s.vault_id AND c.id = s.calculation_id
                 WHERE ${conditions.join(' AND ')}`
    const order = 'c.protocol_id, s.calculation_id, s.run_id, s.batch_id, s.id'
    const parameters = {
      vaultId,
      ...(selection.protocolId !== undefined ? { protocolId: selection.protocolId } : {}),
      ...(selection.batchId !== undefined ? { batchId: selection.batchId } : {}),
      ...(selection.seriesId !== undefined ? { seriesId: selection.seriesId } : {}),
      ...(selection.protocolIds !== undefined
        ? { protocolIds: JSON.stringify(selection.protocolIds) }
        : {}),
      ...(selection.batchIds !== undefined ? { batchIds: JSON.stringify(selection.batchIds) } : {}),
      ...(selection.moleculeIds !== undefined
        ? { moleculeIds: JSON.stringify(selection.moleculeIds) }
        : {}),
    }
    const rows = this.#statement(
      `WITH selected AS (
         SELECT s.id, s.calculation_id, s.batch_id, s.run_id, c.protocol_id, s.json ${from}
          ORDER BY ${order} ${paged ? 'LIMIT @limit OFFSET @offset' : ''})
       SELECT * FROM selected
        ${selection.shard ? 'WHERE batch_id % @shardCount = @shardIndex' : ''}
        ORDER BY protocol_id, calculation_id, run_id, batch_id, id`,
    ).all({
      ...parameters,
      ...(selection.shard
        ? { shardCount: selection.shard.count, shardIndex: selection.shard.index }
        : {}),
      ...(paged ? { limit: selection.limit ?? -1, offset: selection.offset ?? 0 } : {}),
    }) as SeriesRow[]
    const whole = !paged && !selection.shard
    const total = whole
      ? rows.length
      : (this.#statement(`SELECT count(*) ${from}`).pluck().get(parameters) as number)
    return { rows, total }
  }

  /** The protocols' calculations (those without series too) and those the series belong to. */
  #calculations(
    vaultId: number,
    protocolIds: readonly number[],
    seriesRows: readonly SeriesRow[],
  ): (CurveCalculation & { definitions: Map<number, ReadoutDefinitionEntry> })[] {
    const ids = [...new Set(seriesRows.map((row) => row.calculation_id))]
    const rows = this.#statement(
      `SELECT id, protocol_id, name, json FROM dose_response_calculations
        WHERE vault_id = @vaultId
          AND (protocol_id IN (SELECT value FROM json_each(@protocolIds))
               OR id IN (SELECT value FROM json_each(@ids)))
        ORDER BY protocol_id, id`,
    ).all({
      vaultId,
      protocolIds: JSON.stringify(protocolIds),
      ids: JSON.stringify(ids),
    }) as CalculationRow[]
    const protocols = new Map(
      (
        this.#statement(
          `SELECT json FROM protocols
            WHERE vault_id = ? AND id IN (SELECT value FROM json_each(?))`,
        )
          .pluck()
          .all(
            vaultId,
            JSON.stringify([...new Set(rows.map((row) => row.protocol_id))]),
          ) as string[]
      ).flatMap((json) => {
        const entry = protocolEntryOf(JSON.parse(json))
        return entry ? [[entry.id, entry] as const] : []
      }),
    )
    return rows.map((row) => {
      const record = JSON.parse(row.json) as JsonObject
      const protocol = protocols.get(row.protocol_id)
      const definitions = new Map(
        (protocol?.readouts ?? []).map((definition) => [definition.id, definition]),
      )
      const readout = (member: string): CurveReadout | null => {
        const definitionId = toLinkId(record[member])
        if (definitionId === null) return null
        const definition = definitions.get(definitionId)
        return {
          definitionId,
          name: definition?.name ?? null,
          unit: definition?.unit || null,
        }
      }
      const activity = isObject(record.minimum_activity) ? record.minimum_activity : null
      const min = toNumber(activity?.min)
      const max = toNumber(activity?.max)
      return {
        id: row.id,
        protocolId: row.protocol_id,
        protocolName: protocol?.name ?? null,
        name: toText(record.name) ?? row.name,
        equationType: toText(record.equation_type),
        response: readout('readout_definition'),
        concentration: readout('concentration_readout_definition'),
        result: readout('result_readout_definition'),
        fitParameters: record.fit_parameters ?? null,
        minimumActivity: min === null && max === null ? null : { min, max },
        definitions,
      }
    })
  }

  /**
   * The concentration and response cells of the detail rows of the selection's batches and runs,
   * by run and batch. A large selection reads the protocols' cells of those definitions; a few
   * series (a batch, a page) read their batches' cells only.
   */
  #rowCells(
    vaultId: number,
    calculations: readonly CurveCalculation[],
    seriesRows: readonly SeriesRow[],
    selection: CurveSelection,
  ): Map<string, RowCells[]> {
    const definitionIds = [
      ...new Set(
        calculations.flatMap((calculation) =>
          [calculation.concentration, calculation.response].flatMap((readout) =>
            readout ? [readout.definitionId] : [],
          ),
        ),
      ),
    ]
    const protocolIds = [...new Set(calculations.map((calculation) => calculation.protocolId))]
    const wanted = new Set(seriesRows.map((row) => seriesKey(row.run_id, row.batch_id)))
    const byBatch =
      seriesRows.length <= batchLookupLimit ||
      selection.batchId !== undefined ||
      selection.batchIds !== undefined ||
      selection.moleculeIds !== undefined
    const groups = new Map<string, Map<number, RowCells>>()
    if (seriesRows.length === 0 || definitionIds.length === 0) return new Map()
    const cells = this.#statement(
      curveCellsSql({ byBatch, sharded: selection.shard !== undefined, covered: this.#covered() }),
    )
      .raw()
      .iterate({
        ...(selection.shard
          ? { shardCount: selection.shard.count, shardIndex: selection.shard.index }
          : {}),
        vaultId,
        batchIds: JSON.stringify(
          byBatch ? [...new Set(seriesRows.map((row) => row.batch_id))] : [],
        ),
        definitionIds: JSON.stringify(definitionIds),
        protocolIds: JSON.stringify(protocolIds),
      }) as IterableIterator<CellRow>
    // Rows as arrays (the columns' order above): a protocol's cells are many, objects cost.
    // A series' rows come one after another (each readout's in turn, along the curve index): its
    // key and group are found once for them, and a row's cells once per readout.
    let lastRun: number | null | undefined
    let lastBatch: number | null | undefined
    let group: Map<number, RowCells> | undefined
    for (const cell of cells) {
      const runId = cell[1]
      const batchId = cell[2]
      if (runId !== lastRun || batchId !== lastBatch) {
        lastRun = runId
        lastBatch = batchId
        const key = seriesKey(runId, batchId)
        group = groups.get(key)
        if (!group && wanted.has(key)) groups.set(key, (group = new Map()))
      }
      if (!group) continue
      const rowId = cell[0]
      let row = group.get(rowId)
      if (!row)
        group.set(rowId, (row = { rowId, plateId: cell[4], well: cell[5], cells: new Map() }))
      row.cells.set(cell[3], {
        kind: cell[7],
        number: cell[8],
        modifier: cell[9],
        text: cell[10],
        outlier: cell[6] === 1,
      })
    }
    const byKey = new Map<string, RowCells[]>()
    for (const [key, rows] of groups) byKey.set(key, [...rows.values()])
    return byKey
  }

  /** Whether cache step 15's curve index is made (a large cache gets it from the writer's worker). */
  #covered(): boolean {
    return (
      this.#statement(
        `SELECT EXISTS (SELECT 1 FROM sqlite_schema
                         WHERE type = 'index' AND name = 'readout_values_for_curves')`,
      )
        .pluck()
        .get() === 1
    )
  }

  #statement(sql: string): Database.Statement {
    let statement = this.#statements.get(sql)
    if (!statement) this.#statements.set(sql, (statement = this.#db.prepare(sql)))
    return statement
  }
}

/**
 * The statement that reads the concentration and response cells of a selection (exported for
 * the query plan test): of its batches (`byBatch`), or of its protocols; a shard's share only.
 * `covered`: along cache step 15's curve index, which holds every column read here.
 */
export function curveCellsSql({
  byBatch,
  sharded,
  covered = false,
}: {
  byBatch: boolean
  sharded: boolean
  covered?: boolean
}): string {
  const columns = `v.row_id, v.run_id, v.batch_id, v.definition_id, v.plate_id, v.well, v.outlier,
              v.kind, v.number, v.modifier, v.text`
  const shard = sharded ? 'AND v.batch_id % @shardCount = @shardIndex' : ''
  if (covered) {
    // A protocol's cells of one readout are one range of the index, a batch's a range within it:
    // no cell is looked up in the value table.
    return `SELECT ${columns}
         FROM ${
           byBatch
             ? `json_each(@batchIds) b
         CROSS JOIN readout_values v INDEXED BY readout_values_for_curves
           ON v.vault_id = @vaultId AND v.batch_id = b.value`
             : 'readout_values v INDEXED BY readout_values_for_curves'
         }
        WHERE v.vault_id = @vaultId
          AND v.protocol_id IN (SELECT value FROM json_each(@protocolIds))
          AND v.definition_id IN (SELECT value FROM json_each(@definitionIds))
          AND v.aggregate_row = 0
          ${shard}`
  }
  // CROSS JOIN keeps the order written: the batches' cells come from the value index's batch
  // index (named: without statistics the planner prefers the primary key's vault prefix), a
  // protocol's from its rows' protocol index. Left to choose, the planner walks every value of
  // the vault, all its protocols', even for one batch's curves (170 ms against 0.4 ms for two
  // batches in a vault of 320,000 values).
  return `SELECT ${columns}
         FROM ${
           byBatch
             ? `json_each(@batchIds) b
         CROSS JOIN readout_values v INDEXED BY readout_values_by_batch
           ON v.vault_id = @vaultId AND v.batch_id = b.value`
             : `readout_rows r
         CROSS JOIN readout_values v INDEXED BY sqlite_autoindex_readout_values_1
           ON v.vault_id = r.vault_id AND v.row_id = r.id`
         }
        WHERE ${
          byBatch
            ? 'v.protocol_id IN (SELECT value FROM json_each(@protocolIds))'
            : `r.vault_id = @vaultId AND r.protocol_id IN (SELECT value FROM json_each(@protocolIds))
          AND v.protocol_id = r.protocol_id`
        }
          AND v.definition_id IN (SELECT value FROM json_each(@definitionIds))
          AND v.aggregate_row = 0
          ${shard}`
}

function seriesKey(runId: number | null, batchId: number | null): string {
  return `${runId}:${batchId}`
}

interface PendingCells {
  rowId: number
  runId: number | null
  batchId: number | null
  aggregateRow: boolean
  plateId: number | null
  well: string | null
  /** The pending copy's cells, read as the index reads them, by definition. */
  cells: Map<number, Cell>
  mark: { state: string; itemIds: number[] }
}

/** The pending rows of the calculations' protocols, their cells read as the index reads them. */
function pendingOverrides(
  pending: readonly PendingReadoutRow[],
  definitionsByProtocol: ReadonlyMap<number, ReadonlyMap<number, ReadoutDefinitionEntry>>,
): Map<number, PendingCells> {
  const overrides = new Map<number, PendingCells>()
  for (const { rowId, record, state, itemIds } of pending) {
    const protocolId = toLinkId(record.protocol)
    const definitions = protocolId === null ? undefined : definitionsByProtocol.get(protocolId)
    if (!definitions) continue
    const read = readResultRow(record, (id) => definitions.get(id))
    if (!read) continue
    const cells = new Map<number, Cell>()
    for (const [definitionId, cell] of read.cells) {
      const indexed = indexedCellOf(cell.value, definitions.get(definitionId)?.unit ?? null)
      cells.set(definitionId, {
        kind: indexed.kind,
        number: indexed.number,
        modifier: indexed.modifier,
        text: indexed.kind === 'empty' ? null : givenText(cell.value),
        outlier: cell.outlier,
      })
    }
    overrides.set(rowId, {
      rowId,
      runId: read.runId,
      batchId: read.batchId,
      aggregateRow: read.aggregateRow,
      plateId: toLinkId(record.plate),
      well: toText(record.well),
      cells,
      mark: { state, itemIds: [...itemIds] },
    })
  }
  return overrides
}

function seriesData(
  row: SeriesRow,
  calculation: CurveCalculation | null,
  rowsByKey: ReadonlyMap<string, readonly RowCells[]>,
  overrides: ReadonlyMap<number, PendingCells>,
  edit: PendingSeriesEdit | undefined,
): CurveSeriesData {
  const record = JSON.parse(row.json) as JsonObject
  const run = record.run
  const concentrationId = calculation?.concentration?.definitionId ?? null
  const responseId = calculation?.response?.definitionId ?? null
  const key = seriesKey(row.run_id, row.batch_id)
  const indexed = calculation ? (rowsByKey.get(key) ?? []) : []
  const cached: CurvePoint[] = indexed.map((cells) =>
    pointOf(cells.rowId, cells.plateId, cells.well, cells.cells, concentrationId, responseId, null),
  )
  const points = indexed.map((cells, index) => {
    const override = overrides.get(cells.rowId)
    // A correction of the row's other cells (a comment) leaves its point as it is.
    const changes = (definitionId: number | null) =>
      definitionId !== null &&
      override?.cells.has(definitionId) === true &&
      !sameCell(override.cells.get(definitionId)!, cells.cells.get(definitionId))
    if (!override || !(changes(concentrationId) || changes(responseId))) return cached[index]!
    return pointOf(
      cells.rowId,
      cells.plateId,
      cells.well,
      new Map([...cells.cells, ...override.cells]),
      concentrationId,
      responseId,
      override.mark,
    )
  })
  // A correction may give a row of this batch and run a cell it did not have.
  const seen = new Set(indexed.map((cells) => cells.rowId))
  for (const override of overrides.values()) {
    if (seen.has(override.rowId) || override.aggregateRow || !calculation) continue
    if (seriesKey(override.runId, override.batchId) !== key) continue
    const hasCell =
      (concentrationId !== null && override.cells.has(concentrationId)) ||
      (responseId !== null && override.cells.has(responseId))
    if (!hasCell) continue
    points.push(
      pointOf(
        override.rowId,
        override.plateId,
        override.well,
        override.cells,
        concentrationId,
        responseId,
        override.mark,
      ),
    )
  }
  points.sort(byConcentration)
  return {
    id: row.id,
    calculationId: row.calculation_id,
    protocolId: row.protocol_id,
    batchId: row.batch_id,
    batchName: null,
    moleculeId: toLinkId(record.molecule),
    runId: row.run_id,
    runDate: isObject(run) ? toText(run.run_date) : null,
    equationType: toText(record.equation_type),
    fitParameters: edit
      ? withoutNulls(edit.record.fit_parameters ?? null)
      : (record.fit_parameters ?? null),
    pendingEdit: edit ? { state: edit.state, itemIds: [...edit.itemIds] } : null,
    modifiedAt: toText(record.modified_at),
    vault: vaultFitOf(record, cached),
    points,
  }
}

/**
 * A pending copy's constraints without null members: the outbox's merge patch removes a member
 * with null, but may leave the null where the cached copy had no such member.
 */
function withoutNulls(value: unknown): unknown {
  if (!isObject(value)) return value
  return Object.fromEntries(
    Object.entries(value).flatMap(([name, member]) =>
      member === null ? [] : [[name, withoutNulls(member)] as const],
    ),
  )
}

function sameCell(first: Cell, second: Cell | undefined): boolean {
  return (
    second !== undefined &&
    first.kind === second.kind &&
    first.number === second.number &&
    first.modifier === second.modifier &&
    first.text === second.text &&
    first.outlier === second.outlier
  )
}

const emptyCell: Cell = { kind: 'empty', number: null, modifier: null, text: null, outlier: false }

function pointOf(
  rowId: number,
  plateId: number | null,
  well: string | null,
  cells: ReadonlyMap<number, Cell>,
  concentrationId: number | null,
  responseId: number | null,
  mark: { state: string; itemIds: number[] } | null,
): CurvePoint {
  const concentration = (concentrationId !== null && cells.get(concentrationId)) || emptyCell
  const response = (responseId !== null && cells.get(responseId)) || emptyCell
  return {
    rowId,
    plateId,
    plateName: null,
    well,
    concentration: concentration.kind === 'number' ? concentration.number : null,
    concentrationModifier: concentration.kind === 'number' ? concentration.modifier : null,
    response: response.kind === 'number' ? response.number : null,
    responseModifier: response.kind === 'number' ? response.modifier : null,
    concentrationText: concentration.text,
    responseText: response.text,
    outlier: concentration.outlier || response.outlier,
    pending: mark,
  }
}

function byConcentration(first: CurvePoint, second: CurvePoint): number {
  const a = first.concentration ?? Number.POSITIVE_INFINITY
  const b = second.concentration ?? Number.POSITIVE_INFINITY
  return a - b || first.rowId - second.rowId
}

function vaultFitOf(record: JsonObject, cached: readonly CurvePoint[]): VaultFit {
  const parameters = isObject(record.fitted_parameters)
    ? Object.fromEntries(
        Object.entries(record.fitted_parameters).flatMap(([name, value]) => {
          const number = toNumber(value)
          return number === null ? [] : [[name, number] as const]
        }),
      )
    : null
  const result = isObject(record.result) ? record.result : null
  return {
    status: toText(record.status),
    parameters,
    rSquared: toNumber(record.r_squared),
    pointsUsed: toNumber(record.points_used),
    error: toText(record.error),
    result: result
      ? {
          value: toNumber(result.value),
          modifier: toText(result.modifier),
          note: toText(result.note),
        }
      : null,
    samePoints: Array.isArray(record.points) ? samePoints(record.points, cached) : null,
  }
}

/** Whether the points the vault listed are the cache's (rows, values, outlier flags). */
function samePoints(listed: readonly unknown[], cached: readonly CurvePoint[]): boolean {
  const byRow = new Map(cached.map((point) => [point.rowId, point]))
  // The vault lists the rows with a number in both cells (a qualified value by its bound).
  const numeric = cached.filter((point) => point.concentration !== null && point.response !== null)
  if (listed.length !== numeric.length) return false
  return listed.every((raw) => {
    if (!isObject(raw)) return false
    const rowId = toId(raw.readout_row)
    const point = rowId === null ? undefined : byRow.get(rowId)
    return (
      point !== undefined &&
      close(toNumber(raw.x), point.concentration) &&
      close(toNumber(raw.y), point.response) &&
      (raw.outlier === true) === point.outlier
    )
  })
}

function close(listed: number | null, cached: number | null): boolean {
  if (listed === null || cached === null) return false
  return Math.abs(listed - cached) <= 1e-9 * Math.max(1, Math.abs(listed))
}
