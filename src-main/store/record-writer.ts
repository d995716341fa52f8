import type Database from 'better-sqlite3'
import { AppError } from '../shared/app-error.ts'
import { createdAtOf, modifiedAtOf, recordKind, type RecordKind } from './record-kinds.ts'
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

interface KindStatements {
  existing: Database.Statement<[number, string], { id: number; row_id: number }>
  insert: Database.Statement<SqlValue[]>
  update: Database.Statement<SqlValue[]>
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

const batches = recordKind('batches')

/**
 * Writes pages of server records into the cache: per record one prepared INSERT or UPDATE (which
 * of the two is known from one lookup per page), its search document and its project links. A
 * molecule's batches are written from the same page without serializing them again. Callers run
 * it inside a transaction.
 */
export class RecordWriter {
  readonly #db: Database.Database
  readonly #statements = new Map<string, KindStatements>()
  readonly #searchInsert: Database.Statement<SqlValue[]>
  readonly #searchDelete: Database.Statement<[number]>
  readonly #projectInsert: Database.Statement<[number, number, number]>
  readonly #projectDelete: Database.Statement<[number, number]>
  readonly #vanishedBatches: Database.Statement<[number, number, string], number>
  readonly #batchesOfMolecules: Database.Statement<[number, string], number>

  constructor(db: Database.Database) {
    this.#db = db
    this.#searchInsert = db.prepare(
      'INSERT INTO search_index (rowid, name, identifiers, synonyms, content, scope) VALUES (?, ?, ?, ?, ?, ?)',
    )
    this.#searchDelete = db.prepare('DELETE FROM search_index WHERE rowid = ?')
    this.#projectInsert = db.prepare(
      'INSERT OR IGNORE INTO record_projects (kind_code, row_id, project_id) VALUES (?, ?, ?)',
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

  write(
    kind: RecordKind,
    vaultId: number,
    records: readonly unknown[],
    parentId: number | null,
  ): WrittenPage {
    const rejected: RejectedRecord[] = []
    const prepared: PreparedRecord[] = []
    records.forEach((record, index) => {
      const result = prepareRecord(kind, vaultId, record, index, parentId, null)
      if ('reason' in result) rejected.push(result)
      else prepared.push(result)
    })
    const replaced = this.#upsert(kind, vaultId, prepared)
    if (kind.name === 'molecules') this.#writeBatchesOf(vaultId, prepared, replaced, rejected)
    return { stored: prepared.length, rejected }
  }

  /** Deletes the records of a kind (under one parent, when given) whose ids are not listed. */
  retainOnly(
    kind: RecordKind,
    vaultId: number,
    ids: readonly unknown[],
    parentId: number | null,
  ): number {
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
    this.#forget(
      kind,
      rows.map((row) => row.row_id),
    )
    if (kind.name === 'molecules' && rows.length > 0) {
      const moleculeIds = JSON.stringify(rows.map((row) => row.id))
      this.#forget(batches, this.#batchesOfMolecules.all(vaultId, moleculeIds))
    }
    return rows.length
  }

  /** Returns, for every record in order, whether it replaced one already cached. */
  #upsert(kind: RecordKind, vaultId: number, prepared: readonly PreparedRecord[]): boolean[] {
    const statements = this.#statementsFor(kind)
    const existing = new Map<number, number>()
    if (prepared.length > 0) {
      const ids = JSON.stringify(prepared.map((item) => item.id))
      for (const row of statements.existing.all(vaultId, ids)) existing.set(row.id, row.row_id)
    }
    const replaced: boolean[] = []
    for (const item of prepared) {
      let rowId = existing.get(item.id)
      replaced.push(rowId !== undefined)
      if (rowId === undefined) {
        rowId = Number(statements.insert.run(vaultId, item.id, ...item.values).lastInsertRowid)
        existing.set(item.id, rowId)
      } else {
        statements.update.run(...item.values, rowId)
        this.#forget(kind, [rowId])
      }
      // A vault's own record is searched as part of that vault.
      this.#index(kind, kind.name === 'vaults' ? item.id : vaultId, rowId, item.record)
    }
    return replaced
  }

  #writeBatchesOf(
    vaultId: number,
    molecules: readonly PreparedRecord[],
    replaced: readonly boolean[],
    rejected: RejectedRecord[],
  ): void {
    const prepared: PreparedRecord[] = []
    molecules.forEach((molecule, index) => {
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
    this.#upsert(batches, vaultId, prepared)
  }

  #index(kind: RecordKind, vaultId: number, rowId: number, record: JsonObject): void {
    if (kind.searchOf) {
      const columns = searchColumns(kind.searchOf(record), vaultId)
      this.#searchInsert.run(searchRowid(rowId, kind.code), ...columns)
    }
    if (kind.projectsOf) {
      for (const projectId of kind.projectsOf(record)) {
        this.#projectInsert.run(kind.code, rowId, projectId)
      }
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
        insert: this.#db.prepare(
          `INSERT INTO ${kind.table} (vault_id, id, ${columns.join(', ')})
             VALUES (?, ?, ${columns.map(() => '?').join(', ')})`,
        ),
        update: this.#db.prepare(
          `UPDATE ${kind.table} SET ${columns.map((column) => `${column} = ?`).join(', ')}
             WHERE row_id = ?`,
        ),
      }
      this.#statements.set(kind.name, statements)
    }
    return statements
  }
}

/** The columns written for every kind after vault_id and id: common, the kind's own, json. */
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
    values.push(JSON.stringify(record))
  }
  return { id, record, values }
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}
