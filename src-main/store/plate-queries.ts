import type Database from 'better-sqlite3'
import {
  plateQuality,
  type GroupStatistics,
  type LineMean,
  type Measure,
  type PlateFlag,
  type PlateQualityOptions,
  type PlateQualityThresholds,
  type PlateWellInput,
  type WellExclusion,
  type WellGroup,
} from '../../src-common/analysis/plate-quality.ts'
import {
  protocolEntryOf,
  type ReadoutDefinitionEntry,
} from '../../src-common/analysis/readouts/catalogue.ts'
import { indexedCellOf } from '../../src-common/analysis/readouts/comparisons.ts'
import { givenText } from '../../src-common/analysis/readouts/readout-value.ts'
import { readResultRow } from '../../src-common/analysis/readouts/result-rows.ts'
import { toLinkId, toNumber, toObjects, toText, type JsonObject } from '../../src-common/values.ts'
import {
  emptyWellColumns,
  type PendingMark,
  type PlateRowMarks,
  type PlateWellColumns,
} from '../../src-common/plates/well-columns.ts'
import { AppError } from '../shared/app-error.ts'
import type { PendingReadoutRow } from './curve-queries.ts'
import { ReadoutChangeReader } from './readout-changes.ts'

export type {
  PendingMark,
  PlateRowMarks,
  PlateWellColumns,
  PlateWellValue,
} from '../../src-common/plates/well-columns.ts'

/**
 * Plates as the readout value index sees them: the readouts measured on a plate (per run, since a
 * plate may be read in several), every well's value of one of them, and a run's plates side by
 * side, each with its quality statistics (controls' means and spreads, signal window, Z′ and Z)
 * from `plateQuality`. Only detail rows count (an aggregate row has no well); outliers, qualified
 * values and text are left out of the statistics and each such well says why. Corrections still
 * waiting in the outbox are laid over the index's cells first, so that a well marked as an outlier
 * offline leaves the plate's Z′ at once. A plate's rows are found by the readout rows' plate index
 * and a run's by their run index, each row's cells by the value index's key: never a scan.
 *
 * A plate's rows, their batches and every readout's counts are kept between questions on one
 * connection (the plates service keeps one per cache, with its PlateQueries) for as long as the
 * cache's readout state stays as it was (readout-changes.ts), so asking again, or for another
 * readout, reads only the chosen readout's cells.
 */

/** A readout measured on a plate in one run, with how many of its wells can be drawn. */
export interface PlateReadout {
  runId: number | null
  runDate: string | null
  protocolId: number | null
  protocolName: string | null
  definitionId: number
  /** As the protocol names it (`Readout 12` when the protocol no longer defines it). */
  name: string
  unit: string | null
  /** Wells with a cell of this readout, and with an unqualified number among them. */
  wells: number
  numbers: number
  /** Positive and negative control wells with a number (outliers included). */
  controls: { positive: number; negative: number }
}

/** Every figure of `PlateQuality` but the per-well deviations (each well carries its own). */
export interface PlateStatisticsFigures {
  wells: { total: number; used: number; unplaced: number; excluded: number }
  /** Wells left out, by reason (`outlier: 3`). */
  exclusions: Partial<Record<WellExclusion, number>>
  groups: Record<WellGroup, GroupStatistics>
  zPrime: Measure
  z: Measure & { control: '+' | '-' }
  signalWindow: Measure
  signalToBackground: Measure
  flag: { level: PlateFlag; reasons: string[] }
  controlWellsBeyond: number[]
  rows: LineMean[]
  columns: LineMean[]
  thresholds: PlateQualityThresholds
}

export interface PlateSummary {
  id: number
  name: string | null
  /** The wells of its format (96, 384, 1536...); null when the vault did not say. */
  size: number | null
  location: string | null
}

export interface PlateReadoutValues {
  readout: PlateReadout
  /** In the order of the readout rows' ids. */
  wells: PlateWellColumns
  statistics: PlateStatisticsFigures
}

/**
 * The batches a plate's wells hold (its layout's and its readout rows'), each by name as its page
 * is titled (the molecule-batch identifier, else its name; null when the cache has neither).
 */
export interface PlateBatchNames {
  id: number[]
  name: (string | null)[]
}

export interface PlateAnswer {
  plate: PlateSummary
  /** Every readout row measured on the plate, whichever its readouts, by id. */
  rows: PlateRowMarks
  batches: PlateBatchNames
  /** By run (latest first), then the protocol's order of readouts. */
  readouts: PlateReadout[]
  /** The readout asked for, or the first with both controls; null when the plate has none. */
  chosen: PlateReadoutValues | null
}

export interface RunPlatesAnswer {
  runId: number
  runDate: string | null
  protocolId: number | null
  protocolName: string | null
  /** The run's readouts across its plates (a readout's counts summed over the plates). */
  readouts: PlateReadout[]
  /** The readout the plates are shown by; null when the run has no readout on a plate. */
  definitionId: number | null
  /** Each plate of the run by name, its wells and statistics of the readout. */
  plates: (PlateReadoutValues & { plate: PlateSummary })[]
}

export interface PlateQuestion {
  definitionId?: number
  /** The run, when the plate was read in several; the latest run otherwise. */
  runId?: number
  quality?: PlateQualityOptions
  /** Readout rows with corrections waiting in the outbox, as their pending copies. */
  pending?: readonly PendingReadoutRow[]
}

export interface RunPlatesQuestion {
  definitionId?: number
  quality?: PlateQualityOptions
  pending?: readonly PendingReadoutRow[]
}

/** A cell of the value index, as selected below. */
interface CellRow {
  row_id: number
  run_id: number | null
  run_date: string | null
  protocol_id: number | null
  definition_id: number
  plate_id: number | null
  batch_id: number | null
  molecule_id: number | null
  well: string | null
  control_state: string | null
  outlier: number
  kind: string
  number: number | null
  modifier: string | null
  text: string | null
  note: string | null
}

type OverlaidCell = CellRow & { pending: PendingMark | null }

interface ReadoutCount {
  run_id: number | null
  run_date: string | null
  protocol_id: number | null
  definition_id: number
  wells: number
  numbers: number
  positive: number
  negative: number
}

/*
 * Every query below reads `readout_rows r CROSS JOIN readout_values v`: CROSS JOIN keeps that
 * order (SQLite never reorders it), so the plate's or run's rows come from their index and each
 * row's cells by the value index's key. Left to choose, the planner may walk the vault's whole
 * value index and look each cell's row up.
 */
const cellColumns = `v.row_id, v.run_id, v.run_date, v.protocol_id, v.definition_id, v.plate_id,
  v.batch_id, v.molecule_id, v.well, v.control_state, v.outlier, v.kind, v.number, v.modifier,
  v.text, v.note`

const countColumns = `v.run_id, max(v.run_date) AS run_date, v.protocol_id, v.definition_id,
  count(*) AS wells,
  sum(v.kind = 'number' AND v.modifier IS NULL) AS numbers,
  sum(v.kind = 'number' AND trim(v.control_state) = '+') AS positive,
  sum(v.kind = 'number' AND trim(v.control_state) = '-') AS negative`

/** The statements that find a plate's or a run's cells (exported for the query plan test). */
export const plateSql = {
  /*
   * Every readout row of the plate, once per detail cell (once with null cells when it has none):
   * one walk gives the rows' marks and every readout's counts, the rows from the plate index
   * alone (cache step 14). LEFT JOIN keeps the order as CROSS JOIN does. Sorted by id in
   * `plate`, not by SQL: ORDER BY may walk the vault's rows by their (vault, id) key.
   */
  plateLayout: `SELECT r.id, r.well, r.control_state, r.batch_id,
        v.run_id, v.run_date, v.protocol_id, v.definition_id, v.kind = 'number',
        v.modifier IS NULL, v.control_state
      FROM readout_rows r
      LEFT JOIN readout_values v
        ON v.vault_id = r.vault_id AND v.row_id = r.id AND v.aggregate_row = 0
      WHERE r.vault_id = ? AND r.plate_id = ?`,
  // One readout's cells in one run: each of the plate's rows looked up by the value index's key.
  plateCells: `SELECT ${cellColumns}
      FROM readout_rows r
      CROSS JOIN readout_values v ON v.vault_id = r.vault_id AND v.row_id = r.id
      WHERE r.vault_id = ? AND r.plate_id = ? AND v.definition_id = ? AND v.run_id IS ?
        AND v.aggregate_row = 0`,
  // By id, as cached: the names of the batches a plate's wells and readout rows hold.
  plateBatches: `SELECT id, coalesce(identifier, name) FROM batches
      WHERE vault_id = ? AND id IN (SELECT value FROM json_each(?))
      ORDER BY id`,
  runReadouts: `SELECT v.plate_id, ${countColumns}
      FROM readout_rows r
      CROSS JOIN readout_values v ON v.vault_id = r.vault_id AND v.row_id = r.id
      WHERE r.vault_id = ? AND r.run_id = ? AND v.aggregate_row = 0
        AND v.plate_id IS NOT NULL
      GROUP BY v.plate_id, v.protocol_id, v.definition_id`,
  runCells: `SELECT ${cellColumns}
      FROM readout_rows r
      CROSS JOIN readout_values v ON v.vault_id = r.vault_id AND v.row_id = r.id
      WHERE r.vault_id = ? AND r.run_id = ? AND v.aggregate_row = 0
        AND v.definition_id = ? AND v.plate_id IS NOT NULL
      ORDER BY v.row_id`,
}

/** A run with more plates than this is refused: its answer would not be read plate by plate. */
export const maxRunPlates = 500

type Catalogue = ReadonlyMap<number, ProtocolDefinitions>

interface ProtocolDefinitions {
  name: string
  /** In the protocol's order. */
  readouts: ReadonlyMap<number, ReadoutDefinitionEntry>
}

interface StoredPlate {
  plate: PlateSummary
  /** The batches its record's wells hold. */
  batchIds: number[]
}

/** What a plate page's questions share while the cache's readout state stays as it was. */
interface PlateLayout {
  rows: PlateRowMarks
  /** The batches its readout rows hold (its record's own are read with the record). */
  batchIds: number[]
  counts: ReadoutCount[]
}

interface Kept<T> {
  state: string
  value: T
}

/** Plates and vaults whose layouts and catalogues are kept, on one connection. */
const keptEntries = 32

function keep<K, T>(kept: Map<K, Kept<T>>, key: K, state: string, value: T): T {
  kept.delete(key)
  kept.set(key, { state, value })
  if (kept.size > keptEntries) kept.delete(kept.keys().next().value!)
  return value
}

export class PlateQueries {
  readonly #db: Database.Database
  readonly #changes: ReadoutChangeReader
  readonly #layouts = new Map<string, Kept<PlateLayout>>()
  readonly #storedPlates = new Map<string, Kept<StoredPlate | undefined>>()
  readonly #catalogues = new Map<number, Kept<Catalogue>>()

  constructor(db: Database.Database) {
    this.#db = db
    this.#changes = new ReadoutChangeReader(db)
  }

  /** How many plate walks this module has made: what tests read to see a layout kept. */
  static layoutsWalked = 0

  /** A cached plate, its readouts and one readout's wells with their statistics. */
  plate(vaultId: number, plateId: number, question: PlateQuestion = {}): PlateAnswer {
    const state = this.#readoutState()
    const stored = this.#plate(vaultId, plateId, state)
    if (!stored) {
      throw new AppError(
        'not_found',
        `Plate ${plateId} is not in the local copy of vault ${vaultId}.`,
      )
    }
    const catalogue = this.#catalogue(vaultId, state)
    const { rows, batchIds, counts } = this.#layout(vaultId, plateId, state)
    const readouts = readoutsOf(counts, catalogue)
    const { plate } = stored
    const batches = this.#batchNames(vaultId, [...stored.batchIds, ...batchIds])
    const readout = chooseReadout(readouts, question, `plate ${plate.name ?? plateId}`)
    if (!readout) return { plate, rows, batches, readouts, chosen: null }
    const cells = this.#db
      .prepare(plateSql.plateCells)
      .all(vaultId, plateId, readout.definitionId, readout.runId) as CellRow[]
    cells.sort((a, b) => a.row_id - b.row_id)
    const overlaid = overlay(cells, question.pending ?? [], catalogue)
    return {
      plate,
      rows,
      batches,
      readouts,
      chosen: { readout, ...valuesWithStatistics(overlaid, question.quality) },
    }
  }

  /** The kept layout of the plate while the readout state is `state`, else a walk of its rows. */
  #layout(vaultId: number, plateId: number, state: string): PlateLayout {
    const key = `${vaultId}:${plateId}`
    const kept = this.#layouts.get(key)
    if (kept?.state === state) return kept.value
    PlateQueries.layoutsWalked += 1
    const walked = this.#db.prepare(plateSql.plateLayout).raw().all(vaultId, plateId) as PlateCell[]
    walked.sort((a, b) => a[0] - b[0])
    const { marks: rows, batchIds } = rowMarksOf(walked)
    const layout = { rows, batchIds, counts: countsOf(walked) }
    return keep(this.#layouts, key, state, layout)
  }

  /** The kept plate while the readout state is `state`, else read. */
  #plate(vaultId: number, plateId: number, state: string): StoredPlate | undefined {
    const key = `${vaultId}:${plateId}`
    const kept = this.#storedPlates.get(key)
    if (kept?.state === state) return kept.value
    const stored = this.#plates(vaultId, [plateId]).get(plateId)
    return keep(this.#storedPlates, key, state, stored)
  }

  /**
   * What kept plates, layouts and catalogues are keyed by: the changes of readout rows, protocols
   * and plates, and the index's queued rows (readout-changes.ts).
   */
  #readoutState(): string {
    const changes = this.#changes.current()
    return `${changes.plates}:${changes.protocols}:${changes.readoutRows}:${changes.queuedRows}`
  }

  #batchNames(vaultId: number, ids: readonly number[]): PlateBatchNames {
    const names: PlateBatchNames = { id: [], name: [] }
    const rows = this.#db
      .prepare(plateSql.plateBatches)
      .raw()
      .all(vaultId, JSON.stringify([...new Set(ids)])) as [number, string | null][]
    for (const [id, name] of rows) {
      names.id.push(id)
      names.name.push(name)
    }
    return names
  }

  /** A run's plates, each with its wells and statistics of one readout. */
  runPlates(vaultId: number, runId: number, question: RunPlatesQuestion = {}): RunPlatesAnswer {
    const run = this.#db
      .prepare('SELECT run_date, protocol_id FROM runs WHERE vault_id = ? AND id = ?')
      .get(vaultId, runId) as { run_date: string | null; protocol_id: number | null } | undefined
    if (!run) {
      throw new AppError('not_found', `Run ${runId} is not in the local copy of vault ${vaultId}.`)
    }
    const catalogue = this.#catalogue(vaultId, this.#readoutState())
    const perPlate = this.#db.prepare(plateSql.runReadouts).all(vaultId, runId) as (ReadoutCount & {
      plate_id: number
    })[]
    const plateIds = [...new Set(perPlate.map((count) => count.plate_id))]
    if (plateIds.length > maxRunPlates) {
      throw new AppError(
        'invalid_argument',
        `Run ${runId} has ${plateIds.length} plates; Vault Desk shows at most ${maxRunPlates} side by side.`,
      )
    }
    const summed = new Map<string, ReadoutCount>()
    for (const { plate_id: _plate, ...count } of perPlate) {
      const key = `${count.protocol_id}:${count.definition_id}`
      const sum = summed.get(key)
      if (!sum) summed.set(key, { ...count, run_id: runId })
      else {
        sum.wells += count.wells
        sum.numbers += count.numbers
        sum.positive += count.positive
        sum.negative += count.negative
      }
    }
    const readouts = readoutsOf([...summed.values()], catalogue)
    const base = {
      runId,
      runDate: run.run_date,
      protocolId: run.protocol_id,
      protocolName:
        run.protocol_id === null ? null : (catalogue.get(run.protocol_id)?.name ?? null),
      readouts,
    }
    const readout = chooseReadout(readouts, question, `run ${runId}`)
    if (!readout) return { ...base, definitionId: null, plates: [] }
    const cells = this.#db
      .prepare(plateSql.runCells)
      .all(vaultId, runId, readout.definitionId) as CellRow[]
    const byPlate = new Map<number, OverlaidCell[]>()
    for (const cell of overlay(cells, question.pending ?? [], catalogue)) {
      const plateCells = byPlate.get(cell.plate_id!)
      if (plateCells) plateCells.push(cell)
      else byPlate.set(cell.plate_id!, [cell])
    }
    const plates = this.#plates(vaultId, plateIds)
    const shown = [...byPlate].map(([plateId, plateCells]) => {
      const counts = perPlate.find(
        (count) => count.plate_id === plateId && count.definition_id === readout.definitionId,
      )
      return {
        plate: plates.get(plateId)?.plate ?? {
          id: plateId,
          name: null,
          size: null,
          location: null,
        },
        readout: counts ? { ...readout, ...readoutCounts(counts) } : readout,
        ...valuesWithStatistics(plateCells, question.quality),
      }
    })
    shown.sort(
      (a, b) =>
        (a.plate.name ?? '').localeCompare(b.plate.name ?? '', undefined, { numeric: true }) ||
        a.plate.id - b.plate.id,
    )
    return { ...base, definitionId: readout.definitionId, plates: shown }
  }

  /** Cached plates by id, each with the batches its wells hold. */
  #plates(vaultId: number, ids: readonly number[]): Map<number, StoredPlate> {
    const rows = this.#db
      .prepare(
        `SELECT id, name, json FROM plates
          WHERE vault_id = ? AND id IN (SELECT value FROM json_each(?))`,
      )
      .all(vaultId, JSON.stringify(ids)) as { id: number; name: string | null; json: string }[]
    return new Map(
      rows.map((row) => {
        const json = JSON.parse(row.json) as JsonObject
        const plate = {
          id: row.id,
          name: row.name ?? toText(json.name),
          size: toNumber(json.size),
          location: toText(json.location),
        }
        const batchIds = toObjects(json.wells).flatMap((well) => toLinkId(well.batch) ?? [])
        return [row.id, { plate, batchIds }]
      }),
    )
  }

  /** The vault's protocols with their readout definitions, by id (kept while `state` holds). */
  #catalogue(vaultId: number, state: string): Catalogue {
    const kept = this.#catalogues.get(vaultId)
    if (kept?.state === state) return kept.value
    const catalogue = new Map<number, ProtocolDefinitions>()
    const protocols = this.#db
      .prepare('SELECT json FROM protocols WHERE vault_id = ?')
      .pluck()
      .all(vaultId) as string[]
    for (const json of protocols) {
      const entry = protocolEntryOf(JSON.parse(json))
      if (!entry) continue
      catalogue.set(entry.id, {
        name: entry.name,
        readouts: new Map(entry.readouts.map((readout) => [readout.id, readout])),
      })
    }
    return keep(this.#catalogues, vaultId, state, catalogue)
  }
}

/**
 * A plate's readout row with one of its detail cells, as `plateSql.plateLayout` walks them: the
 * row's id, well, control state and batch, then what the cell's counts read (null for a row
 * without one).
 */
type PlateCell = [
  rowId: number,
  rowWell: string | null,
  rowControlState: string | null,
  rowBatchId: number | null,
  runId: number | null,
  runDate: string | null,
  protocolId: number | null,
  definitionId: number | null,
  isNumber: number | null,
  unqualified: number | null,
  controlState: string | null,
]

/** The plate's readout rows (walked in id order) as columns, and the batches they hold. */
function rowMarksOf(walked: readonly PlateCell[]): { marks: PlateRowMarks; batchIds: number[] } {
  const marks: PlateRowMarks = { rowId: [], well: [], controlState: [] }
  const batchIds = new Set<number>()
  let previous: number | null = null
  for (const [rowId, well, controlState, batchId] of walked) {
    if (rowId === previous) continue
    previous = rowId
    marks.rowId.push(rowId)
    marks.well.push(well)
    marks.controlState.push(controlState)
    if (batchId !== null) batchIds.add(batchId)
  }
  return { marks, batchIds: [...batchIds] }
}

/** Each readout's wells, numbers and controls on the plate, per run and protocol. */
function countsOf(walked: readonly PlateCell[]): ReadoutCount[] {
  const counts = new Map<string, ReadoutCount>()
  for (const cell of walked) {
    const definitionId = cell[7]
    if (definitionId === null) continue
    const [, , , , runId, runDate, protocolId] = cell
    const key = `${runId}:${protocolId}:${definitionId}`
    let count = counts.get(key)
    if (!count) {
      count = {
        run_id: runId,
        run_date: runDate,
        protocol_id: protocolId,
        definition_id: definitionId,
        wells: 0,
        numbers: 0,
        positive: 0,
        negative: 0,
      }
      counts.set(key, count)
    }
    count.wells += 1
    if (runDate !== null && (count.run_date === null || runDate > count.run_date)) {
      count.run_date = runDate
    }
    if (cell[8] !== 1) continue
    if (cell[9] === 1) count.numbers += 1
    const control = cell[10]?.trim()
    if (control === '+') count.positive += 1
    else if (control === '-') count.negative += 1
  }
  return [...counts.values()]
}

function readoutCounts(count: ReadoutCount): Pick<PlateReadout, 'wells' | 'numbers' | 'controls'> {
  return {
    wells: count.wells,
    numbers: count.numbers ?? 0,
    controls: { positive: count.positive ?? 0, negative: count.negative ?? 0 },
  }
}

/** Counts named from the protocols' definitions: latest run first, in the protocol's order. */
function readoutsOf(counts: readonly ReadoutCount[], catalogue: Catalogue): PlateReadout[] {
  const readouts = counts.map((count) => {
    const protocol = count.protocol_id === null ? undefined : catalogue.get(count.protocol_id)
    const definition = protocol?.readouts.get(count.definition_id)
    const order = definition ? [...protocol!.readouts.keys()].indexOf(count.definition_id) : 1e9
    const readout: PlateReadout = {
      runId: count.run_id,
      runDate: count.run_date,
      protocolId: count.protocol_id,
      protocolName: protocol?.name ?? null,
      definitionId: count.definition_id,
      name: definition?.name ?? `Readout ${count.definition_id}`,
      unit: definition?.unit ?? null,
      ...readoutCounts(count),
    }
    return { readout, order }
  })
  readouts.sort(
    (a, b) =>
      (b.readout.runDate ?? '').localeCompare(a.readout.runDate ?? '') ||
      (b.readout.runId ?? 0) - (a.readout.runId ?? 0) ||
      (a.readout.protocolId ?? 0) - (b.readout.protocolId ?? 0) ||
      a.order - b.order ||
      a.readout.definitionId - b.readout.definitionId,
  )
  return readouts.map(({ readout }) => readout)
}

/**
 * The readout asked for (refused, naming those there are, when the plate or run has no such
 * readout), else the first of the latest run with two of each control, else the first with
 * numbers, else the first.
 */
function chooseReadout(
  readouts: readonly PlateReadout[],
  question: { definitionId?: number; runId?: number },
  what: string,
): PlateReadout | null {
  if (question.definitionId === undefined && question.runId === undefined) {
    return (
      readouts.find(
        (readout) => readout.controls.positive >= 2 && readout.controls.negative >= 2,
      ) ??
      readouts.find((readout) => readout.numbers > 0) ??
      readouts[0] ??
      null
    )
  }
  const found = readouts.find(
    (readout) =>
      (question.definitionId === undefined || readout.definitionId === question.definitionId) &&
      (question.runId === undefined || readout.runId === question.runId),
  )
  if (found) return found
  const asked = [
    question.definitionId === undefined ? null : `readout ${question.definitionId}`,
    question.runId === undefined ? null : `run ${question.runId}`,
  ]
    .filter(Boolean)
    .join(' in ')
  const names = readouts.map(
    (readout) =>
      `${readout.name} (${readout.definitionId}${readout.runId === null ? '' : `, run ${readout.runId}`})`,
  )
  throw new AppError(
    'not_found',
    names.length === 0
      ? `The ${what} has no readouts in the local copy, so none of ${asked}.`
      : `The ${what} has no ${asked}. Its readouts: ${names.join(', ')}.`,
  )
}

/**
 * The index's cells with the outbox's pending copies of their rows laid over them: a cell as the
 * pending copy has it (its value, outlier mark), and the mark that says it is waiting.
 */
function overlay(
  cells: readonly CellRow[],
  pending: readonly PendingReadoutRow[],
  catalogue: Catalogue,
): OverlaidCell[] {
  if (pending.length === 0) return cells.map((cell) => ({ ...cell, pending: null }))
  const byRow = new Map(pending.map((row) => [row.rowId, row]))
  return cells.map((cell) => {
    const row = byRow.get(cell.row_id)
    if (!row) return { ...cell, pending: null }
    const mark = { state: row.state, itemIds: [...row.itemIds] }
    const protocolId = toLinkId(row.record.protocol) ?? cell.protocol_id
    const definitions = protocolId === null ? undefined : catalogue.get(protocolId)?.readouts
    const read = readResultRow(row.record, (id) => definitions?.get(id))
    const given = read?.cells.get(cell.definition_id)
    if (!given) return { ...cell, pending: mark }
    const indexed = indexedCellOf(given.value, definitions?.get(cell.definition_id)?.unit ?? null)
    return {
      ...cell,
      kind: indexed.kind,
      number: indexed.number,
      modifier: indexed.modifier,
      text: indexed.kind === 'empty' ? null : toText(givenText(given.value)),
      outlier: given.outlier ? 1 : 0,
      note: given.note,
      pending: mark,
    }
  })
}

/** The wells of one readout, as columns, with the statistics `plateQuality` finds in them. */
function valuesWithStatistics(
  cells: readonly OverlaidCell[],
  options: PlateQualityOptions = {},
): { wells: PlateWellColumns; statistics: PlateStatisticsFigures } {
  const inputs: PlateWellInput[] = cells.map((cell, index) => ({
    position: cell.well ?? undefined,
    value: wellValue(cell),
    controlState: cell.control_state,
    outlier: cell.outlier === 1,
    key: index,
  }))
  const quality = plateQuality(inputs, options)
  const wells = emptyWellColumns()
  for (const cell of cells) {
    wells.rowId.push(cell.row_id)
    wells.well.push(cell.well)
    wells.batchId.push(cell.batch_id)
    wells.moleculeId.push(cell.molecule_id)
    wells.controlState.push(cell.control_state)
    wells.kind.push(cell.kind)
    wells.number.push(cell.number)
    wells.modifier.push(cell.modifier)
    wells.text.push(cell.text)
    wells.outlier.push(cell.outlier === 1)
    wells.note.push(cell.note)
    wells.pending.push(cell.pending)
    wells.group.push(null)
    wells.deviation.push(null)
    wells.level.push(0)
    wells.excluded.push(null)
  }
  for (const well of quality.deviations) {
    wells.group[well.index] = well.group
    wells.deviation[well.index] = well.deviation
    wells.level[well.index] = well.level
  }
  const counted: Partial<Record<WellExclusion, number>> = {}
  for (const { index, reason } of quality.wells.excluded) {
    wells.excluded[index] = reason
    counted[reason] = (counted[reason] ?? 0) + 1
  }
  const { deviations: _perWell, wells: wellCounts, ...figures } = quality
  return {
    wells,
    statistics: {
      ...figures,
      wells: { ...wellCounts, excluded: wellCounts.excluded.length },
      exclusions: counted,
    },
  }
}

/**
 * What `plateQuality` reads: a number, or a text it leaves out with its reason. Any modifier
 * (`<`, `>=`, `~`...) makes a qualified value, which the statistics leave out; `plateQuality` knows
 * one by its leading comparison mark, so each is handed over as `>` and its number, read for that
 * reason only.
 */
function wellValue(cell: CellRow): unknown {
  if (cell.kind === 'number' && cell.number !== null) {
    return cell.modifier === null ? cell.number : `>${cell.number}`
  }
  if (cell.kind === 'empty') return null
  // A date or a yes/no is not a measurement to summarise: read as text, it is left out as such.
  return cell.text ?? (cell.kind === 'number' ? null : cell.kind)
}
