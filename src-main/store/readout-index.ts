import type Database from 'better-sqlite3'
import { checkpointPastBound } from './wal-checkpoints.ts'
import {
  aggregateRows,
  type AggregateDefinition,
  type GroupAggregate,
} from '../../src-common/analysis/readouts/aggregates.ts'
import {
  protocolEntryOf,
  type ReadoutDefinitionEntry,
} from '../../src-common/analysis/readouts/catalogue.ts'
import { indexedCellOf } from '../../src-common/analysis/readouts/comparisons.ts'
import { readResultRow, type ResultRow } from '../../src-common/analysis/readouts/result-rows.ts'
import { givenText } from '../../src-common/analysis/readouts/readout-value.ts'
import type { ResultsCell } from '../../src-common/analysis/readouts/results-table.ts'
import { toText, type JsonObject, type SqlValue } from '../../src-common/values.ts'

/**
 * Rows indexed per step (one transaction) at the least: tens of milliseconds, so a page of sync
 * waits little. Steps of 250 rows made each commit write most of the pages the value indexes have
 * (their cells land all over them), so that commits were a large share of the build.
 */
const rowsPerStep = 1000
/**
 * Molecules whose aggregates are recomputed per step at the least, with their queued batches: a
 * few thousand rows read, so that a page of sync waits for tens of milliseconds at most.
 */
const moleculesPerStep = 250
/**
 * How much CPU time one step may take while it holds the cache's write lock (a page of sync that
 * comes meanwhile waits for it). While steps take less than half of it, each is twice as large as
 * the last, up to `stepGrowth` times the least: a first sync's backlog is indexed in fewer, larger
 * transactions, each commit writing the index pages its cells share once for more of them. A step
 * that takes longer halves the next. CPU time rather than wall time: on a loaded machine a step's
 * wall time is mostly waiting for a core, which its size does not change; timed by the wall, steps
 * stayed small exactly when the CPU larger ones save was scarce (readout-index.bench.ts).
 */
const stepBudgetMs = 250
const stepGrowth = 16
/**
 * Rows per multi-row INSERT: each statement run costs a crossing into SQLite, and row by row (with
 * named parameters) those crossings took most of the indexer's time (readout-index.bench.ts).
 */
const rowsPerInsert = 32

type Level = 'molecule' | 'batch'

interface QueuedRow {
  vault_id: number
  row_id: number
  json: string | null
  protocol_id: number | null
  run_id: number | null
  run_date: string | null
  batch_id: number | null
  molecule_id: number | null
  plate_id: number | null
  well: string | null
  control_state: string | null
}

/** How much one step of the indexer takes on. */
export interface ReadoutIndexSteps {
  /** The least rows per step. */
  rowsPerStep?: number
  /** The least molecules per step. */
  moleculesPerStep?: number
  /** How many times the least a step may grow to (1: every step the least). */
  growth?: number
  /** The clock steps are timed by, in milliseconds (by default `threadCpuMs`). */
  clock?: () => number
}

/** How far the index is: rows and groups still to index (0 and 0: complete). */
export interface ReadoutIndexBacklog {
  rows: number
  groups: number
}

/** The columns of readout_values, in the order the indexer writes them. */
const valueColumns = [
  'vault_id',
  'row_id',
  'definition_id',
  'protocol_id',
  'run_id',
  'run_date',
  'batch_id',
  'molecule_id',
  'plate_id',
  'well',
  'aggregate_row',
  'control_state',
  'outlier',
  'kind',
  'number',
  'modifier',
  'text',
  'note',
] as const

/** The columns of readout_aggregates, in the order the indexer writes them. */
const aggregateColumnNames = [
  'vault_id',
  'level',
  'subject_id',
  'protocol_id',
  'definition_id',
  'source',
  'aggregation',
  'kind',
  'number',
  'modifier',
  'text',
  'n',
  'details',
] as const

/**
 * Keeps the readout value index (cache steps 7 and 9) current: reads the readout rows triggers
 * queued into typed cells with their protocol's definitions (`src-common/analysis/readouts/`),
 * then recomputes the aggregates of the molecules and batches whose cells changed, and with them
 * each protocol's subjects and their count. Works in steps of
 * one transaction each, so that the cache writer can run it while idle and stop between steps
 * when a page of sync comes; any connection may run it (the CLI completes it before a search).
 * A row is read again whole each time it changes: the index never holds a cell of an older copy.
 * Each step asks SQLite for its rows, groups and deletions in a few statements and writes many
 * rows per INSERT, rather than a statement per row.
 */
export class ReadoutIndexer {
  readonly #db: Database.Database
  readonly #statements: ReturnType<typeof prepare>
  readonly #values: MultiRowInsert
  readonly #aggregates: MultiRowInsert
  readonly #groups: MultiRowInsert
  readonly #rowsPerStep: StepSize
  readonly #moleculesPerStep: StepSize
  readonly #clock: () => number
  /** Definitions by protocol, as last read; forgotten after each step (protocols change). */
  #definitions = new Map<string, Map<number, ReadoutDefinitionEntry>>()

  /** `steps`: other least sizes, growth or clock, for tests that must cross many steps. */
  constructor(db: Database.Database, steps: ReadoutIndexSteps = {}) {
    this.#db = db
    const growth = steps.growth ?? stepGrowth
    this.#rowsPerStep = new StepSize(steps.rowsPerStep ?? rowsPerStep, growth)
    this.#moleculesPerStep = new StepSize(steps.moleculesPerStep ?? moleculesPerStep, growth)
    this.#clock = steps.clock ?? threadCpuMs
    this.#statements = prepare(db)
    // A step deletes its rows' values first: no cell it writes can be there already.
    this.#values = new MultiRowInsert(db, 'INSERT INTO readout_values', valueColumns)
    this.#aggregates = new MultiRowInsert(
      db,
      'INSERT OR REPLACE INTO readout_aggregates',
      aggregateColumnNames,
    )
    this.#groups = new MultiRowInsert(db, 'INSERT OR IGNORE INTO readout_group_queue', [
      'vault_id',
      'protocol_id',
      'level',
      'subject_id',
    ])
  }

  backlog(): ReadoutIndexBacklog {
    return {
      rows: this.#statements.queuedRows.get() as number,
      groups: this.#statements.queuedGroups.get() as number,
    }
  }

  /** One step: queued rows first, then queued aggregates. Answers how much it did (0: none). */
  step(): number {
    const indexed = this.indexRows()
    if (indexed > 0) return indexed
    return this.aggregate()
  }

  /** One step of queued rows alone (one transaction); answers how many (0: none queued). */
  indexRows(): number {
    return this.#timed(this.#rowsPerStep, () => this.#indexRows())
  }

  /** One step of queued aggregates alone (one transaction); answers how many (0: none queued). */
  aggregate(): number {
    return this.#timed(this.#moleculesPerStep, () => this.#aggregateGroups())
  }

  /** Runs `step` in one transaction, its size then following how long it took. */
  #timed(size: StepSize, step: () => { done: number; full: boolean }): number {
    const start = this.#clock()
    const { done, full } = this.#db.transaction(step).immediate()
    size.took(this.#clock() - start, full)
    return done
  }

  /**
   * Runs steps until the index is complete; `onStep` hears the backlog after each, counted once
   * and then kept by what each step did (exact unless another connection queues rows meanwhile):
   * counting the queues after every step took longer than the steps on a large first sync.
   */
  complete(onStep?: (backlog: ReadoutIndexBacklog) => void): void {
    let backlog = onStep ? this.backlog() : { rows: 0, groups: 0 }
    for (;;) {
      checkpointPastBound(this.#db)
      const rows = this.indexRows()
      if (rows > 0) {
        backlog = {
          rows: Math.max(0, backlog.rows - rows),
          groups: backlog.groups + this.#groups.changes,
        }
      } else {
        const groups = this.aggregate()
        if (groups === 0) return
        backlog = { rows: backlog.rows, groups: Math.max(0, backlog.groups - groups) }
      }
      onStep?.(backlog)
    }
  }

  #indexRows(): { done: number; full: boolean } {
    const s = this.#statements
    const size = this.#rowsPerStep.size
    const queued = s.nextRows.all(size) as QueuedRow[]
    if (queued.length === 0) return { done: 0, full: false }
    this.#definitions.clear()
    this.#values.discard()
    this.#groups.discard()
    const groups = new GroupsToQueue()
    // What the rows held before goes first, with the groups it counted in.
    for (const [vaultId, rows] of byVault(queued)) {
      const rowIds = JSON.stringify(rows.map((row) => row.row_id))
      for (const old of s.groupsOfRows.all(vaultId, rowIds) as {
        protocol_id: number
        batch_id: number | null
        molecule_id: number | null
      }[]) {
        groups.add(vaultId, old.protocol_id, old.batch_id, old.molecule_id)
      }
      s.deleteValues.run(vaultId, rowIds)
      s.unqueueRows.run(vaultId, rowIds)
    }
    const values = this.#values
    for (const row of queued) {
      if (row.json === null) continue
      const record = JSON.parse(row.json) as JsonObject
      const definitions = this.#definitionsOf(row.vault_id, row.protocol_id)
      const read = readResultRow(record, (id) => definitions.get(id))
      if (!read) continue
      for (const [definitionId, cell] of read.cells) {
        const cellIndex = indexedCellOf(cell.value, definitions.get(definitionId)?.unit ?? null)
        values.add(
          row.vault_id,
          row.row_id,
          definitionId,
          row.protocol_id,
          row.run_id,
          row.run_date,
          row.batch_id,
          row.molecule_id,
          row.plate_id,
          row.well,
          read.aggregateRow ? 1 : 0,
          read.controlState,
          cell.outlier ? 1 : 0,
          cellIndex.kind,
          cellIndex.number,
          cellIndex.modifier,
          cellIndex.kind === 'empty' ? null : givenText(cell.value),
          cell.note,
        )
      }
      groups.add(row.vault_id, row.protocol_id, row.batch_id, row.molecule_id)
    }
    values.finish()
    for (const group of groups.list) this.#groups.add(...group)
    this.#groups.finish()
    return { done: queued.length, full: queued.length === size }
  }

  /**
   * One step of aggregates, for one vault and protocol: up to `moleculesPerStep` queued molecules
   * and the queued batches their rows name (or, when no molecule of the protocol is queued, up to
   * as many queued batches). A row is parsed once for both levels (read per level, every row was
   * parsed twice); each level is still computed from exactly the rows whose column names the
   * subject.
   */
  #aggregateGroups(): { done: number; full: boolean } {
    const s = this.#statements
    const head = s.nextGroup.get() as { vault_id: number; protocol_id: number } | undefined
    if (!head) return { done: 0, full: false }
    const size = this.#moleculesPerStep.size
    const { vault_id: vaultId, protocol_id: protocolId } = head
    this.#definitions.clear()
    this.#aggregates.discard()
    const definitions = this.#definitionsOf(vaultId, protocolId)
    const parsed = new Map<number, ResultRow | null>()
    const readRow = (id: number, json: string): ResultRow | null => {
      let read = parsed.get(id)
      if (read === undefined) {
        read = readResultRow(JSON.parse(json), (definitionId) => definitions.get(definitionId))
        parsed.set(id, read)
      }
      return read
    }
    const molecules = s.queuedSubjects.all(vaultId, protocolId, 'molecule', size) as number[]
    const byMolecule = new Map<number, ResultRow[]>()
    const batchesNamed = new Set<number>()
    if (molecules.length > 0) {
      for (const row of s.rowsOfMolecules.all(vaultId, protocolId, JSON.stringify(molecules)) as {
        id: number
        batch_id: number | null
        molecule_id: number
        json: string
      }[]) {
        if (row.batch_id !== null) batchesNamed.add(row.batch_id)
        const read = readRow(row.id, row.json)
        if (read) pushTo(byMolecule, row.molecule_id, read)
      }
    }
    const batches = (
      molecules.length > 0
        ? s.queuedOf.all(vaultId, protocolId, 'batch', JSON.stringify([...batchesNamed]))
        : s.queuedSubjects.all(vaultId, protocolId, 'batch', size)
    ) as number[]
    const byBatch = new Map<number, ResultRow[]>()
    if (batches.length > 0) {
      for (const row of s.rowsOfBatches.all(vaultId, protocolId, JSON.stringify(batches)) as {
        id: number
        batch_id: number
        json: string
      }[]) {
        const read = readRow(row.id, row.json)
        if (read) pushTo(byBatch, row.batch_id, read)
      }
    }
    const aggregated = aggregateDefinitions(definitions)
    let done = 0
    if (molecules.length > 0) {
      done += this.#aggregateSubjects(
        vaultId,
        protocolId,
        'molecule',
        molecules,
        byMolecule,
        aggregated,
      )
    }
    if (batches.length > 0) {
      done += this.#aggregateSubjects(vaultId, protocolId, 'batch', batches, byBatch, aggregated)
    }
    this.#aggregates.finish()
    return { done, full: (molecules.length > 0 ? molecules.length : batches.length) >= size }
  }

  /**
   * Replaces the aggregates and subjects of the given subjects of one level with those computed
   * from their rows; answers how many groups left the queue.
   */
  #aggregateSubjects(
    vaultId: number,
    protocolId: number,
    level: Level,
    subjectIds: readonly number[],
    rowsOf: ReadonlyMap<number, ResultRow[]>,
    aggregated: ReadonlyMap<number, AggregateDefinition>,
  ): number {
    const s = this.#statements
    const listed = JSON.stringify(subjectIds)
    const unqueued = s.unqueueGroups.run(vaultId, protocolId, level, listed).changes
    s.deleteAggregates.run(vaultId, level, protocolId, listed)
    const leaving = s.deleteSubjects.run(vaultId, level, protocolId, listed).changes
    const subjects: number[] = []
    for (const subjectId of subjectIds) {
      const rows = rowsOf.get(subjectId)
      if (!rows) continue
      let cells = 0
      for (const aggregate of aggregateRows(rows, aggregated, level)) {
        if (aggregate.subjectId !== subjectId) continue
        this.#aggregates.add(...aggregateColumns(vaultId, level, subjectId, aggregate))
        cells++
      }
      if (cells > 0) subjects.push(subjectId)
    }
    const joining =
      subjects.length === 0
        ? 0
        : s.insertSubjects.run(vaultId, level, protocolId, JSON.stringify(subjects)).changes
    if (joining !== leaving) s.countSubjects.run(vaultId, level, protocolId, joining - leaving)
    return unqueued
  }

  #definitionsOf(vaultId: number, protocolId: number | null): Map<number, ReadoutDefinitionEntry> {
    const key = `${vaultId}:${protocolId}`
    let definitions = this.#definitions.get(key)
    if (!definitions) {
      const json =
        protocolId === null
          ? undefined
          : (this.#statements.protocol.get(vaultId, protocolId) as string | undefined)
      const entry = json === undefined ? null : protocolEntryOf(JSON.parse(json))
      definitions = new Map(
        (entry?.readouts ?? []).map((definition) => [definition.id, definition]),
      )
      this.#definitions.set(key, definitions)
    }
    return definitions
  }
}

/**
 * The CPU time this thread has used, in milliseconds; wall time where the runtime cannot tell
 * (`process.threadCpuUsage` came with Node 22.19 / 23.9).
 */
function threadCpuMs(): number {
  if (typeof process.threadCpuUsage !== 'function') return performance.now()
  const { user, system } = process.threadCpuUsage()
  return (user + system) / 1000
}

/**
 * The size of the indexer's next step of one kind: from `least` up to `growth` times it, doubled
 * after a full step that took less than half of `stepBudgetMs`, halved after one that took more.
 */
class StepSize {
  readonly #least: number
  readonly #most: number
  #size: number

  constructor(least: number, growth: number) {
    if (!Number.isInteger(least) || least < 1 || !Number.isInteger(growth) || growth < 1) {
      throw new RangeError(
        `A readout index step needs whole sizes of at least 1, not ${least} (growth ${growth}).`,
      )
    }
    this.#least = least
    this.#most = least * growth
    this.#size = least
  }

  get size(): number {
    return this.#size
  }

  /** A step of the current size took `ms`; `full`: it found as much work as it could take. */
  took(ms: number, full: boolean): void {
    if (ms > stepBudgetMs) this.#size = Math.max(this.#least, Math.floor(this.#size / 2))
    else if (full && ms < stepBudgetMs / 2) this.#size = Math.min(this.#most, this.#size * 2)
  }
}

/** The groups whose aggregates a step's rows change, each once. */
class GroupsToQueue {
  readonly list: [number, number, Level, number][] = []
  readonly #seen = new Set<string>()

  add(
    vaultId: number,
    protocolId: number | null,
    batchId: number | null,
    moleculeId: number | null,
  ): void {
    if (protocolId === null) return
    if (batchId !== null) this.#add(vaultId, protocolId, 'batch', batchId)
    if (moleculeId !== null) this.#add(vaultId, protocolId, 'molecule', moleculeId)
  }

  #add(vaultId: number, protocolId: number, level: Level, subjectId: number): void {
    const key = `${vaultId}:${protocolId}:${level}:${subjectId}`
    if (this.#seen.has(key)) return
    this.#seen.add(key)
    this.list.push([vaultId, protocolId, level, subjectId])
  }
}

/**
 * An INSERT written many rows per statement run: rows wait until `rowsPerInsert` have come, and
 * `finish` writes the rest one by one. A step begins with `discard`: rows left waiting by a step
 * whose transaction failed belong to nothing committed.
 */
class MultiRowInsert {
  readonly #many: Database.Statement<SqlValue[]>
  readonly #one: Database.Statement<SqlValue[]>
  readonly #width: number
  readonly #waiting: SqlValue[]
  #filled = 0
  /** Rows the statements wrote since `discard` (an ignored row is none). */
  changes = 0

  constructor(db: Database.Database, insertInto: string, columns: readonly string[]) {
    const row = `(${columns.map(() => '?').join(', ')})`
    const into = `${insertInto} (${columns.join(', ')}) VALUES`
    this.#many = db.prepare<SqlValue[]>(
      `${into} ${Array.from({ length: rowsPerInsert }, () => row).join(', ')}`,
    )
    this.#one = db.prepare<SqlValue[]>(`${into} ${row}`)
    this.#width = columns.length
    this.#waiting = new Array<SqlValue>(this.#width * rowsPerInsert).fill(null)
  }

  add(...values: SqlValue[]): void {
    for (const value of values) this.#waiting[this.#filled++] = value
    if (this.#filled < this.#waiting.length) return
    this.changes += this.#many.run(...this.#waiting).changes
    this.#filled = 0
  }

  discard(): void {
    this.#filled = 0
    this.changes = 0
  }

  finish(): void {
    for (let start = 0; start < this.#filled; start += this.#width) {
      this.changes += this.#one.run(...this.#waiting.slice(start, start + this.#width)).changes
    }
    this.#filled = 0
  }
}

/** Queued rows by vault (a cache holds a connection's vaults; a step mostly sees one). */
function byVault(rows: readonly QueuedRow[]): Map<number, QueuedRow[]> {
  const vaults = new Map<number, QueuedRow[]>()
  for (const row of rows) {
    const list = vaults.get(row.vault_id)
    if (list) list.push(row)
    else vaults.set(row.vault_id, [row])
  }
  return vaults
}

function pushTo<Key, Value>(map: Map<Key, Value[]>, key: Key, value: Value): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

/** An aggregate as stored, in the order of `aggregateColumnNames` (see `aggregateCell`). */
function aggregateColumns(
  vaultId: number,
  level: Level,
  subjectId: number,
  groupAggregate: GroupAggregate,
): SqlValue[] {
  const { protocolId, definitionId, aggregate } = groupAggregate
  const cell = aggregateCell(groupAggregate)
  return [
    vaultId,
    level,
    subjectId,
    protocolId,
    definitionId,
    cell.source,
    aggregate.aggregation,
    cell.kind,
    cell.number,
    cell.modifier,
    cell.text,
    cell.n,
    aggregateDetails(groupAggregate),
  ]
}

/**
 * What an aggregate was computed from and what it left out, as `details` keeps it: the inputs,
 * then only the exclusion counts that are not zero, the values not aggregated if any and the
 * problem if there is one. Written whole, the members left out here were 60% of the bytes of the
 * aggregates' table (151 of about 250 a row, at 100k readout rows), each written at every build.
 */
function aggregateDetails({ inputs, aggregate }: GroupAggregate): string {
  const excluded = Object.entries(aggregate.excluded).filter(([, count]) => count !== 0)
  return JSON.stringify({
    inputs,
    ...(excluded.length > 0 && { excluded: Object.fromEntries(excluded) }),
    ...(aggregate.notAggregated.length > 0 && { notAggregated: aggregate.notAggregated }),
    ...(aggregate.problem !== null && { problem: aggregate.problem }),
  })
}

/**
 * An aggregate as the index keeps it and a results table shows it: the vault's own when it came as
 * the one aggregate row of a group (a curve fit's result), else computed here; the number in the
 * definition's unit.
 */
export function aggregateCell({ inputs, aggregate }: GroupAggregate): ResultsCell {
  const value = aggregate.value
  const cell = indexedCellOf(value, null)
  return {
    kind: cell.kind,
    number: cell.number,
    modifier: cell.modifier,
    text: cell.kind === 'empty' ? null : toText(givenText(value)),
    n: aggregate.n,
    source: inputs === 'aggregate rows' && aggregate.n === 1 ? 'vault' : 'computed',
  }
}

/** A protocol's readout definitions as aggregation reads them. */
export function aggregateDefinitions(
  definitions: ReadonlyMap<number, ReadoutDefinitionEntry>,
): Map<number, AggregateDefinition> {
  return new Map(
    [...definitions].map(([id, definition]) => [
      id,
      {
        valueType: definition.valueType,
        unit: definition.unit,
        aggregation: definition.aggregation,
      },
    ]),
  )
}

function prepare(db: Database.Database) {
  return {
    queuedRows: db.prepare('SELECT count(*) FROM readout_index_queue').pluck(),
    queuedGroups: db.prepare('SELECT count(*) FROM readout_group_queue').pluck(),
    nextRows: db.prepare(
      `SELECT q.vault_id, q.row_id, r.json, r.protocol_id, r.run_id, r.run_date, r.batch_id,
              r.molecule_id, r.plate_id, r.well, r.control_state
         FROM readout_index_queue q
         LEFT JOIN readout_rows r ON r.vault_id = q.vault_id AND r.id = q.row_id
         LIMIT ?`,
    ),
    groupsOfRows: db.prepare(
      `SELECT DISTINCT protocol_id, batch_id, molecule_id FROM readout_values
         WHERE vault_id = ? AND row_id IN (SELECT value FROM json_each(?))
           AND protocol_id IS NOT NULL`,
    ),
    deleteValues: db.prepare(
      `DELETE FROM readout_values
         WHERE vault_id = ? AND row_id IN (SELECT value FROM json_each(?))`,
    ),
    unqueueRows: db.prepare(
      `DELETE FROM readout_index_queue
         WHERE vault_id = ? AND row_id IN (SELECT value FROM json_each(?))`,
    ),
    nextGroup: db.prepare(
      `SELECT vault_id, protocol_id FROM readout_group_queue
         ORDER BY vault_id, protocol_id, level, subject_id LIMIT 1`,
    ),
    queuedSubjects: db
      .prepare(
        `SELECT subject_id FROM readout_group_queue
           WHERE vault_id = ? AND protocol_id = ? AND level = ? ORDER BY subject_id LIMIT ?`,
      )
      .pluck(),
    queuedOf: db
      .prepare(
        `SELECT subject_id FROM readout_group_queue
           WHERE vault_id = ? AND protocol_id = ? AND level = ?
             AND subject_id IN (SELECT value FROM json_each(?))`,
      )
      .pluck(),
    unqueueGroups: db.prepare(
      `DELETE FROM readout_group_queue
         WHERE vault_id = ? AND protocol_id = ? AND level = ?
           AND subject_id IN (SELECT value FROM json_each(?))`,
    ),
    // Along the subjects' index: by the primary key, SQLite read every aggregate of the protocol
    // at each step, which made building the index quadratic in the protocol's size.
    deleteAggregates: db.prepare(
      `DELETE FROM readout_aggregates INDEXED BY readout_aggregates_by_subject
         WHERE vault_id = ? AND level = ? AND protocol_id = ?
           AND subject_id IN (SELECT value FROM json_each(?))`,
    ),
    // A protocol's subjects: those with an aggregate in it, and how many (cache step 9).
    deleteSubjects: db.prepare(
      `DELETE FROM readout_subjects
         WHERE vault_id = ? AND level = ? AND protocol_id = ?
           AND subject_id IN (SELECT value FROM json_each(?))`,
    ),
    insertSubjects: db.prepare(
      `INSERT INTO readout_subjects (vault_id, level, protocol_id, subject_id)
         SELECT ?, ?, ?, value FROM json_each(?)`,
    ),
    countSubjects: db.prepare(
      `INSERT INTO readout_subject_counts (vault_id, level, protocol_id, subjects)
         VALUES (?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET subjects = subjects + excluded.subjects`,
    ),
    // `+protocol_id` keeps SQLite from reading the protocol's every row through its index: a
    // protocol has thousands of rows, a molecule or batch a few.
    rowsOfBatches: db.prepare(
      `SELECT id, batch_id, json FROM readout_rows
         WHERE vault_id = ? AND +protocol_id = ? AND batch_id IN (SELECT value FROM json_each(?))`,
    ),
    rowsOfMolecules: db.prepare(
      `SELECT id, batch_id, molecule_id, json FROM readout_rows
         WHERE vault_id = ? AND +protocol_id = ?
           AND molecule_id IN (SELECT value FROM json_each(?))`,
    ),
    protocol: db.prepare('SELECT json FROM protocols WHERE vault_id = ? AND id = ?').pluck(),
  }
}

/**
 * How long the writer waits for more pages before it reads queued rows. Read in the short gaps
 * between a sync's pages (5 ms tried), they made the sync itself longer (the simulator's first
 * sync of 250k rows, one run under a load of about 20: 376 s against 249 s without the index,
 * readout-index.bench.ts) for little less left after it: a sync's pages go first.
 */
export const idleBeforeRowsMs = 200
/**
 * How long the writer must have been idle before it computes aggregates: a sync's later pages
 * would queue most groups again, each recomputed over all its rows.
 */
export const idleBeforeAggregatesMs = 200

/**
 * Runs the readout indexer while the cache writer is idle, a step at a time: queued rows once the
 * writer has waited `idleBeforeRowsMs` for a page, aggregates once it has waited
 * `idleBeforeAggregatesMs`; a page that comes goes first, and indexing goes on once the writer is
 * idle again. `settled` runs once nothing is left to index.
 */
export class IdleReadoutIndexing {
  readonly #indexer: ReadoutIndexer
  readonly #settled: () => void
  #timer: NodeJS.Timeout | undefined
  #stepping: NodeJS.Immediate | undefined
  #idleSince = 0

  constructor(db: Database.Database, settled: () => void) {
    this.#indexer = new ReadoutIndexer(db)
    this.#settled = settled
  }

  /** The writer is about to commit: indexing waits. */
  busy(): void {
    clearTimeout(this.#timer)
    if (this.#stepping) clearImmediate(this.#stepping)
    this.#timer = undefined
    this.#stepping = undefined
  }

  /** The writer has nothing to do: indexing starts in a moment, unless work comes. */
  idle(): void {
    this.busy()
    this.#idleSince = performance.now()
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.#next()
    }, idleBeforeRowsMs)
  }

  #next(): void {
    this.#stepping = undefined
    if (this.#indexer.indexRows() > 0) {
      this.#stepping = setImmediate(() => this.#next())
      return
    }
    const waited = performance.now() - this.#idleSince
    if (waited < idleBeforeAggregatesMs) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined
        this.#next()
      }, idleBeforeAggregatesMs - waited)
      return
    }
    if (this.#indexer.aggregate() === 0) {
      this.#settled()
      return
    }
    this.#stepping = setImmediate(() => this.#next())
  }
}
