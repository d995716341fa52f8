import type Database from 'better-sqlite3'
import { AppError } from '../shared/app-error.ts'
import {
  recordKind,
  recordKinds,
  recordKindNames,
  columnValues,
  type RecordKind,
  type RecordKindName,
} from './record-kinds.ts'
import type { ColumnValue, RecordRow } from '../../src-common/records/record-row.ts'
import { toNumber, type JsonObject, type SqlValue } from '../../src-common/values.ts'
import { PendingStage, type PendingInput, type StagedTables } from './pending-rows.ts'
import type { SearchQueryPlanner } from './search-query.ts'

export interface ListOptions {
  /** Equality on indexed columns (see each kind's `filterable`), e.g. {protocol_id: 12}. */
  filters?: Readonly<Record<string, SqlValue>>
  /**
   * Equality on a vault-defined field (molecule_fields, batch_fields, protocol_fields,
   * eln_fields, sample fields) or a top-level member of the JSON, by name. Not indexed: a scan.
   */
  fields?: Readonly<Record<string, string>>
  projectId?: number
  /**
   * Search-as-you-type text; every word is a prefix, and every match counts. Batches match
   * through their molecule's search document (which holds their identifiers and field values).
   */
  text?: string
  /** Only records with these ids (a structure search's hits). */
  ids?: readonly number[]
  sort?: string
  direction?: 'asc' | 'desc'
  /** 50 by default, at most 1000. */
  limit?: number
  offset?: number
}

export interface RecordPage {
  kind: RecordKindName
  /** How many records match (all pages). */
  total: number
  /** The cached records exactly as the API gave them. */
  records: JsonObject[]
}

/** A page of cached records as typed rows (their column values and JSON). */
export interface RowPage {
  kind: RecordKindName
  /** How many records match (all pages). */
  total: number
  rows: RecordRow<RecordKindName>[]
}

/** A value of a column among the records of a list, how many hold it, and what it links to. */
export interface DistinctValue {
  value: ColumnValue
  count: number
  /** For a link column, the name of the record it links to (when cached). */
  label?: string | null
}

/** A row as SQLite gives it: `id`, the frame and declared columns, and the JSON text. */
type StoredRow = Record<string, ColumnValue> & { id: number; json: string }

/** Lists, lookups and counts of cached records, for the UI and the CLI. */
export class RecordQueries {
  readonly #db: Database.Database
  readonly #planner: SearchQueryPlanner
  readonly #pending: PendingStage

  constructor(db: Database.Database, planner: SearchQueryPlanner) {
    this.#db = db
    this.#planner = planner
    this.#pending = new PendingStage(db)
  }

  list(kindName: string, vaultId: number, options: ListOptions = {}): RecordPage {
    const page = this.page(kindName, vaultId, options)
    return { kind: page.kind, total: page.total, records: page.rows.map((row) => row.json) }
  }

  /**
   * A page of a list as typed rows, sorted by one of the kind's sortable columns. Records waiting
   * in the outbox (`pending`) answer the same question in their pending form: a changed record
   * replaces its cached copy wherever it then sorts, and records created offline that match come
   * first, in the list's order among themselves.
   */
  page(
    kindName: string,
    vaultId: number,
    options: ListOptions = {},
    pending: readonly PendingInput[] = [],
  ): RowPage {
    const kind = recordKind(kindName)
    const sort = options.sort ?? 'name'
    if (!kind.sortable.includes(sort)) {
      throw new AppError(
        'invalid_argument',
        `${kind.name} cannot be sorted by "${sort}". Sortable: ${kind.sortable.join(', ')}.`,
      )
    }
    const direction = options.direction === 'desc' ? 'DESC' : 'ASC'
    const limit = Math.min(Math.max(Math.trunc(options.limit ?? 50), 0), 1000)
    const offset = Math.max(Math.trunc(options.offset ?? 0), 0)
    const cached = this.#condition(kind, vaultId, options)
    if (pending.length === 0) {
      if (cached === null) return { kind: kind.name, total: 0, rows: [] }
      const total = this.#db
        .prepare(`SELECT count(*) FROM ${kind.table} WHERE ${cached.condition}`)
        .pluck()
        .get(cached.params) as number
      const stored = this.#db
        .prepare(
          `SELECT ${rowColumns(kind)} FROM ${kind.table} WHERE ${cached.condition}
             ORDER BY ${sort} ${direction}, row_id ${direction} LIMIT @limit OFFSET @offset`,
        )
        .all({ ...cached.params, limit, offset }) as StoredRow[]
      return { kind: kind.name, total, rows: stored.map((row) => typedRow(kind, row)) }
    }

    const staged = this.#pending.stage(kind, vaultId, pending)
    const waiting = this.#condition(kind, vaultId, options, staged)
    const parts: string[] = []
    if (cached !== null) {
      parts.push(`SELECT 0 AS created, 0 AS staged, row_id, ${rowColumns(kind)} FROM ${kind.table}
        WHERE ${cached.condition}
          AND id NOT IN (SELECT id FROM ${staged.rows} WHERE id IS NOT NULL)`)
    }
    if (waiting !== null) {
      parts.push(`SELECT id IS NULL AS created, 1 AS staged, row_id, ${rowColumns(kind, 'json')}
        FROM ${staged.rows} WHERE ${waiting.condition}`)
    }
    if (parts.length === 0) return { kind: kind.name, total: 0, rows: [] }
    const union = parts.join(' UNION ALL ')
    const params = { ...cached?.params, ...waiting?.params }
    const total = this.#db.prepare(`SELECT count(*) FROM (${union})`).pluck().get(params) as number
    const stored = this.#db
      .prepare(
        `SELECT * FROM (${union})
           ORDER BY created DESC, ${sort} ${direction}, staged, row_id ${direction}
           LIMIT @limit OFFSET @offset`,
      )
      .all({ ...params, limit, offset }) as (StoredRow & { staged: number; row_id: number })[]
    return {
      kind: kind.name,
      total,
      rows: stored.map(({ created: _created, staged: fromOutbox, row_id, ...row }) => {
        if (!fromOutbox) return typedRow(kind, row as StoredRow)
        const input = pending[row_id - 1]!
        const typed = typedRow(kind, row as StoredRow)
        return { ...typed, json: input.json, pending: input.mark }
      }),
    }
  }

  /**
   * The distinct values of a filterable column among the records a list with these options would
   * show, most frequent first (at most `limit`), each with its count; a link column's values are
   * named by the records they link to. Filter menus offer them.
   */
  distinct(
    kindName: string,
    vaultId: number,
    column: string,
    options: ListOptions = {},
    limit = 500,
  ): DistinctValue[] {
    const kind = recordKind(kindName)
    if (!kind.filterable.includes(column)) {
      throw new AppError(
        'invalid_argument',
        `${kind.name} cannot be filtered on "${column}". Filterable: ${kind.filterable.join(', ')}.`,
      )
    }
    const found = this.#condition(kind, vaultId, options)
    if (found === null) return []
    const values = this.#db
      .prepare(
        `SELECT ${column} AS value, count(*) AS count FROM ${kind.table} WHERE ${found.condition}
           GROUP BY ${column} ORDER BY count DESC, ${column} LIMIT @limit`,
      )
      .all({ ...found.params, limit: Math.min(Math.max(Math.trunc(limit), 1), 5000) }) as {
      value: ColumnValue
      count: number
    }[]
    const target = kind.declaration.columns?.find((declared) => declared.name === column)?.linksTo
    if (target === undefined) return values
    const linked = recordKind(target)
    const names = new Map(
      (
        this.#db
          .prepare(
            `SELECT id, name FROM ${linked.table}
               WHERE vault_id = ? AND id IN (SELECT value FROM json_each(?))`,
          )
          .all(vaultId, JSON.stringify(values.map((entry) => entry.value))) as {
          id: number
          name: string | null
        }[]
      ).map((row) => [row.id, row.name]),
    )
    return values.map((entry) => ({
      ...entry,
      label: typeof entry.value === 'number' ? (names.get(entry.value) ?? null) : null,
    }))
  }

  /** The ids of every record a list with these options would show (sort and paging aside). */
  ids(kindName: string, vaultId: number, options: ListOptions = {}): number[] {
    const kind = recordKind(kindName)
    const found = this.#condition(kind, vaultId, options)
    if (found === null) return []
    return this.#db
      .prepare(`SELECT id FROM ${kind.table} WHERE ${found.condition}`)
      .pluck()
      .all(found.params) as number[]
  }

  /** The WHERE clause of a list and its parameters, or null when the text matches nothing. */
  #condition(
    kind: RecordKind,
    vaultId: number,
    options: ListOptions,
    staged?: StagedTables,
  ): { condition: string; params: Record<string, SqlValue> } | null {
    const where = ['vault_id = @vaultId']
    const params: Record<string, SqlValue> = { vaultId }

    for (const [column, value] of Object.entries(options.filters ?? {})) {
      if (!kind.filterable.includes(column)) {
        throw new AppError(
          'invalid_argument',
          `${kind.name} cannot be filtered on "${column}". Filterable: ${kind.filterable.join(', ')}.`,
        )
      }
      const param = `filter_${column}`
      where.push(value === null ? `${column} IS NULL` : `${column} = @${param}`)
      if (value !== null) params[param] = value
    }
    Object.entries(options.fields ?? {}).forEach(([name, value], index) => {
      const maps = [...(kind.declaration.fieldMaps ?? []).map((map) => `$.${map}`), '$']
      const param = `field_${index}`
      params[`${param}_text`] = value
      params[`${param}_number`] = toNumber(value)
      const tests = maps.map((map, mapIndex) => {
        params[`${param}_path_${mapIndex}`] = `${map}.${jsonKey(name)}`
        const json = staged ? 'json' : jsonOf(kind)
        return `json_extract(${json}, @${param}_path_${mapIndex}) IN (@${param}_text, @${param}_number)`
      })
      where.push(`(${tests.join(' OR ')})`)
    })
    if (options.projectId !== undefined) {
      params.kindCode = kind.code
      params.projectId = options.projectId
      where.push(
        staged
          ? `row_id IN (SELECT row_id FROM ${staged.projects} WHERE project_id = @projectId)`
          : `row_id IN (SELECT row_id FROM record_projects WHERE project_id = @projectId AND kind_code = @kindCode)`,
      )
    }
    if (options.text !== undefined && options.text.trim() !== '') {
      const through = kind.declaration.searchedThrough
      const searched = through ? recordKind(through.kind) : kind
      if (!searched.searchOf) {
        throw new AppError('invalid_argument', `${kind.name} have no text to search.`)
      }
      if (staged && through === undefined) {
        const match = this.#planner.prefixMatch(options.text)
        if (match === null) return null
        params.pendingMatch = match
        where.push(
          `row_id IN (SELECT rowid FROM ${staged.search} WHERE ${staged.search.replace('temp.', '')} MATCH @pendingMatch)`,
        )
      } else {
        const plan = this.#planner.plan(options.text, { vaultId, complete: true })
        if (plan.match === null) return null
        params.match = plan.match
        params.searchedCode = searched.code
        const hits =
          'SELECT rowid / 64 FROM search_index WHERE search_index MATCH @match AND rowid % 64 = @searchedCode'
        where.push(
          through === undefined
            ? `row_id IN (${hits})`
            : `${through.column} IN (SELECT id FROM ${searched.table} WHERE row_id IN (${hits}))`,
        )
      }
    }

    if (options.ids !== undefined) {
      params.ids = JSON.stringify(options.ids)
      where.push('id IN (SELECT value FROM json_each(@ids))')
    }
    return { condition: where.join(' AND '), params }
  }

  get(kindName: string, vaultId: number, id: number): JsonObject | null {
    const kind = recordKind(kindName)
    const json = this.#db
      .prepare(`SELECT ${jsonOf(kind)} FROM ${kind.table} WHERE vault_id = ? AND id = ?`)
      .pluck()
      .get(vaultId, id) as string | undefined
    return json === undefined ? null : parseRecord(json)
  }

  /** A record waiting in the outbox as a typed row, its columns read as the cache reads them. */
  pendingRow(kindName: string, input: PendingInput): RecordRow<RecordKindName> {
    const kind = recordKind(kindName)
    const columns = columnValues(kind, input.json) as Record<string, ColumnValue>
    return { kind: kind.name, id: input.id, columns, json: input.json, pending: input.mark }
  }

  /** One record as a typed row, or null. */
  row(kindName: string, vaultId: number, id: number): RecordRow<RecordKindName> | null {
    const kind = recordKind(kindName)
    const stored = this.#db
      .prepare(`SELECT ${rowColumns(kind)} FROM ${kind.table} WHERE vault_id = ? AND id = ?`)
      .get(vaultId, id) as StoredRow | undefined
    return stored === undefined ? null : typedRow(kind, stored)
  }

  /** Records of a kind whose column holds one of the values (links between records). */
  where(
    kind: RecordKind,
    vaultId: number,
    column: string,
    values: readonly SqlValue[],
    limit = 10_000,
  ): RecordRow<RecordKindName>[] {
    if (values.length === 0) return []
    const stored = this.#db
      .prepare(
        `SELECT ${rowColumns(kind)} FROM ${kind.table}
           WHERE vault_id = ? AND ${column} IN (SELECT value FROM json_each(?))
           ORDER BY row_id LIMIT ?`,
      )
      .all(vaultId, JSON.stringify(values), limit) as StoredRow[]
    return stored.map((row) => typedRow(kind, row))
  }

  /** Whether any record of the kind is cached for the vault. */
  holds(kindName: string, vaultId: number): boolean {
    const { table } = recordKind(kindName)
    return (
      this.#db
        .prepare(`SELECT EXISTS (SELECT 1 FROM ${table} WHERE vault_id = ?)`)
        .pluck()
        .get(vaultId) === 1
    )
  }

  /** How many records of each kind the cache holds, by vault (vaults themselves under 0). */
  counts(): Record<number, Partial<Record<RecordKindName, number>>> {
    const counts: Record<number, Partial<Record<RecordKindName, number>>> = {}
    for (const name of recordKindNames) {
      const rows = this.#db
        .prepare(
          `SELECT vault_id, count(*) AS count FROM ${recordKinds.get(name)!.table} GROUP BY vault_id`,
        )
        .all() as { vault_id: number; count: number }[]
      for (const row of rows) (counts[row.vault_id] ??= {})[name] = row.count
    }
    return counts
  }
}

/** The JSON of a record; a batch nested in its molecule is read from the molecule's JSON. */
function jsonOf(kind: RecordKind): string {
  if (!kind.declaration.nestedJson) return 'json'
  return `coalesce(json, (SELECT json_extract(m.json, '$.batches[' || batches.position || ']')
    FROM molecules m WHERE m.vault_id = batches.vault_id AND m.id = batches.molecule_id))`
}

/** What a typed row is read from: the server id, the frame's and declared columns, the JSON. */
function rowColumns(kind: RecordKind, json = jsonOf(kind)): string {
  const declared = kind.columns.map((column) => `, ${column.column}`).join('')
  return `id, name, created_at, modified_at${declared}, ${json} AS json`
}

function typedRow(kind: RecordKind, stored: StoredRow): RecordRow<RecordKindName> {
  const { id, json, ...columns } = stored
  return { kind: kind.name, id, columns, json: parseRecord(json) }
}

export function parseRecord(json: string): JsonObject {
  return JSON.parse(json) as JsonObject
}

/** A member name as a JSON path step, quoted so that any name is taken literally. */
function jsonKey(name: string): string {
  return `"${name.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
}
