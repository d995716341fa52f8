import type Database from 'better-sqlite3'
import {
  protocolEntryOf,
  type Catalogue,
  type ProtocolEntry,
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
  limit?: number
  offset?: number
}

/** At most this many columns: each is a join, and a person reads a dozen at most. */
const maxColumns = 32

/**
 * Questions about assay results, answered from the readout value index: the catalogue of
 * protocols and readouts, the molecules or batches that meet results criteria, and results
 * tables (a row per molecule or batch, a column per readout with its aggregate).
 */
export class ReadoutQueries {
  readonly #db: Database.Database

  constructor(db: Database.Database) {
    this.#db = db
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
   */
  matching(
    vaultId: number,
    criteria: readonly ResultsCriterion[],
    level: ResultsLevel,
    today = utcDay(Date.now()),
  ): number[] {
    if (criteria.length === 0) return []
    let result = new Set<number>()
    for (const [index, criterion] of criteria.entries()) {
      const found = this.#batchesMeeting(vaultId, criterion, today)
      const met = criterion.negated ? this.#allBatchesBut(vaultId, found) : found
      if (index === 0) result = met
      else if (criterion.junction === 'OR') result = new Set([...result, ...met])
      else result = new Set([...result].filter((id) => met.has(id)))
    }
    const batches = [...result]
    if (level === 'batch') return batches.sort((a, b) => a - b)
    return this.#db
      .prepare(
        `SELECT DISTINCT molecule_id FROM batches
           WHERE vault_id = ? AND id IN (SELECT value FROM json_each(?)) AND molecule_id IS NOT NULL
           ORDER BY molecule_id`,
      )
      .pluck()
      .all(vaultId, JSON.stringify(batches)) as number[]
  }

  #batchesMeeting(vaultId: number, criterion: ResultsCriterion, today: string): Set<number> {
    const where = ['vault_id = ?', 'batch_id IS NOT NULL']
    const params: SqlParameter[] = [vaultId]
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
    const test = criterion.readout
    if (test === null) {
      return new Set(
        this.#db
          .prepare(`SELECT DISTINCT batch_id FROM readout_rows WHERE ${where.join(' AND ')}`)
          .pluck()
          .all(...params) as number[],
      )
    }
    if (test.scope === 'aggregate')
      return this.#batchesWhoseAggregateMeets(vaultId, criterion, today)
    // A qualified value compared by its bound, as the vault's criteria compare it (asBound).
    const predicate = comparisonSql(test.comparison, {
      kind: 'kind',
      number: 'number',
      modifier: 'NULL',
      text: 'text',
    })
    return new Set(
      this.#db
        .prepare(
          `SELECT DISTINCT batch_id FROM readout_values
             WHERE ${where.join(' AND ')} AND definition_id = ? AND ${predicate.sql}`,
        )
        .pluck()
        .all(...params, test.definitionId, ...predicate.params) as number[],
    )
  }

  /** Aggregate scope: each tested batch's aggregate over the rows the criterion keeps. */
  #batchesWhoseAggregateMeets(
    vaultId: number,
    criterion: ResultsCriterion,
    today: string,
  ): Set<number> {
    const rows = this.#db
      .prepare(
        `SELECT json FROM readout_rows WHERE vault_id = ? AND batch_id IS NOT NULL
           ${criterion.protocolId === null ? '' : 'AND protocol_id = ?'}`,
      )
      .pluck()
      .all(
        ...(criterion.protocolId === null ? [vaultId] : [vaultId, criterion.protocolId]),
      ) as string[]
    const byBatch = new Map<number, ResultRow[]>()
    for (const json of rows) {
      const row = readResultRow(JSON.parse(json))
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

  #allBatchesBut(vaultId: number, excluded: ReadonlySet<number>): Set<number> {
    const all = this.#db
      .prepare('SELECT id FROM batches WHERE vault_id = ?')
      .pluck()
      .all(vaultId) as number[]
    return new Set(all.filter((id) => !excluded.has(id)))
  }

  /**
   * A page of a results table: the molecules (or batches) with an aggregate in one of the columns'
   * protocols, each with its aggregates, sorted by name or a column (numbers by value, a qualified
   * value beside its bound, text after numbers and empty cells last in both directions).
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
    const scope =
      options.moleculeIds === undefined
        ? ''
        : this.#moleculeScope(level, options.moleculeIds, params)
    const joins = columns.map((column, index) => {
      params[`p${index}`] = column.protocolId
      params[`d${index}`] = column.definitionId
      return `LEFT JOIN readout_aggregates c${index} ON c${index}.vault_id = @vaultId
        AND c${index}.level = @level AND c${index}.protocol_id = @p${index}
        AND c${index}.definition_id = @d${index} AND c${index}.subject_id = s.subject_id`
    })
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
      const predicate = comparisonSql(comparison, {
        kind: `c${column}.kind`,
        number: `c${column}.number`,
        modifier: `c${column}.modifier`,
        text: `c${column}.text`,
      })
      predicate.params.forEach((value, position) => (params[`f${index}_${position}`] = value))
      let position = 0
      return predicate.sql.replace(/\?/g, () => `@f${index}_${position++}`)
    })
    const from = `FROM (SELECT DISTINCT subject_id FROM readout_aggregates
        WHERE vault_id = @vaultId AND level = @level
          AND protocol_id IN (SELECT value FROM json_each(@protocols))) s
      ${subject}
      ${joins.join('\n')}
      WHERE 1 ${scope} ${filters.map((filter) => `AND ${filter}`).join(' ')}`
    const total = this.#db.prepare(`SELECT count(*) ${from}`).pluck().get(params) as number
    const order = orderBy(options.sort, name, columns.length)
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
           ${from} ORDER BY ${order}, s.subject_id LIMIT @limit OFFSET @offset`,
      )
      .all({
        ...params,
        limit: Math.min(Math.max(Math.trunc(options.limit ?? 100), 0), 1000),
        offset: Math.max(Math.trunc(options.offset ?? 0), 0),
      }) as Record<string, SqlValue>[]
    return {
      total,
      rows: rows.map((row) => ({
        subjectId: row.subject_id as number,
        moleculeId: row.molecule_id as number | null,
        name: row.name as string | null,
        cells: columns.map((_, index) =>
          row[`k${index}`] === null
            ? null
            : {
                kind: row[`k${index}`] as ResultsCell['kind'],
                number: row[`n${index}`] as number | null,
                modifier: row[`m${index}`] as string | null,
                text: row[`t${index}`] as string | null,
                n: row[`c${index}`] as number,
                source: row[`s${index}`] as ResultsCell['source'],
              },
        ),
      })),
    }
  }

  /**
   * Numeric columns over every molecule in scope, for plots: computed properties (the structure
   * index's, the vault's own where it gave them) and readout aggregates; a value is null where the
   * molecule has none (a qualified aggregate gives its bound: its modifier is in `modifiers`).
   */
  points(vaultId: number, question: PointsQuestion): PointsAnswer {
    const params: Record<string, SqlValue> = { vaultId }
    const selected: string[] = []
    const joins: string[] = []
    let structure = false
    question.columns.forEach((column, index) => {
      if ('property' in column) {
        const field = propertyColumns[column.property]
        if (field === undefined) {
          throw new AppError(
            'invalid_argument',
            `No molecular property ${String(column.property)}.`,
          )
        }
        structure = true
        selected.push(`si.${field}`, 'NULL')
        return
      }
      params[`p${index}`] = column.protocolId
      params[`d${index}`] = column.definitionId
      joins.push(`LEFT JOIN readout_aggregates c${index} ON c${index}.vault_id = @vaultId
        AND c${index}.level = 'molecule' AND c${index}.protocol_id = @p${index}
        AND c${index}.definition_id = @d${index} AND c${index}.subject_id = m.id
        AND c${index}.kind = 'number'`)
      selected.push(`c${index}.number`, `c${index}.modifier`)
    })
    if (structure) {
      joins.unshift(
        'LEFT JOIN structure_index si ON si.vault_id = @vaultId AND si.molecule_id = m.id',
      )
    }
    let scope = ''
    if (question.moleculeIds !== undefined) {
      params.molecules = JSON.stringify(question.moleculeIds)
      scope = 'AND m.id IN (SELECT value FROM json_each(@molecules))'
    }
    const rows = this.#db
      .prepare(
        `SELECT m.id${selected.map((column) => `, ${column}`).join('')} FROM molecules m
           ${joins.join('\n')} WHERE m.vault_id = @vaultId ${scope} ORDER BY m.id`,
      )
      .raw()
      .all(params) as (number | string | null)[][]
    const ids = rows.map((row) => row[0] as number)
    const values = question.columns.map((_, index) =>
      rows.map((row) => {
        const value = row[1 + index * 2]
        return typeof value === 'number' && Number.isFinite(value) ? value : null
      }),
    )
    const modifiers = question.columns.map((_, index) =>
      rows.map((row) => (row[2 + index * 2] as string | null) ?? null),
    )
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

/** Kinds in the order a sorted column shows them: values, then text, then nothing. */
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
  return `coalesce(${kindRank(c)}, 3), ${c}.number ${direction}, ${modifierRank(c)} ${direction}, ${c}.text COLLATE NOCASE ${direction}`
}

export type { ProtocolEntry, ResultsCell, ResultsColumn, ResultsLevel, ResultsPage, ResultsRow }
