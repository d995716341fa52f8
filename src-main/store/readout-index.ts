import type Database from 'better-sqlite3'
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
import { readResultRow } from '../../src-common/analysis/readouts/result-rows.ts'
import { givenText } from '../../src-common/analysis/readouts/readout-value.ts'
import { toText, type JsonObject } from '../../src-common/values.ts'

/** Rows indexed per step (one transaction): a few milliseconds, so that a page of sync waits little. */
const rowsPerStep = 1000
/** Molecules and batches whose aggregates are recomputed per step. */
const groupsPerStep = 200

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

interface QueuedGroup {
  vault_id: number
  protocol_id: number
  level: Level
  subject_id: number
}

/** How far the index is: rows and groups still to index (0 and 0: complete). */
export interface ReadoutIndexBacklog {
  rows: number
  groups: number
}

/**
 * Keeps the readout value index (cache step 7) current: reads the readout rows triggers queued
 * into typed cells with their protocol's definitions (`src-common/analysis/readouts/`), then
 * recomputes the aggregates of the molecules and batches whose cells changed. Works in steps of
 * one transaction each, so that the cache writer can run it while idle and stop between steps
 * when a page of sync comes; any connection may run it (the CLI completes it before a search).
 * A row is read again whole each time it changes: the index never holds a cell of an older copy.
 */
export class ReadoutIndexer {
  readonly #db: Database.Database
  readonly #statements: ReturnType<typeof prepare>
  /** Definitions by protocol, as last read; forgotten after each step (protocols change). */
  #definitions = new Map<string, Map<number, ReadoutDefinitionEntry>>()

  constructor(db: Database.Database) {
    this.#db = db
    this.#statements = prepare(db)
  }

  backlog(): ReadoutIndexBacklog {
    return {
      rows: this.#statements.queuedRows.get() as number,
      groups: this.#statements.queuedGroups.get() as number,
    }
  }

  /** One step: queued rows first, then queued aggregates. Answers how much it did (0: none). */
  step(): number {
    const indexed = this.#db.transaction(() => this.#indexRows()).immediate()
    if (indexed > 0) return indexed
    return this.#db.transaction(() => this.#aggregateGroups()).immediate()
  }

  /** Runs steps until the index is complete; `onStep` hears the backlog after each. */
  complete(onStep?: (backlog: ReadoutIndexBacklog) => void): void {
    while (this.step() > 0) onStep?.(this.backlog())
  }

  #indexRows(): number {
    const s = this.#statements
    const queued = s.nextRows.all(rowsPerStep) as QueuedRow[]
    this.#definitions.clear()
    for (const row of queued) {
      for (const old of s.groupsOfRow.all(row.vault_id, row.row_id) as {
        protocol_id: number
        batch_id: number | null
        molecule_id: number | null
      }[]) {
        this.#queueGroups(row.vault_id, old.protocol_id, old.batch_id, old.molecule_id)
      }
      s.deleteValues.run(row.vault_id, row.row_id)
      s.unqueueRow.run(row.vault_id, row.row_id)
      if (row.json === null) continue
      const record = JSON.parse(row.json) as JsonObject
      const definitions = this.#definitionsOf(row.vault_id, row.protocol_id)
      const read = readResultRow(record, (id) => definitions.get(id))
      if (!read) continue
      for (const [definitionId, cell] of read.cells) {
        const cellIndex = indexedCellOf(cell.value, definitions.get(definitionId)?.unit ?? null)
        s.insertValue.run({
          vault_id: row.vault_id,
          row_id: row.row_id,
          definition_id: definitionId,
          protocol_id: row.protocol_id,
          run_id: row.run_id,
          run_date: row.run_date,
          batch_id: row.batch_id,
          molecule_id: row.molecule_id,
          plate_id: row.plate_id,
          well: row.well,
          aggregate_row: read.aggregateRow ? 1 : 0,
          control_state: read.controlState,
          outlier: cell.outlier ? 1 : 0,
          kind: cellIndex.kind,
          number: cellIndex.number,
          modifier: cellIndex.modifier,
          text: cellIndex.kind === 'empty' ? null : givenText(cell.value),
          note: cell.note,
        })
      }
      if (row.protocol_id !== null) {
        this.#queueGroups(row.vault_id, row.protocol_id, row.batch_id, row.molecule_id)
      }
    }
    return queued.length
  }

  #queueGroups(
    vaultId: number,
    protocolId: number | null,
    batchId: number | null,
    moleculeId: number | null,
  ): void {
    if (protocolId === null) return
    const queue = this.#statements.queueGroup
    if (batchId !== null) queue.run(vaultId, protocolId, 'batch', batchId)
    if (moleculeId !== null) queue.run(vaultId, protocolId, 'molecule', moleculeId)
  }

  #aggregateGroups(): number {
    const s = this.#statements
    const groups = s.nextGroups.all(groupsPerStep) as QueuedGroup[]
    this.#definitions.clear()
    for (const group of groups) {
      s.unqueueGroup.run(group.vault_id, group.protocol_id, group.level, group.subject_id)
      s.deleteAggregates.run(group.vault_id, group.level, group.protocol_id, group.subject_id)
      const rows = (
        (group.level === 'batch' ? s.rowsOfBatch : s.rowsOfMolecule).all(
          group.vault_id,
          group.protocol_id,
          group.subject_id,
        ) as { json: string }[]
      ).flatMap(({ json }) => {
        const definitions = this.#definitionsOf(group.vault_id, group.protocol_id)
        const read = readResultRow(JSON.parse(json), (id) => definitions.get(id))
        return read ? [read] : []
      })
      const definitions = this.#definitionsOf(group.vault_id, group.protocol_id)
      for (const aggregate of aggregateRows(rows, aggregateDefinitions(definitions), group.level)) {
        if (aggregate.subjectId !== group.subject_id) continue
        s.insertAggregate.run(aggregateColumns(group, aggregate))
      }
    }
    return groups.length
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

function aggregateDefinitions(
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

/**
 * An aggregate as stored: the vault's own when it came as the one aggregate row of a group (a
 * curve fit's result), else computed here; the number in the definition's unit.
 */
function aggregateColumns(
  group: QueuedGroup,
  { protocolId, definitionId, inputs, aggregate }: GroupAggregate,
) {
  const value = aggregate.value
  const cell = indexedCellOf(value, null)
  return {
    vault_id: group.vault_id,
    level: group.level,
    subject_id: group.subject_id,
    protocol_id: protocolId,
    definition_id: definitionId,
    source: inputs === 'aggregate rows' && aggregate.n === 1 ? 'vault' : 'computed',
    aggregation: aggregate.aggregation,
    kind: cell.kind,
    number: cell.number,
    modifier: cell.modifier,
    text: cell.kind === 'empty' ? null : toText(givenText(value)),
    n: aggregate.n,
    details: JSON.stringify({
      inputs,
      excluded: aggregate.excluded,
      notAggregated: aggregate.notAggregated,
      problem: aggregate.problem,
    }),
  }
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
    groupsOfRow: db.prepare(
      `SELECT DISTINCT protocol_id, batch_id, molecule_id FROM readout_values
         WHERE vault_id = ? AND row_id = ? AND protocol_id IS NOT NULL`,
    ),
    deleteValues: db.prepare('DELETE FROM readout_values WHERE vault_id = ? AND row_id = ?'),
    unqueueRow: db.prepare('DELETE FROM readout_index_queue WHERE vault_id = ? AND row_id = ?'),
    insertValue: db.prepare(
      `INSERT OR REPLACE INTO readout_values (vault_id, row_id, definition_id, protocol_id, run_id,
         run_date, batch_id, molecule_id, plate_id, well, aggregate_row, control_state, outlier,
         kind, number, modifier, text, note)
       VALUES (@vault_id, @row_id, @definition_id, @protocol_id, @run_id, @run_date, @batch_id,
         @molecule_id, @plate_id, @well, @aggregate_row, @control_state, @outlier, @kind, @number,
         @modifier, @text, @note)`,
    ),
    queueGroup: db.prepare(
      `INSERT OR IGNORE INTO readout_group_queue (vault_id, protocol_id, level, subject_id)
         VALUES (?, ?, ?, ?)`,
    ),
    nextGroups: db.prepare(
      'SELECT vault_id, protocol_id, level, subject_id FROM readout_group_queue LIMIT ?',
    ),
    unqueueGroup: db.prepare(
      `DELETE FROM readout_group_queue
         WHERE vault_id = ? AND protocol_id = ? AND level = ? AND subject_id = ?`,
    ),
    deleteAggregates: db.prepare(
      `DELETE FROM readout_aggregates
         WHERE vault_id = ? AND level = ? AND protocol_id = ? AND subject_id = ?`,
    ),
    rowsOfBatch: db.prepare(
      'SELECT json FROM readout_rows WHERE vault_id = ? AND protocol_id = ? AND batch_id = ?',
    ),
    rowsOfMolecule: db.prepare(
      'SELECT json FROM readout_rows WHERE vault_id = ? AND protocol_id = ? AND molecule_id = ?',
    ),
    insertAggregate: db.prepare(
      `INSERT OR REPLACE INTO readout_aggregates (vault_id, level, subject_id, protocol_id,
         definition_id, source, aggregation, kind, number, modifier, text, n, details)
       VALUES (@vault_id, @level, @subject_id, @protocol_id, @definition_id, @source,
         @aggregation, @kind, @number, @modifier, @text, @n, @details)`,
    ),
    protocol: db.prepare('SELECT json FROM protocols WHERE vault_id = ? AND id = ?').pluck(),
  }
}

/** How long the writer waits for more pages before it indexes readouts. */
const idleBeforeIndexingMs = 200

/**
 * Runs the readout indexer while the cache writer is idle, a step at a time; a page that comes
 * meanwhile goes first, and indexing goes on once the writer is idle again. `settled` runs once
 * nothing is left to index.
 */
export class IdleReadoutIndexing {
  readonly #indexer: ReadoutIndexer
  readonly #settled: () => void
  #timer: NodeJS.Timeout | undefined
  #stepping: NodeJS.Immediate | undefined

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
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.#next()
    }, idleBeforeIndexingMs)
  }

  #next(): void {
    this.#stepping = undefined
    if (this.#indexer.step() === 0) {
      this.#settled()
      return
    }
    this.#stepping = setImmediate(() => this.#next())
  }
}
