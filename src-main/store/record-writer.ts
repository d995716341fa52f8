import type Database from 'better-sqlite3'
import { AppError } from '../shared/app-error.ts'
import { recordKind, recordKinds, type RecordKind } from './record-kinds.ts'
import {
  addDerived,
  describe,
  emptyRows,
  valueColumns,
  type PreparedPage,
  type PreparedRows,
  type RejectedRecord,
} from './record-rows.ts'
import { toId, type JsonObject, type SqlValue } from '../../src-common/values.ts'
import { searchColumnCount, searchRowid, vaultScopeToken } from './search-text.ts'

export type { RejectedRecord } from './record-rows.ts'

export interface WrittenPage {
  stored: number
  rejected: RejectedRecord[]
}

interface KindStatements {
  existing: Database.Statement<[number, string], { id: number; row_id: number }>
  highestId: Database.Statement<[number], number | null>
  lastRowId: Database.Statement<[], number | null>
  /** better-sqlite3 binds an array argument as the statement's parameters, in order. */
  update: Database.Statement<[SqlValue[]]>
  keptMembers: Database.Statement<[{ rowId: number; members: string }], string | null>
}

/**
 * Rows per multi-row INSERT. Each statement run costs a crossing into SQLite and a parse of its
 * arguments; 32 rows a run take about a sixth off writing small rows one by one.
 */
const rowsPerInsert = 32
const batches = recordKind('batches')

/** A row written, and where its search columns and project ids are (row `row` of `rows`). */
interface Placed {
  rowId: number
  rows: PreparedRows
  row: number
}

/** The search columns and project ids of one record, as row 0. */
function derivedRows(kind: RecordKind, id: number, record: JsonObject) {
  const rows = emptyRows(kind)
  rows.ids.push(id)
  addDerived(rows, kind, record)
  return rows
}

/**
 * Writes pages of server records, made ready by record-rows.ts, into the cache. New records are
 * inserted many rows per statement with row ids chosen here (one lookup per page finds which
 * records are new, none when the page lies above every id cached), and so are their project
 * links; replaced records are updated one by one and their old search document and links
 * dropped. A molecule's batches are written from the same page (their JSON is the molecule's).
 * Callers run it inside an immediate transaction.
 *
 * What every row of a statement shares (the vault, the kind code of a project link, the search
 * scope, a nested batch's missing JSON) is written into the statement rather than bound row by
 * row: better-sqlite3 checks and converts each value it binds, about a sixth of the writer's time
 * (writing 50k molecules with their batches took 3% less time, 39 alternating pairs).
 */
export class RecordWriter {
  readonly #db: Database.Database
  readonly #statements = new Map<string, KindStatements>()
  /** By kind ('nested batches' apart): the INSERT for the vault written last (see #insertFor). */
  readonly #inserts = new Map<string, { vaultId: number; insert: Batched }>()
  /**
   * By scope (one per vault, each small). One row per statement: FTS5 takes the rows of a
   * multi-row INSERT one at a time anyway, and did so at twice the cost per document (11 µs
   * against 6 for a molecule).
   */
  readonly #searchInserts = new Map<number, Database.Statement<SqlValue[]>>()
  readonly #searchDelete: Database.Statement<[number]>
  /** By kind code. */
  readonly #projectInserts = new Map<number, Batched>()
  readonly #projectDelete: Database.Statement<[number, number]>
  readonly #vanishedBatches: Database.Statement<[number, number, string], number>
  readonly #batchesOfMolecules: Database.Statement<[number, string], number>
  readonly #rowsOfNewProtocols: Database.Statement<[number, string]>
  /** Counts a write of readout rows (cache step 16; see countedByWriter). */
  readonly #readoutRowsChanged: Database.Statement<[]> | null

  constructor(db: Database.Database) {
    this.#db = db
    this.#readoutRowsChanged = countedByWriter(db)
      ? db.prepare(
          `UPDATE readout_change_counters SET changes = changes + 1 WHERE topic = 'readout_rows'`,
        )
      : null
    this.#searchDelete = db.prepare('DELETE FROM search_index WHERE rowid = ?')
    this.#projectDelete = db.prepare(
      'DELETE FROM record_projects WHERE kind_code = ? AND row_id = ?',
    )
    this.#vanishedBatches = db
      .prepare<[number, number, string], number>(
        `DELETE FROM batches WHERE vault_id = ? AND molecule_id = ?
           AND id NOT IN (SELECT value FROM json_each(?)) RETURNING row_id`,
      )
      .pluck()
    this.#batchesOfMolecules = db
      .prepare<[number, string], number>(
        `DELETE FROM batches WHERE vault_id = ?
           AND molecule_id IN (SELECT value FROM json_each(?)) RETURNING row_id`,
      )
      .pluck()
    this.#rowsOfNewProtocols = db.prepare(
      `INSERT OR IGNORE INTO readout_index_queue (vault_id, row_id)
         SELECT vault_id, id FROM readout_rows
          WHERE vault_id = ? AND protocol_id IN (SELECT value FROM json_each(?))`,
    )
  }

  /**
   * Writes a page made ready by record-rows.ts. `keep`: members a record that lacks them takes
   * over from the record it replaces (the plate statistics of a run, which only the single-run
   * answer carries, when a list page replaces it).
   */
  write(page: PreparedPage, keep: readonly string[] = []): WrittenPage {
    const kind = recordKind(page.kind)
    try {
      const replaced = this.#upsert(kind, page.vaultId, page.rows, keep, false)
      if (page.nested) this.#writeBatchesOf(page.vaultId, page.rows, page.nested, replaced)
      if (kind.name === 'protocols') this.#readProtocolRowsAgain(page.vaultId, page.rows, replaced)
      if (kind.name === 'readout_rows' && page.rows.ids.length > 0) this.#readoutRowsChanged?.run()
    } catch (error) {
      // The caller's transaction undoes what the page wrote; rows it gave a multi-row INSERT
      // that did not run yet are dropped here, or the next page would write them.
      this.#dropPendingRows()
      throw error
    }
    return { stored: page.rows.ids.length, rejected: page.rejected }
  }

  /**
   * Deletes the records of a kind (under one parent, when given) whose ids are not listed.
   * Answers the ids deleted.
   */
  retainOnly(
    kind: RecordKind,
    vaultId: number,
    ids: readonly unknown[],
    parentId: number | null,
  ): number[] {
    const keep = ids.map((id, index) => {
      const value = toId(id)
      if (value === null) {
        throw new AppError(
          'validation',
          `Cannot prune ${kind.name}: entry ${index} of the id list is not an integer (${describe(id)}); nothing was deleted.`,
        )
      }
      return value
    })
    const parentFilter =
      parentId !== null && kind.parentColumn ? ` AND ${kind.parentColumn} = @parentId` : ''
    const rows = this.#db
      .prepare(
        `DELETE FROM ${kind.table} WHERE vault_id = @vaultId${parentFilter}
           AND id NOT IN (SELECT value FROM json_each(@keep)) RETURNING row_id, id`,
      )
      .all({ vaultId, parentId, keep: JSON.stringify(keep) }) as { row_id: number; id: number }[]
    const deletedIds = rows.map((row) => row.id)
    if (kind.name === 'readout_rows' && rows.length > 0) this.#readoutRowsChanged?.run()
    this.#forget(
      kind,
      rows.map((row) => row.row_id),
    )
    if (kind.name === 'molecules' && deletedIds.length > 0) {
      this.#forget(batches, this.#batchesOfMolecules.all(vaultId, JSON.stringify(deletedIds)))
    }
    return deletedIds
  }

  /** Deletes every record of a vault, of every kind, with its search documents and links. */
  dropVault(vaultId: number): number {
    let deleted = 0
    for (const kind of recordKinds.values()) {
      const rowIds = this.#db
        .prepare<[number], number>(`DELETE FROM ${kind.table} WHERE vault_id = ? RETURNING row_id`)
        .pluck()
        .all(vaultId)
      this.#forget(kind, rowIds)
      if (kind.name === 'readout_rows' && rowIds.length > 0) this.#readoutRowsChanged?.run()
      deleted += rowIds.length
    }
    return deleted
  }

  /**
   * Returns, for every row in order, whether it replaced a record already cached. `nested`: the
   * rows are batches nested in molecules, with no JSON of their own.
   */
  #upsert(
    kind: RecordKind,
    vaultId: number,
    rows: PreparedRows,
    keep: readonly string[],
    nested: boolean,
  ): boolean[] {
    const { ids, width } = rows
    if (ids.length === 0) return []
    const statements = this.#statementsFor(kind)
    const existing = cachedRows(statements, vaultId, ids)
    const replaced = ids.map((id) => existing.has(id))
    // A record listed twice in a page is stored as its last occurrence says.
    const last = new Map<number, number>()
    ids.forEach((id, row) => last.set(id, row))
    let nextRowId = (statements.lastRowId.get() ?? 0) + 1
    const insert = this.#insertFor(kind, vaultId, nested)
    const bound = nested ? width - 1 : width
    const placed: Placed[] = []
    for (const [id, row] of last) {
      const start = row * width
      const rowId = existing.get(id)
      if (rowId === undefined) {
        insert.value(nextRowId)
        insert.value(id)
        for (let column = start; column < start + bound; column++)
          insert.value(rows.values[column]!)
        insert.endRow()
        placed.push({ rowId: nextRowId++, rows, row })
        continue
      }
      const values = rows.values.slice(start, start + width)
      const record = keep.length > 0 ? this.#keepMembers(statements, rowId, values, keep) : null
      values.push(rowId)
      statements.update.run(values)
      this.#forget(kind, [rowId])
      // A record that took members over is searched and linked as it now is.
      placed.push(
        record ? { rowId, rows: derivedRows(kind, id, record), row: 0 } : { rowId, rows, row },
      )
    }
    insert.finish()
    this.#index(kind, vaultId, placed)
    return replaced
  }

  /**
   * The INSERT of a kind's rows under one vault. Only the statement of the vault written last is
   * kept: a sync writes vault after vault, and a statement of many rows takes tens of kilobytes.
   */
  #insertFor(kind: RecordKind, vaultId: number, nested: boolean): Batched {
    const key = nested ? 'nested batches' : kind.name
    const kept = this.#inserts.get(key)
    if (kept?.vaultId === vaultId) return kept.insert
    const columns = valueColumns(kind)
    const values = columns.map((column) => (nested && column === 'json' ? 'NULL' : '?'))
    const insert = new Batched(
      this.#db,
      `INSERT INTO ${kind.table} (row_id, vault_id, id, ${columns.join(', ')}) VALUES`,
      ['?', integerLiteral(vaultId), '?', ...values],
    )
    this.#inserts.set(key, { vaultId, insert })
    return insert
  }

  /**
   * Takes the `keep` members the row's record lacks over from the cached record `rowId`: answers
   * the record with them (its JSON in `values` rewritten), or null when nothing was taken.
   */
  #keepMembers(
    statements: KindStatements,
    rowId: number,
    values: SqlValue[],
    keep: readonly string[],
  ): JsonObject | null {
    const json = values.length - 1
    const record = JSON.parse(values[json] as string) as JsonObject
    const missing = keep.filter((member) => !(member in record))
    if (missing.length === 0) return null
    const kept = statements.keptMembers.get({
      rowId,
      members: JSON.stringify(missing.map(jsonPath)),
    })
    if (!kept) return null
    const members = JSON.parse(kept) as unknown[]
    missing.forEach((member, index) => {
      if (members[index] !== null) record[member] = members[index]
    })
    values[json] = JSON.stringify(record)
    return record
  }

  /**
   * Queues for the readout index the rows of protocols new to the cache: a sync stores readout
   * rows before their protocols, and rows indexed meanwhile were read without the readout
   * definitions (units, data types, aggregations). A protocol that changes its definitions has
   * its rows queued by cache step 7's trigger.
   */
  #readProtocolRowsAgain(vaultId: number, rows: PreparedRows, replaced: readonly boolean[]): void {
    const added = rows.ids.filter((_id, row) => !replaced[row])
    if (added.length > 0) this.#rowsOfNewProtocols.run(vaultId, JSON.stringify(added))
  }

  #writeBatchesOf(
    vaultId: number,
    molecules: PreparedRows,
    nested: NonNullable<PreparedPage['nested']>,
    replaced: readonly boolean[],
  ): void {
    const batchIds = new Map<number, number[]>()
    nested.owners.forEach((row, index) => {
      let list = batchIds.get(row)
      if (!list) batchIds.set(row, (list = []))
      list.push(nested.ids[index]!)
    })
    const last = new Map<number, number>()
    molecules.ids.forEach((id, row) => last.set(id, row))
    for (const [moleculeId, row] of last) {
      if (!replaced[row]) continue
      const kept = JSON.stringify(batchIds.get(row) ?? [])
      this.#forget(batches, this.#vanishedBatches.all(vaultId, moleculeId, kept))
    }
    this.#upsert(batches, vaultId, nested, [], true)
  }

  #index(kind: RecordKind, vaultId: number, placed: readonly Placed[]): void {
    if (kind.searchOf) {
      for (const { rowId, rows, row } of placed) {
        // A vault's own record is searched as part of that vault.
        const scope = kind.name === 'vaults' ? rows.ids[row]! : vaultId
        const search = rows.search!
        const at = row * searchColumnCount
        this.#searchInsertFor(scope).run(
          searchRowid(rowId, kind.code),
          search[at]!,
          search[at + 1]!,
          search[at + 2]!,
          search[at + 3]!,
        )
      }
    }
    if (kind.projectsOf) {
      const links = this.#projectInsertFor(kind.code)
      for (const { rowId, rows, row } of placed) {
        const { projectStarts, projects } = rows
        for (let index = projectStarts![row]!; index < projectStarts![row + 1]!; index++) {
          links.value(rowId)
          links.value(projects[index]!)
          links.endRow()
        }
      }
      links.finish()
    }
  }

  #searchInsertFor(scope: number): Database.Statement<SqlValue[]> {
    let insert = this.#searchInserts.get(scope)
    if (!insert) {
      integerLiteral(scope)
      insert = this.#db.prepare<SqlValue[]>(
        `INSERT INTO search_index (rowid, name, identifiers, synonyms, content, scope)
           VALUES (?, ?, ?, ?, ?, '${vaultScopeToken(scope)}')`,
      )
      this.#searchInserts.set(scope, insert)
    }
    return insert
  }

  #projectInsertFor(kindCode: number): Batched {
    let insert = this.#projectInserts.get(kindCode)
    if (!insert) {
      insert = new Batched(
        this.#db,
        'INSERT OR IGNORE INTO record_projects (kind_code, row_id, project_id) VALUES',
        [integerLiteral(kindCode), '?', '?'],
      )
      this.#projectInserts.set(kindCode, insert)
    }
    return insert
  }

  /** Removes what refers to rows that are gone or about to be rewritten. */
  #forget(kind: RecordKind, rowIds: readonly number[]): void {
    for (const rowId of rowIds) {
      if (kind.searchOf) this.#searchDelete.run(searchRowid(rowId, kind.code))
      if (kind.projectsOf) this.#projectDelete.run(kind.code, rowId)
    }
  }

  #dropPendingRows(): void {
    for (const { insert } of this.#inserts.values()) insert.drop()
    for (const insert of this.#projectInserts.values()) insert.drop()
  }

  #statementsFor(kind: RecordKind): KindStatements {
    let statements = this.#statements.get(kind.name)
    if (!statements) {
      const columns = valueColumns(kind)
      statements = {
        existing: this.#db.prepare(
          `SELECT id, row_id FROM ${kind.table}
             WHERE vault_id = ? AND id IN (SELECT value FROM json_each(?))`,
        ),
        highestId: this.#db
          .prepare<[number], number | null>(`SELECT max(id) FROM ${kind.table} WHERE vault_id = ?`)
          .pluck(),
        lastRowId: this.#db
          .prepare<[], number | null>(`SELECT max(row_id) FROM ${kind.table}`)
          .pluck(),
        update: this.#db.prepare<[SqlValue[]]>(
          `UPDATE ${kind.table} SET ${columns.map((column) => `${column} = ?`).join(', ')}
             WHERE row_id = ?`,
        ),
        keptMembers: this.#db
          .prepare<[{ rowId: number; members: string }], string | null>(
            `SELECT json_group_array(r.json -> member.value)
               FROM ${kind.table} AS r, json_each(@members) AS member WHERE r.row_id = @rowId`,
          )
          .pluck(),
      }
      this.#statements.set(kind.name, statements)
    }
    return statements
  }
}

/**
 * Whether this writer counts its writes of readout rows in `readout_change_counters`: on a cache
 * from step 16 on, which dropped step 13's triggers that counted each row (a cache between steps
 * 13 and 15, as the upgrade test builds them, is still counted by its triggers).
 */
function countedByWriter(db: Database.Database): boolean {
  const schema = db
    .prepare<[], { counters: number; triggers: number }>(
      `SELECT
         count(*) FILTER (WHERE type = 'table' AND name = 'readout_change_counters') AS counters,
         count(*) FILTER (WHERE type = 'trigger' AND tbl_name = 'readout_rows'
           AND sql LIKE '%readout_change_counters%') AS triggers
         FROM sqlite_schema`,
    )
    .get()
  return schema !== undefined && schema.counters > 0 && schema.triggers === 0
}

/**
 * The row ids of the records of a page that are cached already, by id. A first sync reads pages
 * in id order, each above every id cached before it: one look at the highest id cached answers
 * for the whole page (the lookup of a thousand ids took about a thirtieth of the writer's time).
 */
function cachedRows(
  statements: KindStatements,
  vaultId: number,
  ids: readonly number[],
): Map<number, number> {
  const existing = new Map<number, number>()
  const highest = statements.highestId.get(vaultId) ?? null
  if (highest === null || ids.every((id) => id > highest)) return existing
  for (const row of statements.existing.all(vaultId, JSON.stringify(ids))) {
    existing.set(row.id, row.row_id)
  }
  return existing
}

/**
 * An INSERT run many rows at a time, each row `row` (SQL expressions, '?' for the values given):
 * rows are written value by value into one reused parameter array, which is run whenever it
 * holds `rowsPerInsert` rows; `finish` runs the rest row by row. The values go to SQLite as
 * arguments, not as one array: better-sqlite3 reads an array element by element through N-API
 * property lookups (about 6% of the writer's time), and arguments directly; a first sync then
 * took 5-7% less CPU.
 */
class Batched {
  readonly #many: Database.Statement<SqlValue[]>
  readonly #one: Database.Statement<[SqlValue[]]>
  readonly #width: number
  readonly #chunk: SqlValue[]
  #filled = 0

  constructor(db: Database.Database, insertInto: string, row: readonly string[]) {
    const values = `(${row.join(', ')})`
    this.#many = db.prepare<SqlValue[]>(
      `${insertInto} ${Array.from({ length: rowsPerInsert }, () => values).join(', ')}`,
    )
    this.#one = db.prepare<[SqlValue[]]>(`${insertInto} ${values}`)
    this.#width = row.filter((value) => value === '?').length
    this.#chunk = new Array<SqlValue>(this.#width * rowsPerInsert).fill(null)
  }

  value(value: SqlValue): void {
    this.#chunk[this.#filled++] = value
  }

  /** Ends the row whose values were just given. */
  endRow(): void {
    if (this.#filled < this.#chunk.length) return
    this.#many.run(...this.#chunk)
    this.#filled = 0
  }

  finish(): void {
    for (let start = 0; start < this.#filled; start += this.#width) {
      this.#one.run(this.#chunk.slice(start, start + this.#width))
    }
    this.#filled = 0
  }

  /** Forgets the rows given since the last run (their write failed). */
  drop(): void {
    this.#filled = 0
  }
}

/** An id or code written into a statement's text, checked: unlike a bound value, it is SQL. */
function integerLiteral(value: number): string {
  if (!Number.isSafeInteger(value)) {
    throw new AppError('internal', `Cannot write records: ${describe(value)} is not an integer id.`)
  }
  return String(value)
}

/** A member name as a JSON path, quoted so that any name is taken literally. */
function jsonPath(member: string): string {
  return `$."${member.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
}
