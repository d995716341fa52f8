import type Database from 'better-sqlite3'
import { AppError } from '../shared/app-error.ts'
import {
  createdAtOf,
  modifiedAtOf,
  recordKind,
  recordKinds,
  type RecordKind,
} from './record-kinds.ts'
import { isObject, toId, type JsonObject, type SqlValue } from './record-values.ts'
import { searchColumns, searchRowid } from './search-text.ts'

/** A record of a page that was not stored, and why (the rest of the page is). */
export interface RejectedRecord {
  index: number
  reason: string
}

export interface WrittenPage {
  stored: number
  rejected: RejectedRecord[]
}

/** A record of a page as it came: parsed, with the JSON text it was parsed from when known. */
export interface PageRecord {
  record: unknown
  /** Stored as the record's JSON instead of serializing the record again. */
  json?: string
}

interface KindStatements {
  existing: Database.Statement<[number, string], { id: number; row_id: number }>
  lastRowId: Database.Statement<[], number | null>
  insert: Batched
  /** better-sqlite3 binds an array argument as the statement's parameters, in order. */
  update: Database.Statement<[SqlValue[]]>
  keptMembers: Database.Statement<[{ rowId: number; members: string }], string | null>
}

interface PreparedRecord {
  id: number
  record: JsonObject
  /** In the order of valueColumns(kind). */
  values: SqlValue[]
}

/** Where a batch nested in a molecule sits in it. */
interface NestedIn {
  moleculeId: number
  position: number
}

/** A prepared record to index once it has its row. */
interface Placed {
  rowId: number
  id: number
  record: JsonObject
}

/**
 * Rows per multi-row INSERT. Each statement run costs a crossing into SQLite and a parse of its
 * arguments; 32 rows a run take about a sixth off writing small rows one by one.
 */
const rowsPerInsert = 32

const batches = recordKind('batches')

/**
 * Writes pages of server records into the cache. New records are inserted many rows per statement
 * with row ids chosen here (one lookup per page finds which records are new), and so are their
 * search documents and project links; replaced records are updated one by one and their old
 * search document and links dropped. A molecule's batches are written from the same page without
 * serializing them again. Callers run it inside an immediate transaction.
 */
export class RecordWriter {
  readonly #db: Database.Database
  readonly #statements = new Map<string, KindStatements>()
  readonly #searchInsert: Batched
  readonly #searchDelete: Database.Statement<[number]>
  readonly #projectInsert: Batched
  readonly #projectDelete: Database.Statement<[number, number]>
  readonly #vanishedBatches: Database.Statement<[number, number, string], number>
  readonly #batchesOfMolecules: Database.Statement<[number, string], number>

  constructor(db: Database.Database) {
    this.#db = db
    this.#searchInsert = new Batched(
      db,
      'INSERT INTO search_index (rowid, name, identifiers, synonyms, content, scope) VALUES',
      6,
    )
    this.#searchDelete = db.prepare('DELETE FROM search_index WHERE rowid = ?')
    this.#projectInsert = new Batched(
      db,
      'INSERT OR IGNORE INTO record_projects (kind_code, row_id, project_id) VALUES',
      3,
    )
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
  }

  /**
   * `keep`: members a record that lacks them takes over from the record it replaces (the plate
   * statistics of a run, which only the single-run answer carries, when a list page replaces it).
   */
  write(
    kind: RecordKind,
    vaultId: number,
    records: readonly PageRecord[],
    parentId: number | null,
    keep: readonly string[] = [],
  ): WrittenPage {
    const rejected: RejectedRecord[] = []
    const prepared: PreparedRecord[] = []
    records.forEach(({ record, json }, index) => {
      const result = prepareRecord(kind, vaultId, record, index, parentId, null, json)
      if ('reason' in result) rejected.push(result)
      else prepared.push(result)
    })
    const replaced = this.#upsert(kind, vaultId, prepared, keep)
    if (kind.name === 'molecules') this.#writeBatchesOf(vaultId, prepared, replaced, rejected)
    return { stored: prepared.length, rejected }
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
      deleted += rowIds.length
    }
    return deleted
  }

  /** Returns, for every record in order, whether it replaced one already cached. */
  #upsert(
    kind: RecordKind,
    vaultId: number,
    prepared: readonly PreparedRecord[],
    keep: readonly string[],
  ): boolean[] {
    if (prepared.length === 0) return []
    const statements = this.#statementsFor(kind)
    const existing = new Map<number, number>()
    const ids = JSON.stringify(prepared.map((item) => item.id))
    for (const row of statements.existing.all(vaultId, ids)) existing.set(row.id, row.row_id)
    const replaced = prepared.map((item) => existing.has(item.id))
    // A record listed twice in a page is stored as its last occurrence says.
    const last = new Map<number, PreparedRecord>()
    for (const item of prepared) last.set(item.id, item)
    let nextRowId = (statements.lastRowId.get() ?? 0) + 1
    const { insert } = statements
    const placed: Placed[] = []
    for (const item of last.values()) {
      const rowId = existing.get(item.id)
      if (rowId === undefined) {
        insert.value(nextRowId)
        insert.value(vaultId)
        insert.value(item.id)
        insert.values(item.values)
        insert.endRow()
        placed.push({ rowId: nextRowId++, id: item.id, record: item.record })
        continue
      }
      if (keep.length > 0) this.#keepMembers(statements, rowId, item, keep)
      item.values.push(rowId)
      statements.update.run(item.values)
      this.#forget(kind, [rowId])
      placed.push({ rowId, id: item.id, record: item.record })
    }
    insert.finish()
    this.#index(kind, vaultId, placed)
    return replaced
  }

  #keepMembers(
    statements: KindStatements,
    rowId: number,
    item: PreparedRecord,
    keep: readonly string[],
  ): void {
    const missing = keep.filter((member) => !(member in item.record))
    if (missing.length === 0) return
    const kept = statements.keptMembers.get({
      rowId,
      members: JSON.stringify(missing.map(jsonPath)),
    })
    if (!kept) return
    const members = JSON.parse(kept) as unknown[]
    const record: JsonObject = { ...item.record }
    missing.forEach((member, index) => {
      if (members[index] !== null) record[member] = members[index]
    })
    item.record = record
    item.values[item.values.length - 1] = JSON.stringify(record)
  }

  #writeBatchesOf(
    vaultId: number,
    molecules: readonly PreparedRecord[],
    replaced: readonly boolean[],
    rejected: RejectedRecord[],
  ): void {
    const prepared: PreparedRecord[] = []
    const lastOccurrence = new Map(molecules.map((molecule, index) => [molecule.id, index]))
    molecules.forEach((molecule, index) => {
      if (lastOccurrence.get(molecule.id) !== index) return
      const nested = Array.isArray(molecule.record.batches) ? molecule.record.batches : []
      const batchIds: number[] = []
      nested.forEach((batch, position) => {
        const where = { moleculeId: molecule.id, position }
        const result = prepareRecord(batches, vaultId, batch, position, null, where)
        if ('reason' in result) {
          rejected.push({ index, reason: `molecule ${molecule.id}: batch ${result.reason}` })
          return
        }
        prepared.push(result)
        batchIds.push(result.id)
      })
      if (replaced[index]) {
        const vanished = this.#vanishedBatches.all(vaultId, molecule.id, JSON.stringify(batchIds))
        this.#forget(batches, vanished)
      }
    })
    this.#upsert(batches, vaultId, prepared, [])
  }

  #index(kind: RecordKind, vaultId: number, placed: readonly Placed[]): void {
    const { searchOf, projectsOf } = kind
    if (searchOf) {
      // A vault's own record is searched as part of that vault.
      const own = kind.name === 'vaults'
      const search = this.#searchInsert
      for (const { rowId, id, record } of placed) {
        search.value(searchRowid(rowId, kind.code))
        search.values(searchColumns(searchOf(record), own ? id : vaultId))
        search.endRow()
      }
      search.finish()
    }
    if (projectsOf) {
      const links = this.#projectInsert
      for (const { rowId, record } of placed) {
        for (const projectId of new Set(projectsOf(record))) {
          links.value(kind.code)
          links.value(rowId)
          links.value(projectId)
          links.endRow()
        }
      }
      links.finish()
    }
  }

  /** Removes what refers to rows that are gone or about to be rewritten. */
  #forget(kind: RecordKind, rowIds: readonly number[]): void {
    for (const rowId of rowIds) {
      if (kind.searchOf) this.#searchDelete.run(searchRowid(rowId, kind.code))
      if (kind.projectsOf) this.#projectDelete.run(kind.code, rowId)
    }
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
        lastRowId: this.#db
          .prepare<[], number | null>(`SELECT max(row_id) FROM ${kind.table}`)
          .pluck(),
        insert: new Batched(
          this.#db,
          `INSERT INTO ${kind.table} (row_id, vault_id, id, ${columns.join(', ')}) VALUES`,
          columns.length + 3,
        ),
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
 * An INSERT of `width` values per row, run many rows at a time: rows are written value by value
 * into one reused parameter array, which is run whenever it holds `rowsPerInsert` rows; `finish`
 * runs the rest row by row.
 */
class Batched {
  readonly #many: Database.Statement<[SqlValue[]]>
  readonly #one: Database.Statement<[SqlValue[]]>
  readonly #width: number
  readonly #chunk: SqlValue[]
  #filled = 0

  constructor(db: Database.Database, insertInto: string, width: number) {
    const row = `(${Array.from({ length: width }, () => '?').join(', ')})`
    this.#many = db.prepare<[SqlValue[]]>(
      `${insertInto} ${Array.from({ length: rowsPerInsert }, () => row).join(', ')}`,
    )
    this.#one = db.prepare<[SqlValue[]]>(`${insertInto} ${row}`)
    this.#width = width
    this.#chunk = new Array<SqlValue>(width * rowsPerInsert).fill(null)
  }

  value(value: SqlValue): void {
    this.#chunk[this.#filled++] = value
  }

  values(values: readonly SqlValue[]): void {
    for (const value of values) this.#chunk[this.#filled++] = value
  }

  /** Ends the row whose values were just given. */
  endRow(): void {
    if (this.#filled < this.#chunk.length) return
    this.#many.run(this.#chunk)
    this.#filled = 0
  }

  finish(): void {
    for (let start = 0; start < this.#filled; start += this.#width) {
      this.#one.run(this.#chunk.slice(start, start + this.#width))
    }
    this.#filled = 0
  }
}

/** The columns written for every kind after row_id, vault_id and id: common, own, json. */
function valueColumns(kind: RecordKind): string[] {
  return [
    'name',
    'created_at',
    'modified_at',
    ...kind.columns.map((column) => column.column),
    'json',
  ]
}

const batchColumns = valueColumns(batches)
const batchMoleculeId = batchColumns.indexOf('molecule_id')
const batchPosition = batchColumns.indexOf('position')
const batchJson = batchColumns.indexOf('json')

function prepareRecord(
  kind: RecordKind,
  vaultId: number,
  record: unknown,
  index: number,
  parentId: number | null,
  nestedIn: NestedIn | null,
  json?: string,
): PreparedRecord | RejectedRecord {
  if (!isObject(record)) {
    return { index, reason: `record ${index} is not an object (${describe(record)})` }
  }
  const rawId = kind.idOf(record, vaultId)
  const id = toId(rawId)
  if (id === null) {
    return { index, reason: `record ${index} has no integer id (id: ${describe(rawId)})` }
  }
  const values: SqlValue[] = [kind.nameOf(record), createdAtOf(record), modifiedAtOf(record)]
  for (const { column, read } of kind.columns) {
    const value = read(record)
    values.push(value === null && column === kind.parentColumn ? parentId : value)
  }
  if (nestedIn) {
    values[batchMoleculeId] ??= nestedIn.moleculeId
    values[batchPosition] = nestedIn.position
    values[batchJson] = null
  } else {
    values.push(json ?? JSON.stringify(record))
  }
  return { id, record, values }
}

/** A member name as a JSON path, quoted so that any name is taken literally. */
function jsonPath(member: string): string {
  return `$."${member.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}
