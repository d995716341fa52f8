import type Database from 'better-sqlite3'
import { aggregateRows } from '../../src-common/analysis/readouts/aggregates.ts'
import {
  protocolEntryOf,
  type Catalogue,
  type ProtocolEntry,
  type ReadoutDefinitionEntry,
} from '../../src-common/analysis/readouts/catalogue.ts'
import {
  comparisonSql,
  type Comparison,
  type SqlParameter,
} from '../../src-common/analysis/readouts/comparisons.ts'
import {
  runDayRange,
  subjectMeets,
  utcDay,
  type ResultsCriterion,
} from '../../src-common/analysis/readouts/criteria.ts'
import { readResultRow, type ResultRow } from '../../src-common/analysis/readouts/result-rows.ts'
import type {
  ResultsCell,
  ResultsColumn,
  ResultsLevel,
  ResultsPage,
  ResultsRow,
} from '../../src-common/analysis/readouts/results-table.ts'
import type { SqlValue } from '../../src-common/values.ts'
import {
  molecularPropertyNames,
  vaultPropertyFields,
  type MolecularPropertyName,
} from '../../src-common/chem/molecular-properties.ts'
import { AppError } from '../shared/app-error.ts'
import type { PendingReadoutRow } from './curve-queries.ts'
import { ReadoutChangeReader, type ReadoutChanges } from './readout-changes.ts'
import { aggregateCell, aggregateDefinitions } from './readout-index.ts'

/** One aggregate of a molecule or batch. */
export interface SubjectAggregate {
  protocolId: number
  definitionId: number
  cell: ResultsCell
}

/** A plotted column: a molecular property or a readout's aggregate per molecule. */
export type PointColumn =
  { property: MolecularPropertyName } | { protocolId: number; definitionId: number }

export interface PointsQuestion {
  columns: readonly PointColumn[]
  /** Only these molecules; every molecule of the vault otherwise. */
  moleculeIds?: readonly number[]
}

export interface PointsAnswer {
  /** Molecule ids, in id order; `values[c][i]` is column c of molecule `ids[i]`. */
  ids: number[]
  values: (number | null)[][]
  /** A qualified aggregate's modifier (`<`, `>`...), else null; always null for properties. */
  modifiers: (string | null)[][]
}

/** The structure index's column of each property (its migration's names). */
const propertyColumns: Record<MolecularPropertyName, string> = Object.fromEntries(
  molecularPropertyNames.map((name) => [name, vaultPropertyFields[name].moleculeField]),
) as Record<MolecularPropertyName, string>

export interface ResultsTableOptions {
  level: ResultsLevel
  columns: readonly ResultsColumn[]
  /** A column index, or `name`; by name when absent. */
  sort?: { column: number | 'name'; direction: 'asc' | 'desc' }
  /** Range filters on columns' aggregates (their comparison, in the definition's unit). */
  filters?: readonly { column: number; comparison: Comparison }[]
  /** Only these molecules (a text, field, structure or property search's answer). */
  moleculeIds?: readonly number[]
  /**
   * Readout rows with corrections waiting in the outbox: the page's aggregates they change are
   * recomputed with them and marked pending. Rows are chosen and ordered by the synced aggregates.
   */
  pending?: readonly PendingReadoutRow[]
  limit?: number
  offset?: number
}

/** Plot points of at most this many chosen molecules are looked up rather than read in a pass. */
const pointsLookedUp = 20_000

/** At most this many columns: each is a join, and a person reads a dozen at most. */
const maxColumns = 32

/**
 * Questions about assay results, answered from the readout value index: the catalogue of
 * protocols and readouts, the molecules or batches that meet results criteria, and results
 * tables (a row per molecule or batch, a column per readout with its aggregate).
 */
export class ReadoutQueries {
  readonly #db: Database.Database
  readonly #batchesByVault = new Map<number, { batches: number; map: VaultBatches }>()
  /** Answers of recent searches by results, by question, with the state they were read in. */
  readonly #answers = new Map<string, { state: string; ids: readonly number[] }>()
  readonly #changes: ReadoutChangeReader
  /** The readout state last read, and the changes it was made of. */
  #state: ReadoutState | null = null

  #evaluations = 0

  /** Once seen complete, cache step 9's subjects stay so (see #subjectsKept). */
  #stepNineComplete = false

  constructor(db: Database.Database) {
    this.#db = db
    this.#changes = new ReadoutChangeReader(db)
  }

  /** Searches by results evaluated, rather than answered as kept: what tests and benches read. */
  get evaluations(): number {
    return this.#evaluations
  }

  /** Forgets the kept answers of searches by results: the next are evaluated (a bench's cold). */
  forget(): void {
    this.#answers.clear()
  }

  /** The vault's protocols and their readout definitions, by name. */
  catalogue(vaultId: number): Catalogue {
    const protocols = this.#db
      .prepare('SELECT json FROM protocols WHERE vault_id = ? ORDER BY name')
      .pluck()
      .all(vaultId) as string[]
    return protocols.flatMap((json) => protocolEntryOf(JSON.parse(json)) ?? [])
  }

  /**
   * The batches (or their molecules) that meet results criteria, as the vault's protocol criteria
   * mean them: a batch meets one when one of its readout rows does; criteria join left to right.
   *
   * Answered by one compound statement: each criterion's batches read once from the value index,
   * then combined by SQLite (INTERSECT, UNION, EXCEPT), rather than each set handed to JavaScript;
   * the batches found are mapped to molecules by a map of the vault's batches kept in memory. A negated criterion after AND takes its batches away (EXCEPT), so
   * that every batch of the vault is read only where a negation begins the criteria or follows OR.
   */
  matching(
    vaultId: number,
    criteria: readonly ResultsCriterion[],
    level: ResultsLevel,
    today = utcDay(Date.now()),
    pending: readonly PendingReadoutRow[] = [],
  ): readonly number[] {
    if (criteria.length === 0) return []
    // A list asks for each page, for its count and for the structure search within it: one
    // evaluation serves them all while nothing it reads has changed.
    const readsPending = criteria.some((criterion) => criterion.readout?.scope === 'aggregate')
    const question = JSON.stringify([
      vaultId,
      level,
      today,
      criteria,
      readsPending ? pending.map((row) => [row.rowId, row.record]) : [],
    ])
    const state = this.#readoutState()
    const kept = this.#answers.get(question)
    this.#answers.delete(question)
    if (kept?.state === state.key) {
      this.#answers.set(question, kept)
      return kept.ids
    }
    this.#evaluations++
    // The same array each time it is kept: the structure search knows its scope by it.
    const ids = Object.freeze(
      this.#evaluate(vaultId, criteria, level, today, readsPending ? pending : []),
    )
    this.#answers.set(question, { state: state.key, ids })
    while (this.#answers.size > keptAnswers) {
      this.#answers.delete(this.#answers.keys().next().value!)
    }
    return ids
  }

  /**
   * What a search by results reads, as a key that changes whenever its answer may: the changes
   * of readout rows, batches and protocols, and the index's backlog (readout-changes.ts).
   */
  #readoutState(): ReadoutState {
    const changes = this.#changes.current()
    if (this.#state?.changes === changes) return this.#state
    const key = [
      changes.readoutRows,
      changes.batches,
      changes.protocols,
      changes.queuedRows,
      changes.queuedGroups,
    ].join(':')
    this.#state = { changes, key }
    return this.#state
  }

  /**
   * Each criterion's batches read from the index as a sorted list, then combined left to right
   * by merging the lists (a negation taken from every batch of the vault, kept in memory): as one
   * compound statement, SQLite sorted each side into a temporary tree, 550 ms of a 560 ms search
   * for two criteria at 185k values (results-queries.bench.ts).
   */
  #evaluate(
    vaultId: number,
    criteria: readonly ResultsCriterion[],
    level: ResultsLevel,
    today: string,
    pending: readonly PendingReadoutRow[],
  ): number[] {
    const corrected = new Map(pending.map((row) => [row.rowId, row.record] as const))
    const every = () => this.#vaultBatches(vaultId).batchIds
    let found: Float64Array = new Float64Array(0)
    for (const [index, criterion] of criteria.entries()) {
      const met = this.#batchesMeeting(vaultId, criterion, today, corrected)
      if (index === 0) found = criterion.negated ? difference(every(), met) : met
      else if (criterion.junction === 'AND') {
        found = criterion.negated ? difference(found, met) : intersection(found, met)
      } else found = union(found, criterion.negated ? difference(every(), met) : met)
    }
    if (level === 'batch') return Array.from(found)
    return Array.from(this.#vaultBatches(vaultId).moleculesOf(found))
  }

  /**
   * A vault's batches and their molecules, read once and kept until a batch is added, deleted or
   * moved to another molecule (cache step 13's counter), by any connection.
   */
  #vaultBatches(vaultId: number): VaultBatches {
    const { batches } = this.#readoutState().changes
    const kept = this.#batchesByVault.get(vaultId)
    if (kept?.batches === batches) return kept.map
    const rows = this.#db
      .prepare('SELECT id, molecule_id FROM batches WHERE vault_id = ?')
      .raw()
      .all(vaultId) as [number, number | null][]
    const map = VaultBatches.of(rows)
    this.#batchesByVault.set(vaultId, { batches, map })
    return map
  }

  /** The batches with a readout row that meets the criterion (negation aside), ascending. */
  #batchesMeeting(
    vaultId: number,
    criterion: ResultsCriterion,
    today: string,
    corrected: ReadonlyMap<number, unknown>,
  ): Float64Array {
    const test = criterion.readout
    if (test?.scope === 'aggregate') {
      return Float64Array.from(
        this.#batchesWhoseAggregateMeets(vaultId, criterion, today, corrected),
      ).sort()
    }
    const params: SqlParameter[] = []
    const batchIds = (sql: string) =>
      distinctAscending(
        this.#db
          .prepare(sql)
          .pluck()
          .all(...params) as number[],
      )
    const where = ['vault_id = ?', 'batch_id IS NOT NULL']
    params.push(vaultId)
    if (criterion.protocolId !== null) {
      where.push('protocol_id = ?')
      params.push(criterion.protocolId)
    }
    const days = runDayRange(criterion.runs, { today })
    if (criterion.runs.kind === 'run') {
      where.push('run_id = ?')
      params.push(criterion.runs.runId)
    } else if (days !== null) {
      if (days.onOrAfter !== null) {
        where.push('substr(run_date, 1, 10) >= ?')
        params.push(days.onOrAfter)
      }
      if (days.before !== null) {
        where.push('substr(run_date, 1, 10) < ?')
        params.push(days.before)
      }
    }
    if (test === null)
      return batchIds(`SELECT batch_id FROM readout_rows WHERE ${where.join(' AND ')}`)
    // Compared by its bound, a value in a range has its number in the range: said again plainly,
    // SQLite reads the range from the definition's index instead of every value of the vault.
    const comparison = test.comparison
    if (comparison.kind === 'range') {
      if (comparison.lower) {
        where.push(`number ${comparison.lower.inclusive ? '>=' : '>'} ?`)
        params.push(comparison.lower.value)
      }
      if (comparison.upper) {
        where.push(`number ${comparison.upper.inclusive ? '<=' : '<'} ?`)
        params.push(comparison.upper.value)
      }
    }
    where.push('definition_id = ?')
    params.push(test.definitionId)
    // A qualified value compared by its bound, as the vault's criteria compare it (asBound).
    const predicate = comparisonSql(comparison, {
      kind: 'kind',
      number: 'number',
      modifier: 'NULL',
      text: 'text',
    })
    params.push(...predicate.params)
    return batchIds(
      `SELECT batch_id FROM readout_values WHERE ${where.join(' AND ')} AND ${predicate.sql}`,
    )
  }

  /**
   * Aggregate scope: each tested batch's aggregate over the rows the criterion keeps, with the
   * corrections waiting in the outbox in place of their synced rows, as results tables show them.
   */
  #batchesWhoseAggregateMeets(
    vaultId: number,
    criterion: ResultsCriterion,
    today: string,
    corrected: ReadonlyMap<number, unknown>,
  ): Set<number> {
    const rows = this.#db
      .prepare(
        `SELECT id, json FROM readout_rows WHERE vault_id = ? AND batch_id IS NOT NULL
           ${criterion.protocolId === null ? '' : 'AND protocol_id = ?'}`,
      )
      .raw()
      .all(...(criterion.protocolId === null ? [vaultId] : [vaultId, criterion.protocolId])) as [
      number,
      string,
    ][]
    const byBatch = new Map<number, ResultRow[]>()
    for (const [id, json] of rows) {
      const row = readResultRow(corrected.get(id) ?? JSON.parse(json))
      if (row?.batchId == null) continue
      const list = byBatch.get(row.batchId)
      if (list) list.push(row)
      else byBatch.set(row.batchId, [row])
    }
    const positive = { ...criterion, negated: false }
    const met = new Set<number>()
    for (const [batchId, batchRows] of byBatch) {
      if (subjectMeets(positive, batchRows, { today })) met.add(batchId)
    }
    return met
  }

  /**
   * Whether `readout_subjects`, their counts and `readout_aggregates_by_cell` are complete: after
   * an upgrade through cache step 9 the writer's worker fills them (cache-backfills.ts), making
   * the index last, in the transaction that completes them.
   */
  #subjectsKept(): boolean {
    this.#stepNineComplete ||=
      this.#db
        .prepare(
          "SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'readout_aggregates_by_cell'",
        )
        .get() !== undefined
    return this.#stepNineComplete
  }

  /**
   * A page of a results table: the molecules (or batches) with an aggregate in one of the columns'
   * protocols, each with its aggregates, sorted by name or a column (numbers by value, a qualified
   * value beside its bound, text after numbers and empty cells last in both directions).
   *
   * Asked in three statements, each joining only what it needs (results-queries.bench.ts): the
   * total; the page's subjects in order (joining the sorted and filtered columns alone); then the
   * page's rows with every column. Joined whole over a protocol of 100k molecules, each subject's
   * name and cells were looked up before the sort kept a hundred of them.
   */
  table(vaultId: number, options: ResultsTableOptions): ResultsPage {
    const { level, columns } = options
    if (columns.length === 0) return { total: 0, rows: [] }
    if (columns.length > maxColumns) {
      throw new AppError(
        'invalid_argument',
        `A results table shows at most ${maxColumns} readouts.`,
      )
    }
    const params: Record<string, SqlValue> = { vaultId, level }
    const protocols = [...new Set(columns.map((column) => column.protocolId))]
    params.protocols = JSON.stringify(protocols)
    params.protocol = protocols[0]!
    const scope =
      options.moleculeIds === undefined
        ? ''
        : this.#moleculeScope(level, options.moleculeIds, params)
    const joinOf = (index: number) => {
      params[`p${index}`] = columns[index]!.protocolId
      params[`d${index}`] = columns[index]!.definitionId
      return `LEFT JOIN readout_aggregates c${index} ON c${index}.vault_id = @vaultId
        AND c${index}.level = @level AND c${index}.protocol_id = @p${index}
        AND c${index}.definition_id = @d${index} AND c${index}.subject_id = s.subject_id`
    }
    const subject =
      level === 'molecule'
        ? `LEFT JOIN molecules m ON m.vault_id = @vaultId AND m.id = s.subject_id`
        : `LEFT JOIN batches b ON b.vault_id = @vaultId AND b.id = s.subject_id`
    const name = level === 'molecule' ? 'm.name' : 'coalesce(b.identifier, b.name)'
    const moleculeId = level === 'molecule' ? 's.subject_id' : 'b.molecule_id'
    const filters = (options.filters ?? []).map(({ column, comparison }, index) => {
      if (!Number.isInteger(column) || column < 0 || column >= columns.length) {
        throw new AppError(
          'invalid_argument',
          `No column ${column} to filter in this results table.`,
        )
      }
      return { column, comparison, index }
    })
    const predicateOf = (filter: (typeof filters)[number]) => {
      const c = `c${filter.column}`
      const predicate = comparisonSql(filter.comparison, {
        kind: `${c}.kind`,
        number: `${c}.number`,
        modifier: `${c}.modifier`,
        text: `${c}.text`,
      })
      let position = 0
      return predicate.sql.replace(/\?/g, () => {
        params[`f${filter.index}_${position}`] = predicate.params[position]!
        return `@f${filter.index}_${position++}`
      })
    }
    const order = orderBy(options.sort, name, columns.length)
    const sortColumn = typeof options.sort?.column === 'number' ? options.sort.column : null
    const limit = Math.min(Math.max(Math.trunc(options.limit ?? 100), 0), 1000)
    const offset = Math.max(Math.trunc(options.offset ?? 0), 0)
    // The subjects: those with an aggregate in a column's protocol or, filtered, those whose
    // cell meets the first filter, read from its column's index ('present' also admits subjects
    // without the cell, so it never leads).
    const leading = filters.find((filter) => filter.comparison.kind !== 'present')
    // A protocol's subjects are kept (cache step 9): one protocol's are its own rows, several
    // protocols' are told apart once. Until the writer has filled them after an upgrade, they are
    // those with an aggregate.
    const kept = this.#subjectsKept()
    const subjectTable = kept ? 'readout_subjects' : 'readout_aggregates'
    let subjects =
      protocols.length === 1 && kept
        ? `(SELECT subject_id FROM readout_subjects
            WHERE vault_id = @vaultId AND level = @level AND protocol_id = @protocol) s`
        : `(SELECT DISTINCT subject_id FROM ${subjectTable}
            WHERE vault_id = @vaultId AND level = @level
              AND protocol_id IN (SELECT value FROM json_each(@protocols))) s`
    if (leading) {
      const c = `c${leading.column}`
      joinOf(leading.column)
      subjects = `(SELECT ${c}.subject_id FROM readout_aggregates ${c}
        WHERE ${c}.vault_id = @vaultId AND ${c}.level = @level
          AND ${c}.protocol_id = @p${leading.column} AND ${c}.definition_id = @d${leading.column}
          AND ${predicateOf(leading)}) s`
    }
    const others = filters.filter((filter) => filter !== leading)
    const otherColumns = new Set(others.map((filter) => filter.column))
    const filterJoins = [...otherColumns].map(joinOf).join('\n')
    const where = `WHERE 1 ${scope} ${others.map((filter) => `AND ${predicateOf(filter)}`).join(' ')}`
    // Batches are scoped by their molecule, which only their row says.
    const scopeJoin = level === 'batch' && scope !== '' ? subject : ''
    // Unfiltered, one protocol's total is kept beside its subjects.
    const total =
      kept && leading === undefined && others.length === 0 && scope === '' && protocols.length === 1
        ? ((this.#db
            .prepare(
              `SELECT subjects FROM readout_subject_counts
                 WHERE vault_id = @vaultId AND level = @level AND protocol_id = @protocol`,
            )
            .pluck()
            .get(params) as number | undefined) ?? 0)
        : (this.#db
            .prepare(`SELECT count(*) FROM ${subjects} ${scopeJoin} ${filterJoins} ${where}`)
            .pluck()
            .get(params) as number)

    const pageOf = (from: string, order: string, where: string, skip: number) =>
      this.#db
        .prepare(`SELECT s.subject_id ${from} ${where} ORDER BY ${order} LIMIT @limit OFFSET @skip`)
        .pluck()
        .all({ ...params, limit, skip }) as number[]
    let ids: number[]
    // Many subjects to choose from: walking the names in order finds a page of them soon.
    const byName = sortColumn === null && level === 'molecule' && total >= 50 * (offset + limit)
    if (byName) {
      // Molecules in the order of their name's index, each looked up in the protocols (and the
      // filters) until the page is full, rather than every subject's name looked up and sorted.
      // Unnamed ones, and ones not cached, come last by id, as the sort puts them.
      const direction = options.sort?.direction === 'desc' ? 'DESC' : 'ASC'
      // Filters as lookups of each molecule: joined, SQLite would read the filtered column first.
      const named = `FROM (SELECT id AS subject_id, name FROM molecules
            WHERE vault_id = @vaultId AND name IS NOT NULL) s`
      const meets = filters
        .filter((filter) => filter.comparison.kind !== 'present')
        .map((filter) => {
          const c = `c${filter.column}`
          return `AND EXISTS (SELECT 1 FROM readout_aggregates ${c}
            WHERE ${c}.vault_id = @vaultId AND ${c}.level = @level
              AND ${c}.protocol_id = @p${filter.column} AND ${c}.definition_id = @d${filter.column}
              AND ${c}.subject_id = s.subject_id AND ${predicateOf(filter)})`
        })
      const namedWhere = `WHERE 1 ${scope} ${meets.join(' ')}
          AND EXISTS (SELECT 1 FROM ${subjectTable} a
            WHERE a.vault_id = @vaultId AND a.level = @level
              AND a.protocol_id IN (SELECT value FROM json_each(@protocols))
              AND a.subject_id = s.subject_id)`
      ids = pageOf(named, `s.name COLLATE NOCASE ${direction}, s.subject_id`, namedWhere, offset)
      if (ids.length < limit) {
        const namedCount =
          ids.length > 0
            ? offset + ids.length
            : (this.#db
                .prepare(`SELECT count(*) ${named} ${namedWhere}`)
                .pluck()
                .get(params) as number)
        ids.push(
          ...pageOf(
            `FROM ${subjects} ${subject} ${filterJoins}`,
            's.subject_id',
            `${where} AND m.name IS NULL`,
            Math.max(0, offset - namedCount),
          ).slice(0, limit - ids.length),
        )
      }
    } else if (sortColumn !== null && filters.length === 0 && scope === '') {
      // The sorted column read in the order of the sort, in three parts: its values (numbers,
      // dates, booleans) walked in the column's index by number, so that a page reads a page of
      // them rather than every cell sorted (only cells of one number are sorted among
      // themselves); then its text cells; then the subjects with an empty cell or none, by id.
      // Every cell of the column belongs to a subject of the table.
      const c = `c${sortColumn}`
      const direction = options.sort?.direction === 'desc' ? 'DESC' : 'ASC'
      const cellsOf = (kinds: string, index = '') => `FROM readout_aggregates ${c} ${index}
        WHERE ${c}.vault_id = @vaultId AND ${c}.level = @level
          AND ${c}.protocol_id = @p${sortColumn} AND ${c}.definition_id = @d${sortColumn}
          AND ${kinds}`
      joinOf(sortColumn)
      const values = `${c}.kind IN ('number', 'date', 'boolean') AND ${c}.number IS NOT NULL`
      const text = `${c}.kind = 'text'`
      const parts = [
        {
          from: cellsOf(values, kept ? 'INDEXED BY readout_aggregates_by_cell' : ''),
          order: `${c}.number ${direction}, ${modifierRank(c)} ${direction},
            ${c}.text COLLATE NOCASE ${direction}, ${c}.subject_id`,
        },
        {
          from: cellsOf(text),
          order: `${c}.text COLLATE NOCASE ${direction}, ${c}.subject_id`,
        },
        {
          from: `FROM ${subjects} WHERE NOT EXISTS (SELECT 1
            ${cellsOf(`(${values} OR ${text})`)} AND ${c}.subject_id = s.subject_id)`,
          order: 's.subject_id',
        },
      ]
      ids = []
      let skip = offset
      for (const part of parts) {
        if (ids.length === limit) break
        const found = this.#db
          .prepare(`SELECT subject_id ${part.from} ORDER BY ${part.order} LIMIT @take OFFSET @skip`)
          .pluck()
          .all({ ...params, take: limit - ids.length, skip }) as number[]
        ids.push(...found)
        // Past this part: the next one starts where the offset falls in it.
        skip =
          found.length > 0
            ? 0
            : Math.max(
                0,
                skip -
                  (this.#db.prepare(`SELECT count(*) ${part.from}`).pluck().get(params) as number),
              )
      }
    } else {
      const sortJoin =
        sortColumn !== null && !otherColumns.has(sortColumn) ? joinOf(sortColumn) : ''
      ids = pageOf(
        `FROM ${subjects} ${sortColumn === null || scopeJoin ? subject : ''} ${filterJoins} ${sortJoin}`,
        `${order}, s.subject_id`,
        where,
        offset,
      )
    }

    const selected = columns
      .map(
        (_, index) =>
          `, c${index}.kind AS k${index}, c${index}.number AS n${index}, c${index}.modifier AS m${index},
           c${index}.text AS t${index}, c${index}.n AS c${index}, c${index}.source AS s${index}`,
      )
      .join('')
    const rows = this.#db
      .prepare(
        `SELECT s.subject_id, ${moleculeId} AS molecule_id, ${name} AS name ${selected}
           FROM (SELECT value AS subject_id, key FROM json_each(@page)) s ${subject}
           ${columns.map((_, index) => joinOf(index)).join('\n')}
           ORDER BY s.key`,
      )
      .all({ ...params, page: JSON.stringify(ids) }) as Record<string, SqlValue>[]
    const pending =
      options.pending && options.pending.length > 0
        ? this.#pendingAggregates(vaultId, level, protocols, ids, options.pending)
        : null
    return {
      total,
      rows: rows.map((row) => {
        const subjectId = row.subject_id as number
        const changed = pending?.get(subjectId)
        return {
          subjectId,
          moleculeId: row.molecule_id as number | null,
          name: row.name as string | null,
          cells: columns.map((column, index) => {
            const stored: ResultsCell | null =
              row[`k${index}`] === null
                ? null
                : {
                    kind: row[`k${index}`] as ResultsCell['kind'],
                    number: row[`n${index}`] as number | null,
                    modifier: row[`m${index}`] as string | null,
                    text: row[`t${index}`] as string | null,
                    n: row[`c${index}`] as number,
                    source: row[`s${index}`] as ResultsCell['source'],
                  }
            const recomputed = changed?.get(column.protocolId)
            if (recomputed === undefined) return stored
            const cell = recomputed.get(column.definitionId) ?? null
            if (JSON.stringify(cell) === JSON.stringify(stored)) return stored
            // A cell the corrections emptied stays shown, as pending.
            return cell
              ? { ...cell, pending: true as const }
              : {
                  kind: 'empty',
                  number: null,
                  modifier: null,
                  text: null,
                  n: 0,
                  source: 'computed',
                  pending: true as const,
                }
          }),
        }
      }),
    }
  }

  /**
   * The aggregates of the page's subjects that pending readout rows touch, recomputed over their
   * cached rows with the pending copies in place of the synced ones, as the indexer computes them:
   * by subject, then protocol, then definition.
   */
  #pendingAggregates(
    vaultId: number,
    level: ResultsLevel,
    protocols: readonly number[],
    subjectIds: readonly number[],
    pending: readonly PendingReadoutRow[],
  ): Map<number, Map<number, Map<number, ResultsCell>>> {
    const records = new Map(pending.map((row) => [row.rowId, row.record] as const))
    const subjectColumn = level === 'batch' ? 'batch_id' : 'molecule_id'
    const touched = this.#db
      .prepare(
        `SELECT DISTINCT protocol_id, ${subjectColumn} FROM readout_rows
           WHERE vault_id = ? AND id IN (SELECT value FROM json_each(?))
             AND protocol_id IN (SELECT value FROM json_each(?))
             AND ${subjectColumn} IN (SELECT value FROM json_each(?))`,
      )
      .raw()
      .all(
        vaultId,
        JSON.stringify([...records.keys()]),
        JSON.stringify(protocols),
        JSON.stringify(subjectIds),
      ) as [number, number][]
    const rowsOf = this.#db.prepare(
      `SELECT id, json FROM readout_rows
         WHERE vault_id = ? AND +protocol_id = ? AND ${subjectColumn} = ?`,
    )
    const found = new Map<number, Map<number, Map<number, ResultsCell>>>()
    for (const [protocolId, subjectId] of touched) {
      const definitions = this.#definitionsOf(vaultId, protocolId)
      const read = (rowsOf.all(vaultId, protocolId, subjectId) as { id: number; json: string }[])
        .map((row) =>
          readResultRow(records.get(row.id) ?? JSON.parse(row.json), (id) => definitions.get(id)),
        )
        .filter((row) => row !== null)
      const cells = new Map<number, ResultsCell>()
      for (const aggregate of aggregateRows(read, aggregateDefinitions(definitions), level)) {
        if (aggregate.subjectId === subjectId)
          cells.set(aggregate.definitionId, aggregateCell(aggregate))
      }
      let bySubject = found.get(subjectId)
      if (!bySubject) found.set(subjectId, (bySubject = new Map()))
      bySubject.set(protocolId, cells)
    }
    return found
  }

  /** A protocol's readout definitions by id (none when the protocol is not cached). */
  #definitionsOf(vaultId: number, protocolId: number): Map<number, ReadoutDefinitionEntry> {
    const json = this.#db
      .prepare('SELECT json FROM protocols WHERE vault_id = ? AND id = ?')
      .pluck()
      .get(vaultId, protocolId) as string | undefined
    const entry = json === undefined ? null : protocolEntryOf(JSON.parse(json))
    return new Map((entry?.readouts ?? []).map((definition) => [definition.id, definition]))
  }

  /**
   * Numeric columns over every molecule in scope, for plots: computed properties (the structure
   * index's, the vault's own where it gave them) and readout aggregates; a value is null where the
   * molecule has none (a qualified aggregate gives its bound: its modifier is in `modifiers`).
   */
  points(vaultId: number, question: PointsQuestion): PointsAnswer {
    for (const column of question.columns) {
      if ('property' in column && propertyColumns[column.property] === undefined) {
        throw new AppError('invalid_argument', `No molecular property ${String(column.property)}.`)
      }
    }
    const ids = (
      question.moleculeIds === undefined
        ? this.#db
            .prepare('SELECT id FROM molecules WHERE vault_id = ? ORDER BY id')
            .pluck()
            .all(vaultId)
        : this.#db
            .prepare(
              `SELECT id FROM molecules
                 WHERE vault_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY id`,
            )
            .pluck()
            .all(vaultId, JSON.stringify(question.moleculeIds))
    ) as number[]
    // A few molecules are looked up; many are matched to each column read in one pass.
    const lookedUp = question.moleculeIds !== undefined && ids.length <= pointsLookedUp
    const only = (column: string) =>
      lookedUp ? `AND ${column} IN (SELECT value FROM json_each(@ids))` : ''
    const params = { vaultId, ids: lookedUp ? JSON.stringify(ids) : null }
    /** A column's values by molecule, in molecule order: [id, value, modifier]. */
    const rowsOf = (column: PointColumn) =>
      ('property' in column
        ? this.#db
            .prepare(
              `SELECT molecule_id, ${propertyColumns[column.property]}, NULL FROM structure_index
                 WHERE vault_id = @vaultId ${only('molecule_id')}
                 ORDER BY molecule_id`,
            )
            .raw()
            .all(params)
        : this.#db
            .prepare(
              `SELECT subject_id, number, modifier FROM readout_aggregates
                 WHERE vault_id = @vaultId AND level = 'molecule' AND protocol_id = @protocolId
                   AND definition_id = @definitionId AND kind = 'number'
                   ${only('subject_id')}
                 ORDER BY subject_id`,
            )
            .raw()
            .all({
              ...params,
              protocolId: column.protocolId,
              definitionId: column.definitionId,
            })) as [number, unknown, string | null][]
    // Matched to the ids in order: looked up molecule by molecule, four columns of 250k molecules
    // took a million lookups.
    const values: (number | null)[][] = []
    const modifiers: (string | null)[][] = []
    for (const column of question.columns) {
      const rows = rowsOf(column)
      const columnValues = new Array<number | null>(ids.length).fill(null)
      const columnModifiers = new Array<string | null>(ids.length).fill(null)
      let row = 0
      ids.forEach((id, position) => {
        while (row < rows.length && rows[row]![0] < id) row++
        const found = rows[row]
        if (found === undefined || found[0] !== id) return
        const value = found[1]
        columnValues[position] = typeof value === 'number' && Number.isFinite(value) ? value : null
        columnModifiers[position] = found[2] ?? null
      })
      values.push(columnValues)
      modifiers.push(columnModifiers)
    }
    return { ids, values, modifiers }
  }

  /** Every aggregate one molecule or batch has, by protocol and readout (a record page's summary). */
  subjectSummary(vaultId: number, level: ResultsLevel, subjectId: number): SubjectAggregate[] {
    const rows = this.#db
      .prepare(
        `SELECT protocol_id, definition_id, kind, number, modifier, text, n, source
           FROM readout_aggregates WHERE vault_id = ? AND level = ? AND subject_id = ?
           ORDER BY protocol_id, definition_id`,
      )
      .all(vaultId, level, subjectId) as {
      protocol_id: number
      definition_id: number
      kind: ResultsCell['kind']
      number: number | null
      modifier: string | null
      text: string | null
      n: number
      source: ResultsCell['source']
    }[]
    return rows.map((row) => ({
      protocolId: row.protocol_id,
      definitionId: row.definition_id,
      cell: {
        kind: row.kind,
        number: row.number,
        modifier: row.modifier,
        text: row.text,
        n: row.n,
        source: row.source,
      },
    }))
  }

  #moleculeScope(
    level: ResultsLevel,
    moleculeIds: readonly number[],
    params: Record<string, SqlValue>,
  ): string {
    params.molecules = JSON.stringify(moleculeIds)
    return level === 'molecule'
      ? 'AND s.subject_id IN (SELECT value FROM json_each(@molecules))'
      : 'AND b.molecule_id IN (SELECT value FROM json_each(@molecules))'
  }
}

/** Searches by results whose answers are kept: a list's criteria, a table's, an export's. */
const keptAnswers = 8

interface ReadoutState {
  /** What the key was made of. */
  changes: Readonly<ReadoutChanges>
  /** Changes whenever an answer of `matching` may. */
  key: string
}

/**
 * A vault's batch ids, ascending, beside their molecule ids (NaN for none) in two typed arrays:
 * 16 bytes a batch.
 */
class VaultBatches {
  readonly batchIds: Float64Array
  readonly #moleculeIds: Float64Array

  private constructor(batchIds: Float64Array, moleculeIds: Float64Array) {
    this.batchIds = batchIds
    this.#moleculeIds = moleculeIds
  }

  /** From [batch id, molecule id] pairs, usually already in id order (synced in that order). */
  static of(rows: readonly (readonly [number, number | null])[]): VaultBatches {
    let inOrder = true
    for (let index = 1; index < rows.length && inOrder; index++) {
      inOrder = rows[index - 1]![0] < rows[index]![0]
    }
    const ordered = inOrder ? rows : [...rows].sort((a, b) => a[0] - b[0])
    const batchIds = new Float64Array(ordered.length)
    const moleculeIds = new Float64Array(ordered.length)
    for (const [place, [batchId, moleculeId]] of ordered.entries()) {
      batchIds[place] = batchId
      moleculeIds[place] = moleculeId ?? Number.NaN
    }
    return new VaultBatches(batchIds, moleculeIds)
  }

  /** The molecules of ascending batch ids, ascending and each once (unknown batches left out). */
  moleculesOf(batchIds: Float64Array): Float64Array {
    const found = new Float64Array(batchIds.length)
    let count = 0
    let at = 0
    for (const batchId of batchIds) {
      while (at < this.batchIds.length && this.batchIds[at]! < batchId) at++
      if (at === this.batchIds.length) break
      const moleculeId = this.#moleculeIds[at]!
      if (this.batchIds[at] === batchId && !Number.isNaN(moleculeId)) found[count++] = moleculeId
    }
    return distinctAscending(found.subarray(0, count))
  }
}

/**
 * Whole numbers (ids, from 0) in ascending order, each once. Ids of a vault lie close together:
 * marked in a bit set of their span and read back in order, 185k batch ids took a few
 * milliseconds against 70 for sorting them (under load); far apart, they are sorted.
 */
function distinctAscending(values: ArrayLike<number>): Float64Array {
  let low = Infinity
  let high = -Infinity
  for (let index = 0; index < values.length; index++) {
    const value = values[index]!
    if (value < low) low = value
    if (value > high) high = value
  }
  const span = high - low + 1
  if (
    values.length === 0 ||
    !(span <= 32 * values.length + 1_048_576 && Number.isSafeInteger(span))
  ) {
    return sortedDistinct(values)
  }
  const bits = new Uint32Array(Math.ceil(span / 32))
  for (let index = 0; index < values.length; index++) {
    const offset = values[index]! - low
    if (!Number.isInteger(offset)) return sortedDistinct(values)
    bits[offset >>> 5]! |= 1 << (offset & 31)
  }
  const found = new Float64Array(values.length)
  let count = 0
  for (let word = 0; word < bits.length; word++) {
    let remaining = bits[word]!
    while (remaining !== 0) {
      const lowest = remaining & -remaining
      found[count++] = low + word * 32 + (31 - Math.clz32(lowest))
      remaining ^= lowest
    }
  }
  return found.subarray(0, count)
}

function sortedDistinct(values: ArrayLike<number>): Float64Array {
  const sorted = Float64Array.from(values).sort()
  let count = 0
  for (let index = 0; index < sorted.length; index++) {
    if (count === 0 || sorted[count - 1] !== sorted[index]) sorted[count++] = sorted[index]!
  }
  return sorted.subarray(0, count)
}

/** Of two ascending lists of distinct numbers: those in both. */
function intersection(a: Float64Array, b: Float64Array): Float64Array {
  const found = new Float64Array(Math.min(a.length, b.length))
  let count = 0
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i]! < b[j]!) i++
    else if (a[i]! > b[j]!) j++
    else {
      found[count++] = a[i]!
      i++
      j++
    }
  }
  return found.subarray(0, count)
}

/** Of two ascending lists of distinct numbers: those of the first that the second lacks. */
function difference(a: Float64Array, b: Float64Array): Float64Array {
  const found = new Float64Array(a.length)
  let count = 0
  let j = 0
  for (const value of a) {
    while (j < b.length && b[j]! < value) j++
    if (j === b.length || b[j] !== value) found[count++] = value
  }
  return found.subarray(0, count)
}

/** Of two ascending lists of distinct numbers: those in either, ascending, each once. */
function union(a: Float64Array, b: Float64Array): Float64Array {
  const found = new Float64Array(a.length + b.length)
  let count = 0
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (j === b.length || (i < a.length && a[i]! < b[j]!)) found[count++] = a[i++]!
    else if (i === a.length || b[j]! < a[i]!) found[count++] = b[j++]!
    else {
      found[count++] = a[i++]!
      j++
    }
  }
  return found.subarray(0, count)
}

/**
 * Kinds in the order a sorted column shows them: values, then text, then nothing (an empty cell
 * or none at all, which the table shows alike).
 */
const kindRank = (column: string) =>
  `CASE ${column}.kind WHEN 'number' THEN 0 WHEN 'date' THEN 0 WHEN 'boolean' THEN 0 WHEN 'text' THEN 1 ELSE 2 END`
/** At one number: `<` below `<=`, the plain value, `>=`, then `>` (see readout-value.ts). */
const modifierRank = (column: string) =>
  `CASE ${column}.modifier WHEN '<' THEN 0 WHEN '<=' THEN 1 WHEN '>=' THEN 3 WHEN '>' THEN 4 ELSE 2 END`

function orderBy(sort: ResultsTableOptions['sort'], name: string, columnCount: number): string {
  const direction = sort?.direction === 'desc' ? 'DESC' : 'ASC'
  if (sort === undefined || sort.column === 'name')
    return `${name} IS NULL, ${name} COLLATE NOCASE ${direction}`
  const column = sort.column
  if (!Number.isInteger(column) || column < 0 || column >= columnCount) {
    throw new AppError('invalid_argument', `No column ${column} to sort this results table by.`)
  }
  const c = `c${column}`
  return `${kindRank(c)}, ${c}.number ${direction}, ${modifierRank(c)} ${direction}, ${c}.text COLLATE NOCASE ${direction}`
}

export type { ProtocolEntry, ResultsCell, ResultsColumn, ResultsLevel, ResultsPage, ResultsRow }
