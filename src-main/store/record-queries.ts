import type Database from 'better-sqlite3'
import { AppError } from '../shared/app-error.ts'
import {
  recordKind,
  recordKinds,
  recordKindNames,
  type RecordKind,
  type RecordKindName,
} from './record-kinds.ts'
import { toNumber, type JsonObject, type SqlValue } from './record-values.ts'
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

/** Vault-defined field maps of each kind, searched by `fields` filters. */
const fieldMaps: Partial<Record<RecordKindName, readonly string[]>> = {
  molecules: ['molecule_fields', 'udfs'],
  batches: ['batch_fields'],
  protocols: ['protocol_fields'],
  eln_entries: ['eln_fields'],
  inventory_samples: ['fields'],
}

/** Lists, lookups and counts of cached records, for the UI and the CLI. */
export class RecordQueries {
  readonly #db: Database.Database
  readonly #planner: SearchQueryPlanner

  constructor(db: Database.Database, planner: SearchQueryPlanner) {
    this.#db = db
    this.#planner = planner
  }

  list(kindName: string, vaultId: number, options: ListOptions = {}): RecordPage {
    const kind = recordKind(kindName)
    const sort = options.sort ?? 'name'
    if (!kind.sortable.includes(sort)) {
      throw new AppError(
        'invalid_argument',
        `${kind.name} cannot be sorted by "${sort}". Sortable: ${kind.sortable.join(', ')}.`,
      )
    }
    const found = this.#condition(kind, vaultId, options)
    if (found === null) return { kind: kind.name, total: 0, records: [] }
    const { condition, params } = found
    const direction = options.direction === 'desc' ? 'DESC' : 'ASC'
    const total = this.#db
      .prepare(`SELECT count(*) FROM ${kind.table} WHERE ${condition}`)
      .pluck()
      .get(params) as number
    const rows = this.#db
      .prepare(
        `SELECT ${jsonOf(kind)} FROM ${kind.table} WHERE ${condition}
           ORDER BY ${sort} ${direction}, row_id ${direction} LIMIT @limit OFFSET @offset`,
      )
      .pluck()
      .all({
        ...params,
        limit: Math.min(Math.max(Math.trunc(options.limit ?? 50), 0), 1000),
        offset: Math.max(Math.trunc(options.offset ?? 0), 0),
      }) as string[]
    return { kind: kind.name, total, records: rows.map(parseRecord) }
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
      const maps = [...(fieldMaps[kind.name] ?? []).map((map) => `$.${map}`), '$']
      const param = `field_${index}`
      params[`${param}_text`] = value
      params[`${param}_number`] = toNumber(value)
      const tests = maps.map((map, mapIndex) => {
        params[`${param}_path_${mapIndex}`] = `${map}.${jsonKey(name)}`
        return `json_extract(${jsonOf(kind)}, @${param}_path_${mapIndex}) IN (@${param}_text, @${param}_number)`
      })
      where.push(`(${tests.join(' OR ')})`)
    })
    if (options.projectId !== undefined) {
      params.kindCode = kind.code
      params.projectId = options.projectId
      where.push(
        `row_id IN (SELECT row_id FROM record_projects WHERE project_id = @projectId AND kind_code = @kindCode)`,
      )
    }
    if (options.text !== undefined && options.text.trim() !== '') {
      const searched = kind.name === 'batches' ? molecules : kind
      if (!searched.searchOf) {
        throw new AppError('invalid_argument', `${kind.name} have no text to search.`)
      }
      const plan = this.#planner.plan(options.text, { vaultId, complete: true })
      if (plan.match === null) return null
      params.match = plan.match
      params.searchedCode = searched.code
      const hits =
        'SELECT rowid / 64 FROM search_index WHERE search_index MATCH @match AND rowid % 64 = @searchedCode'
      where.push(
        searched === kind
          ? `row_id IN (${hits})`
          : `molecule_id IN (SELECT id FROM molecules WHERE row_id IN (${hits}))`,
      )
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

  /** One column of a record's row (a link the record's JSON may not carry). */
  column(kind: RecordKind, vaultId: number, id: number, column: string): SqlValue {
    const value = this.#db
      .prepare(`SELECT ${column} FROM ${kind.table} WHERE vault_id = ? AND id = ?`)
      .pluck()
      .get(vaultId, id) as SqlValue | undefined
    return value ?? null
  }

  /** Records of a kind whose column holds one of the values (links between records). */
  where(
    kind: RecordKind,
    vaultId: number,
    column: string,
    values: readonly SqlValue[],
    limit = 10_000,
  ): JsonObject[] {
    if (values.length === 0) return []
    return (
      this.#db
        .prepare(
          `SELECT ${jsonOf(kind)} FROM ${kind.table}
             WHERE vault_id = ? AND ${column} IN (SELECT value FROM json_each(?))
             ORDER BY row_id LIMIT ?`,
        )
        .pluck()
        .all(vaultId, JSON.stringify(values), limit) as string[]
    ).map(parseRecord)
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

const molecules = recordKind('molecules')

/** The JSON of a record; a batch nested in its molecule is read from the molecule's JSON. */
function jsonOf(kind: RecordKind): string {
  if (kind.name !== 'batches') return 'json'
  return `coalesce(json, (SELECT json_extract(m.json, '$.batches[' || batches.position || ']')
    FROM molecules m WHERE m.vault_id = batches.vault_id AND m.id = batches.molecule_id))`
}

export function parseRecord(json: string): JsonObject {
  return JSON.parse(json) as JsonObject
}

/** A member name as a JSON path step, quoted so that any name is taken literally. */
function jsonKey(name: string): string {
  return `"${name.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
}
