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
import { kindDeclaration } from '../../src-common/records/record-kinds.ts'
import { toNumber, type JsonObject, type SqlValue } from '../../src-common/values.ts'
import { PendingStage, type PendingInput, type StagedTables } from './pending-rows.ts'
import { cacheBackfills } from './cache-migrations.ts'
import { listMembersOf } from './record-rows.ts'
import { openCacheReader } from './cache-database.ts'
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
  /** How `read` reads each cached row; as `page` does when not given. */
  reading?: RowReading
}

/**
 * How a list read whole (`RecordQueries.read`) reads its cached rows, for a reader that shows the
 * list's columns (an export) and would otherwise parse every record for the few members its list
 * shows besides its columns: parsing was most of reading a list (export.bench.ts). Rows read so
 * are for a reader in this process: their columns and record are named over the array SQLite gave
 * (`ReadRow`), so a copy of one (IPC, JSON) would hold none of them. A record whose stored JSON
 * cannot be parsed throws an error that names it when its `json` is read.
 *
 * The cached rows are read on a read-only connection of the reading's own, with a small page
 * cache (cache-database.ts `openCacheReader`): each row is read once, so the main connection's
 * page cache, kept for the window's searches, would fill with pages read once (32 MB).
 */
export interface RowReading {
  /** Each row also holds its kind's list members (record-rows.ts) among its columns. */
  listMembers?: boolean
  /**
   * Each row's JSON is read from the cache only when its record is first used (one lookup per
   * row then): reading the JSON text of rows that do not need it was a fifth of reading them.
   */
  deferJson?: boolean
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

/**
 * Where a list read by key stopped: the last row read, by its place in the list's order
 * (`RecordQueries.pageAfter`).
 */
export interface ListKey {
  /** The row is a record created offline: those come first. */
  readonly created: boolean
  /** The row is a record waiting in the outbox: it follows the cached rows of equal value. */
  readonly staged: boolean
  /** Its value of the list's sort column. */
  readonly value: ColumnValue
  /** Its row id in the cache, or when staged its place among the pending records (from 1). */
  readonly rowId: number
}

/** A page of a list read by key. */
export interface KeyedPage {
  kind: RecordKindName
  rows: RecordRow<RecordKindName>[]
  /** Where the next page starts; null once the list has no more rows. */
  next: ListKey | null
}

/** A whole list read in its order a page at a time, however long it is (exports, `find`). */
export interface ListReader {
  readonly kind: RecordKindName
  /** How many records the list held when the reading began. */
  readonly total: number
  /** The next rows in the list's order, at most `limit`; none once every row has been read. */
  next(limit: number): RecordRow<RecordKindName>[]
  /**
   * Ends the reading before its last row (a reading to the end ends itself): an export's reading
   * has a connection of its own (`RowReading`).
   */
  close(): void
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

/** A row's place in a list, as the keys of a list read by key come from SQLite. */
interface KeyRow {
  created: 0 | 1
  staged: 0 | 1
  row_id: number
  sort_value: ColumnValue
}

/** How a list is ordered: by one of the kind's sortable columns, then by row id. */
interface ListOrder {
  sort: string
  descending: boolean
  /** The sort column's collation in the cache, which the staged tables do not carry. */
  collation: string
}

/** Where a reading of a list whole prepares its statements, and how it lets go of them. */
interface RowSource {
  statement(sql: string): Database.Statement
  close(): void
}

/**
 * Where a row is, for reading rows by their places: a cached row by its row id, a staged one
 * (waiting in the outbox) by the negated row id of its staged copy.
 */
type Place = number

/** Lists, lookups and counts of cached records, for the UI and the CLI. */
export class RecordQueries {
  readonly #db: Database.Database
  readonly #planner: SearchQueryPlanner
  readonly #pending: PendingStage
  /** What each kind's staged tables hold now, by table: a staging replaced meanwhile is redone. */
  readonly #staged = new Map<
    string,
    { vaultId: number; pending: readonly PendingInput[]; tables: StagedTables }
  >()
  /**
   * The statements a list read whole runs for every page, by their SQL: compiling them again for
   * each page of a 250k-row export was a twentieth of its time (export.bench.ts).
   */
  readonly #readStatements = new Map<string, Database.Statement>()
  /** The main connection's statements, as a reading of a list whole takes them. */
  readonly #source: RowSource = {
    statement: (sql) => this.#readStatement(sql),
    close: () => {},
  }

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
    const { sort, descending } = listOrder(kind, options)
    const direction = descending ? 'DESC' : 'ASC'
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

    const staged = this.#stage(kind, vaultId, pending, { again: true })
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
   * How many records a list with these options holds (paging aside), with the records waiting in
   * the outbox in their pending form, as `page` counts them.
   */
  count(
    kindName: string,
    vaultId: number,
    options: ListOptions = {},
    pending: readonly PendingInput[] = [],
  ): number {
    const kind = recordKind(kindName)
    const cached = this.#condition(kind, vaultId, options)
    if (pending.length === 0) {
      if (cached === null) return 0
      return this.#db
        .prepare(`SELECT count(*) FROM ${kind.table} WHERE ${cached.condition}`)
        .pluck()
        .get(cached.params) as number
    }
    const staged = this.#stage(kind, vaultId, pending)
    const waiting = this.#condition(kind, vaultId, options, staged)
    let count = 0
    if (cached !== null) {
      count += this.#db
        .prepare(
          `SELECT count(*) FROM ${kind.table} WHERE ${cached.condition}
             AND id NOT IN (SELECT id FROM ${staged.rows} WHERE id IS NOT NULL)`,
        )
        .pluck()
        .get(cached.params) as number
    }
    if (waiting !== null) {
      count += this.#db
        .prepare(`SELECT count(*) FROM ${staged.rows} WHERE ${waiting.condition}`)
        .pluck()
        .get(waiting.params) as number
    }
    return count
  }

  /**
   * The page of a list that follows the row `after` (the list's first page when null), in the
   * order `page` gives, without counting the list: each page starts where the last one ended
   * (its sort value and row id) rather than walking an offset, so that reading a long list costs
   * each page alike. An index on the sort column makes each page a short walk of it; without one,
   * SQLite sorts the list again for every page (`read` then takes the whole order once). Records
   * waiting in the outbox come in their pending form exactly once: the cached copy of a changed
   * record is left out, as `page` leaves it out. `pending` is read as given: pass a new array when
   * the outbox changed, and the same one to read on from the same snapshot.
   */
  pageAfter(
    kindName: string,
    vaultId: number,
    options: ListOptions = {},
    after: ListKey | null = null,
    pending: readonly PendingInput[] = [],
  ): KeyedPage {
    const kind = recordKind(kindName)
    if (options.offset !== undefined && options.offset !== 0) {
      throw new AppError(
        'invalid_argument',
        'A page read by key starts after a row of the list, not at an offset.',
      )
    }
    const order = listOrder(kind, options)
    const limit = Math.min(Math.max(Math.trunc(options.limit ?? 50), 1), 1000)
    if (pending.length === 0) {
      const read = this.#cachedRowsAfter(kind, vaultId, options, order, after, limit)
      return {
        kind: kind.name,
        rows: read.rows,
        next: read.rows.length === limit ? read.last : null,
      }
    }
    const staged = this.#stage(kind, vaultId, pending)
    const keys = this.#keysAfter(kind, vaultId, options, order, staged, after, limit)
    const last = keys.at(-1)
    return {
      kind: kind.name,
      rows: this.#rowsAt(kind, keys.map(placeOf), staged, pending),
      next: keys.length === limit && last !== undefined ? keyOf(last) : null,
    }
  }

  /**
   * Reads a whole list in its order, from `options.offset`, a page at a time (`limit` aside):
   * what exports and `find` read. The records waiting in the outbox are taken once, when the
   * reading begins, and come exactly once, in their pending form.
   *
   * A list whose order an index gives (its sort column indexed, and nothing that SQLite answers
   * as a whole set for every statement: text, a project, ids, a filter on another column) is
   * read by key (`pageAfter`), its memory the same however long. Any other list is ordered once,
   * its places (a number per row) kept, and its rows read by place a page at a time: paging it by
   * key would sort it, or search its text, again for every page (bench/README.md).
   */
  read(
    kindName: string,
    vaultId: number,
    options: ListOptions = {},
    pending: readonly PendingInput[] = [],
  ): ListReader {
    const kind = recordKind(kindName)
    if (options.reading?.listMembers === true && this.#membersBackfilling(kind)) {
      // Rows of an earlier cache hold NULL list members until filled: read their records.
      options = { ...options, reading: {} }
    }
    const order = listOrder(kind, options)
    const { offset, limit: _limit, ...question } = options
    const start = Math.max(Math.trunc(offset ?? 0), 0)
    const source = options.reading === undefined ? this.#source : this.#readerSource()
    if (readsByKey(kind, order.sort, question)) {
      const total = this.count(kindName, vaultId, question, pending)
      let after: ListKey | null = null
      let skip = start
      let done = start >= total
      const close = (): void => {
        done = true
        source.close()
      }
      return {
        kind: kind.name,
        total,
        next: (limit) => {
          if (done) return []
          const size = Math.max(Math.trunc(limit), 1)
          try {
            if (pending.length === 0) {
              const read = this.#cachedRowsAfter(
                kind,
                vaultId,
                question,
                order,
                after,
                size,
                skip,
                source,
              )
              skip = 0
              after = read.last ?? after
              if (read.rows.length < size) close()
              return read.rows
            }
            const staged = this.#stage(kind, vaultId, pending)
            const keys = this.#keysAfter(kind, vaultId, question, order, staged, after, size, skip)
            skip = 0
            const last = keys.at(-1)
            if (last !== undefined) after = keyOf(last)
            const rows = this.#rowsAt(
              kind,
              keys.map(placeOf),
              staged,
              pending,
              options.reading,
              source,
            )
            if (keys.length < size) close()
            return rows
          } catch (error) {
            close()
            throw error
          }
        },
        close,
      }
    }
    const staged = pending.length > 0 ? this.#stage(kind, vaultId, pending) : null
    const places = this.#placesInOrder(kind, vaultId, question, order, staged)
    let position = start
    const close = (): void => {
      position = places.length
      source.close()
    }
    return {
      kind: kind.name,
      total: places.length,
      next: (limit) => {
        if (position >= places.length) return []
        const chunk = places.slice(position, position + Math.max(Math.trunc(limit), 1))
        position += chunk.length
        try {
          const stagedNow = chunk.some((place) => place < 0)
            ? this.#stage(kind, vaultId, pending)
            : null
          return this.#rowsAt(kind, chunk, stagedNow, pending, options.reading, source)
        } finally {
          if (position >= places.length) close()
        }
      },
      close,
    }
  }

  /**
   * The statements of a reading of a list whole on a connection of its own (`RowReading`), opened
   * by its first statement; on the main connection where the cache has no file to open again (an
   * in-memory database).
   */
  #readerSource(): RowSource {
    if (this.#db.memory) return this.#source
    let db: Database.Database | null = null
    let closed = false
    const statements = new Map<string, Database.Statement>()
    return {
      statement: (sql) => {
        if (closed) throw new AppError('internal', 'The reading of this list has ended.')
        db ??= openCacheReader(this.#db.name)
        let statement = statements.get(sql)
        if (statement === undefined) statements.set(sql, (statement = db.prepare(sql)))
        return statement
      },
      close: () => {
        closed = true
        db?.close()
        db = null
      },
    }
  }

  /**
   * Stages the pending records of a list, unless the kind's staged tables hold these very ones
   * (the same array) already; `again` stages them whatever they hold.
   */
  #stage(
    kind: RecordKind,
    vaultId: number,
    pending: readonly PendingInput[],
    { again = false } = {},
  ): StagedTables {
    const current = this.#staged.get(kind.table)
    if (!again && current?.vaultId === vaultId && current.pending === pending) return current.tables
    const tables = this.#pending.stage(kind, vaultId, pending)
    this.#staged.set(kind.table, { vaultId, pending, tables })
    return tables
  }

  /**
   * The rows that follow `after` (from the first when null) when no record waits in the outbox,
   * at most `limit`, after skipping `skip`: each segment of `segmentsAfter` walks an index range
   * in the list's order and reads the rows themselves, so that a page is one walk, neither sorted
   * again nor looked up a second time.
   */
  #cachedRowsAfter(
    kind: RecordKind,
    vaultId: number,
    options: ListOptions,
    { sort, descending }: ListOrder,
    after: ListKey | null,
    limit: number,
    skip = 0,
    source: RowSource = this.#source,
  ): { rows: RecordRow<RecordKindName>[]; last: ListKey | null } {
    const rows: RecordRow<RecordKindName>[] = []
    let last: ListKey | null = null
    const cached = this.#condition(kind, vaultId, options)
    if (cached === null) return { rows, last }
    const direction = descending ? 'DESC' : 'ASC'
    const params: Record<string, SqlValue> = { ...cached.params, skip }
    if (after !== null) {
      params.afterRow = after.rowId
      if (after.value !== null) params.afterValue = after.value
    }
    const segments = after === null ? ['1'] : segmentsAfter(sort, descending, after.value, 'rest')
    for (const segment of segments) {
      if (rows.length >= limit) break
      const statement = source.statement(
        `SELECT row_id, ${sort} AS sort_value, ${readColumns(kind, options.reading)}
           FROM ${kind.table} WHERE ${cached.condition} AND ${segment}
           ORDER BY ${sort} ${direction}, row_id ${direction} LIMIT @limit OFFSET @skip`,
      )
      const found = statement.raw().iterate({ ...params, limit: limit - rows.length })
      if (options.reading !== undefined) {
        const shape = readShape(statement, 2)
        const text = jsonText(kind, options.reading, this.#source)
        let values: ColumnValue[] | undefined
        for (values of found as Iterable<ColumnValue[]>) {
          rows.push(new ReadRow(kind.name, values, shape, text))
        }
        if (values !== undefined) {
          last = { created: false, staged: false, value: values[1]!, rowId: values[0] as number }
        }
        params.skip = 0
        continue
      }
      const names = statement.columns().map((column) => column.name)
      const jsonAt = names.length - 1
      for (const values of found as Iterable<ColumnValue[]>) {
        const columns: Record<string, ColumnValue> = {}
        for (let index = 3; index < jsonAt; index++) columns[names[index]!] = values[index]!
        const rowId = values[0] as number
        rows.push(lazyRow(kind.name, values[2] as number, columns, values[jsonAt] as string))
        last = { created: false, staged: false, value: values[1]!, rowId }
      }
      params.skip = 0
    }
    return { rows, last }
  }

  /**
   * The places of the rows that follow `after` (from the first when null), at most `limit`, after
   * skipping `skip`. The cached rows are asked in segments that each walk an index range in
   * order (the rest of the equal values, then the values beyond, then for a descending list its
   * NULLs, which SQLite sorts first); the few staged rows are merged with them by SQLite, under
   * the sort column's own collation.
   */
  #keysAfter(
    kind: RecordKind,
    vaultId: number,
    options: ListOptions,
    { sort, descending, collation }: ListOrder,
    staged: StagedTables | null,
    after: ListKey | null,
    limit: number,
    skip = 0,
  ): KeyRow[] {
    const cached = this.#condition(kind, vaultId, options)
    const waiting = staged ? this.#condition(kind, vaultId, options, staged) : null
    const direction = descending ? 'DESC' : 'ASC'
    const params: Record<string, SqlValue> = {
      ...cached?.params,
      ...waiting?.params,
      limit,
      skip,
    }
    if (after !== null) {
      params.afterRow = after.rowId
      if (after.value !== null) params.afterValue = after.value
    }
    const arms: string[] = []
    if (cached !== null) {
      const others = staged
        ? ` AND id NOT IN (SELECT id FROM ${staged.rows} WHERE id IS NOT NULL)`
        : ''
      const segments =
        after === null || after.created
          ? ['1']
          : segmentsAfter(sort, descending, after.value, after.staged ? 'none' : 'rest')
      for (const segment of segments) {
        arms.push(`SELECT * FROM (
          SELECT 0 AS created, 0 AS staged, row_id, ${sort} AS sort_value FROM ${kind.table}
            WHERE ${cached.condition}${others} AND ${segment}
            ORDER BY ${sort} ${direction}, row_id ${direction} LIMIT @limit + @skip)`)
      }
    }
    if (staged !== null && waiting !== null) {
      arms.push(`SELECT id IS NULL AS created, 1 AS staged, row_id, ${sort} AS sort_value
        FROM ${staged.rows}
        WHERE ${waiting.condition} AND (${stagedAfter(`${sort} COLLATE ${collation}`, descending, after)})`)
    }
    if (arms.length === 0) return []
    return this.#db
      .prepare(
        `SELECT created, staged, row_id, sort_value FROM (${arms.join(' UNION ALL ')})
           ORDER BY created DESC, sort_value COLLATE ${collation} ${direction}, staged,
             row_id ${direction}
           LIMIT @limit OFFSET @skip`,
      )
      .all(params) as KeyRow[]
  }

  /** The places of every row of a list, in its order (as `page` orders it). */
  #placesInOrder(
    kind: RecordKind,
    vaultId: number,
    options: ListOptions,
    { sort, descending, collation }: ListOrder,
    staged: StagedTables | null,
  ): Place[] {
    const cached = this.#condition(kind, vaultId, options)
    const direction = descending ? 'DESC' : 'ASC'
    if (staged === null) {
      if (cached === null) return []
      return this.#db
        .prepare(
          `SELECT row_id FROM ${kind.table} WHERE ${cached.condition}
             ORDER BY ${sort} ${direction}, row_id ${direction}`,
        )
        .pluck()
        .all(cached.params) as Place[]
    }
    const waiting = this.#condition(kind, vaultId, options, staged)
    const arms: string[] = []
    if (cached !== null) {
      arms.push(`SELECT 0 AS created, 0 AS staged, row_id, ${sort} AS sort_value
        FROM ${kind.table} WHERE ${cached.condition}
          AND id NOT IN (SELECT id FROM ${staged.rows} WHERE id IS NOT NULL)`)
    }
    if (waiting !== null) {
      arms.push(`SELECT id IS NULL AS created, 1 AS staged, row_id, ${sort} AS sort_value
        FROM ${staged.rows} WHERE ${waiting.condition}`)
    }
    if (arms.length === 0) return []
    return this.#db
      .prepare(
        `SELECT iif(staged, -row_id, row_id) FROM (${arms.join(' UNION ALL ')})
           ORDER BY created DESC, sort_value COLLATE ${collation} ${direction}, staged,
             row_id ${direction}`,
      )
      .pluck()
      .all({ ...cached?.params, ...waiting?.params }) as Place[]
  }

  /** Whether a cache step still fills in the kind's list members (cache-backfills.ts). */
  #membersBackfilling(kind: RecordKind): boolean {
    if (listMembersOf(kind).length === 0) return false
    const backfills = this.#db
      .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'cache_backfills'")
      .get()
    if (backfills === undefined) return false
    const steps = this.#db.prepare('SELECT step FROM cache_backfills').pluck().all() as number[]
    return steps.some((step) => cacheBackfills[step]?.(this.#db).table === kind.table)
  }

  /**
   * A statement of a list read whole, compiled once. Its mode (raw, pluck) is the caller's to set
   * each time; a handful of texts per list, kept until there are a hundred.
   */
  #readStatement(sql: string): Database.Statement {
    let statement = this.#readStatements.get(sql)
    if (statement === undefined) {
      if (this.#readStatements.size >= 100) this.#readStatements.clear()
      statement = this.#db.prepare(sql)
      this.#readStatements.set(sql, statement)
    }
    return statement
  }

  /**
   * The rows at these places, in their order; a row deleted since its place was taken is left
   * out. Staged rows carry their pending record and mark, as `page` gives them.
   */
  #rowsAt(
    kind: RecordKind,
    places: readonly Place[],
    staged: StagedTables | null,
    pending: readonly PendingInput[],
    reading?: RowReading,
    source: RowSource = this.#source,
  ): RecordRow<RecordKindName>[] {
    if (places.length === 0) return []
    const found = new Map<Place, RecordRow<RecordKindName>>()
    const cachedIds = places.filter((place) => place > 0)
    if (cachedIds.length > 0) {
      const statement = source.statement(
        `SELECT row_id, ${readColumns(kind, reading)} FROM ${kind.table}
           WHERE row_id IN (SELECT value FROM json_each(?))`,
      )
      if (reading !== undefined) {
        const shape = readShape(statement, 1)
        const text = jsonText(kind, reading, this.#source)
        const rows = statement.raw().iterate(JSON.stringify(cachedIds))
        for (const values of rows as Iterable<ColumnValue[]>) {
          found.set(values[0] as number, new ReadRow(kind.name, values, shape, text))
        }
      } else {
        readRows(statement, cachedIds, (rowId, id, columns, json) =>
          found.set(rowId, lazyRow(kind.name, id, columns, json)),
        )
      }
    }
    const stagedIds = places.filter((place) => place < 0).map((place) => -place)
    if (stagedIds.length > 0 && staged !== null) {
      const statement = this.#db.prepare(
        `SELECT row_id, ${rowColumns(kind, 'json')} FROM ${staged.rows}
           WHERE row_id IN (SELECT value FROM json_each(?))`,
      )
      readRows(statement, stagedIds, (rowId, id, columns) => {
        const input = pending[rowId - 1]!
        found.set(-rowId, { kind: kind.name, id, columns, json: input.json, pending: input.mark })
      })
    }
    return places.flatMap((place) => found.get(place) ?? [])
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

function listOrder(kind: RecordKind, options: ListOptions): ListOrder {
  const sort = options.sort ?? 'name'
  if (!kind.sortable.includes(sort)) {
    throw new AppError(
      'invalid_argument',
      `${kind.name} cannot be sorted by "${sort}". Sortable: ${kind.sortable.join(', ')}.`,
    )
  }
  return { sort, descending: options.direction === 'desc', collation: collationOf(kind, sort) }
}

function collationOf(kind: RecordKind, column: string): string {
  if (column === 'name') return 'NOCASE'
  return kind.declaration.columns?.find((declared) => declared.name === column)?.collate ?? 'BINARY'
}

/**
 * Whether an index gives the list's order, so that each page read by key is a short walk of it:
 * the sort column is indexed on its own (after the vault), and nothing narrows the list that
 * SQLite would answer as a whole set for every page (text, a project, ids, a filter on another
 * column, which might also draw SQLite to that column's index and a sort).
 */
function readsByKey(kind: RecordKind, sort: string, options: ListOptions): boolean {
  const indexed =
    sort === 'id' ||
    (sort === 'name' && kind.declaration.unnamed !== true) ||
    (kind.declaration.indexes ?? []).some((indexed) =>
      typeof indexed === 'string'
        ? indexed === sort
        : indexed.column === sort && indexed.withValueOnly !== true,
    )
  const narrowed =
    (options.text !== undefined && options.text.trim() !== '') ||
    options.projectId !== undefined ||
    options.ids !== undefined ||
    Object.keys(options.filters ?? {}).some((column) => column !== sort)
  return indexed && !narrowed
}

/**
 * The conditions, each an index range in the list's order, of the rows that follow the value
 * `value` of `column` (NULLs first ascending, last descending, as SQLite sorts them). Rows of that
 * very value: those after `@afterRow` (`rest`), all (`all`) or none (`none`).
 */
function segmentsAfter(
  column: string,
  descending: boolean,
  value: ColumnValue,
  same: 'rest' | 'all' | 'none',
): string[] {
  const equal = value === null ? `${column} IS NULL` : `${column} = @afterValue`
  const segments: string[] = []
  if (same === 'rest') segments.push(`${equal} AND row_id ${descending ? '<' : '>'} @afterRow`)
  if (same === 'all') segments.push(equal)
  if (!descending)
    segments.push(value === null ? `${column} IS NOT NULL` : `${column} > @afterValue`)
  else if (value !== null) segments.push(`${column} < @afterValue`, `${column} IS NULL`)
  return segments.map((segment) => `(${segment})`)
}

/**
 * Which staged rows follow `after`: created ones come first (after a created row, those after
 * it, and every changed one); a changed row follows the cached rows of its value.
 */
function stagedAfter(column: string, descending: boolean, after: ListKey | null): string {
  if (after === null) return '1'
  const any = (segments: string[]): string => (segments.length > 0 ? segments.join(' OR ') : '0')
  if (after.created) {
    const rest = any(segmentsAfter(column, descending, after.value, 'rest'))
    return `(id IS NULL AND (${rest})) OR id IS NOT NULL`
  }
  const same = after.staged ? 'rest' : 'all'
  return `id IS NOT NULL AND (${any(segmentsAfter(column, descending, after.value, same))})`
}

function keyOf(row: KeyRow): ListKey {
  return {
    created: row.created === 1,
    staged: row.staged === 1,
    value: row.sort_value,
    rowId: row.row_id,
  }
}

function placeOf(row: KeyRow): Place {
  return row.staged === 1 ? -row.row_id : row.row_id
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

/**
 * When rows are read with their JSON deferred: how a row's JSON text is read, by its row id, on
 * the main connection (a row's record may be read after its reading has ended).
 */
function jsonText(
  kind: RecordKind,
  reading: RowReading | undefined,
  source: RowSource,
): ((rowId: number) => string) | null {
  if (reading?.deferJson !== true) return null
  const statement = source.statement(`SELECT ${jsonOf(kind)} FROM ${kind.table} WHERE row_id = ?`)
  return (rowId) => {
    const text = statement.pluck().get(rowId) as string | undefined
    if (text === undefined) {
      throw new AppError('not_found', `The ${kind.name} row ${rowId} left the cache meanwhile.`)
    }
    return text
  }
}

/** `rowColumns` as `read` reads them: with the kind's list members, or without the JSON text. */
function readColumns(kind: RecordKind, reading: RowReading | undefined): string {
  if (reading === undefined) return rowColumns(kind)
  const declared = kind.columns.map((column) => `, ${column.column}`).join('')
  const members =
    reading.listMembers === true
      ? listMembersOf(kind)
          .map((member) => `, ${member.column}`)
          .join('')
      : ''
  const json = reading.deferJson === true ? 'NULL' : jsonOf(kind)
  return `id, name, created_at, modified_at${declared}${members}, ${json} AS json`
}

/**
 * Runs a statement whose columns are `row_id` and then `rowColumns`' over a list of row ids, and
 * hands over each row's row id, server id, columns and JSON text. Rows are read as arrays: a
 * record per row, and nothing else, is made of them.
 */
function readRows(
  statement: Database.Statement,
  rowIds: readonly number[],
  take: (rowId: number, id: number, columns: Record<string, ColumnValue>, json: string) => void,
): void {
  const names = statement.columns().map((column) => column.name)
  const jsonAt = names.length - 1
  for (const values of statement.raw().iterate(JSON.stringify(rowIds)) as Iterable<ColumnValue[]>) {
    const columns: Record<string, ColumnValue> = {}
    for (let index = 2; index < jsonAt; index++) columns[names[index]!] = values[index]!
    take(values[0] as number, values[1] as number, columns, values[jsonAt] as string)
  }
}

/**
 * A row whose JSON is parsed when first read. A whole list read for an export or `find` often
 * needs only the columns (the view's columns of most kinds), and parsing each record's JSON was a
 * large share of reading it (bench/README.md, export.bench.ts).
 */
function lazyRow(
  kind: RecordKindName,
  id: number,
  columns: Record<string, ColumnValue>,
  text: string,
): RecordRow<RecordKindName> {
  let parsed: JsonObject | undefined
  const row: RecordRow<RecordKindName> & { [unparsed]?: () => string | null } = {
    kind,
    id,
    columns,
    get json(): JsonObject {
      return (parsed ??= parseRecord(text))
    },
    set json(value: JsonObject) {
      parsed = value
    },
  }
  // Not enumerable: rows cross to the window and the CLI as their members, this is no member.
  Object.defineProperty(row, unparsed, {
    value: () => (parsed !== undefined ? null : text),
  })
  return row
}

const unparsed = Symbol('unparsed JSON text')

/**
 * Where a read statement's row (an array, `raw()`) holds what a row read for an export takes,
 * found once per statement: its row id at 0, its server id at `idAt`, its columns from `idAt + 1`
 * up to its JSON text, last.
 */
interface ReadShape {
  readonly idAt: number
  readonly jsonAt: number
  /** Makes a row's `columns`: named members over the row's array, nothing copied. */
  readonly Columns: new (values: readonly ColumnValue[]) => Readonly<Record<string, ColumnValue>>
}

const readShapes = new WeakMap<Database.Statement, ReadShape>()

/** The shape of a read statement's rows, made once per statement (`idAt`: its server id). */
function readShape(statement: Database.Statement, idAt: number): ReadShape {
  let shape = readShapes.get(statement)
  if (shape === undefined) {
    const names = statement.columns().map((column) => column.name)
    const jsonAt = names.length - 1
    // One class per statement, made once: a page's rows share one shape, so the export's column
    // readers see a few shapes in all however many pages they read, not one per page.
    const Columns = class {
      readonly [rowValues]: readonly ColumnValue[]
      constructor(values: readonly ColumnValue[]) {
        this[rowValues] = values
      }
    }
    for (let index = idAt + 1; index < jsonAt; index++) {
      Object.defineProperty(Columns.prototype, names[index]!, {
        enumerable: true,
        get(this: InstanceType<typeof Columns>) {
          return this[rowValues][index]
        },
      })
    }
    shape = {
      idAt,
      jsonAt,
      Columns: Columns as unknown as ReadShape['Columns'],
    }
    readShapes.set(statement, shape)
  }
  return shape
}

const rowValues = Symbol('row values')

/**
 * A row read for an export (`RowReading`): the array SQLite gave, its columns named over it and
 * its record parsed when first read. Two small objects per row, their shapes shared: building a
 * column object and an accessor record per row was half the main thread's time of an SD export
 * (export.bench.ts). Its members are the prototype's (`json` included), so it is for the reader
 * in this process (the export's writers), not for a copy to the window.
 */
class ReadRow implements RecordRow<RecordKindName> {
  readonly kind: RecordKindName
  readonly id: number
  readonly columns: Readonly<Record<string, ColumnValue>>
  readonly #values: readonly ColumnValue[]
  readonly #jsonAt: number
  readonly #text: ((rowId: number) => string) | null
  #parsed: JsonObject | undefined

  constructor(
    kind: RecordKindName,
    values: readonly ColumnValue[],
    shape: ReadShape,
    text: ((rowId: number) => string) | null,
  ) {
    this.kind = kind
    this.id = values[shape.idAt] as number
    this.columns = new shape.Columns(values)
    this.#values = values
    this.#jsonAt = shape.jsonAt
    this.#text = text
  }

  /** Its row id in the cache. */
  get rowId(): number {
    return this.#values[0] as number
  }

  get json(): JsonObject {
    return (this.#parsed ??= this.#record())
  }

  set json(value: JsonObject) {
    this.#parsed = value
  }

  [unparsed](): string | null {
    return this.#parsed !== undefined ? null : this.#jsonText()
  }

  /** The record parsed; one whose stored text is damaged is named in the error. */
  #record(): JsonObject {
    const text = this.#jsonText()
    try {
      return parseRecord(text)
    } catch (error) {
      throw new DamagedRecordError(damagedRecordName(this), error)
    }
  }

  #jsonText(): string {
    return this.#text
      ? this.#text(this.#values[0] as number)
      : (this.#values[this.#jsonAt] as string)
  }
}

/** A cached record whose stored text cannot be read, named (its kind, id, name and row). */
export class DamagedRecordError extends AppError {
  /** The record as the message names it. */
  readonly record: string

  constructor(record: string, cause: unknown) {
    super(
      'storage',
      `${record} is damaged in the cache: its stored text is not JSON (${(cause as Error).message}).`,
      { cause },
    )
    this.record = record
  }
}

/** A record as an error names it: its kind, server id, name and row in the cache. */
function damagedRecordName(row: RecordRow): string {
  const name = row.columns.name
  const named = typeof name === 'string' && name.trim() !== '' ? ` "${name}"` : ''
  const rowId = row instanceof ReadRow ? ` (cache row ${row.rowId})` : ''
  return `${kindDeclaration(row.kind).singular} ${row.id ?? 'created offline'}${named}${rowId}`
}

/**
 * The JSON text of a row read from the cache whose record has not been parsed (nor replaced):
 * a reader that needs one member of many records (an SD file's molfile) can take it from the text
 * without parsing each record whole. Null for any other row: read its `json`.
 */
export function unparsedJson(row: RecordRow): string | null {
  const holder = row as { [unparsed]?: () => string | null }
  return holder[unparsed] === undefined ? null : holder[unparsed]()
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
