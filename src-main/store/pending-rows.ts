import type Database from 'better-sqlite3'
import type { PendingMark } from '../../src-common/records/record-row.ts'
import { distinct, type JsonObject } from '../../src-common/values.ts'
import { columnValues, type RecordKind } from './record-kinds.ts'
import { searchColumns, searchTokenizer } from './search-text.ts'

/** A record changed or created in the outbox, as a list of its kind should show it. */
export interface PendingInput {
  /** The server id; null for a record created offline. */
  id: number | null
  /** The cached record with the pending changes applied (a new record: the record itself). */
  json: JsonObject
  mark: PendingMark
}

/** The temporary tables the pending records of one list are staged in. */
export interface StagedTables {
  rows: string
  projects: string
  search: string
}

/**
 * Stages the records waiting in the outbox in temporary tables shaped as the cache's own, their
 * columns read by the kind's declared readers, their projects and their search documents in an
 * index with the cache's tokenizer. A list then asks them the very question it asks the cache
 * (the same WHERE clause), so that a record waiting to be sent is found, filtered and sorted
 * exactly as it will be once the vault has it. Temporary tables belong to this connection alone
 * and never touch the cache file.
 */
export class PendingStage {
  readonly #db: Database.Database
  readonly #created = new Set<string>()

  constructor(db: Database.Database) {
    this.#db = db
  }

  /** Replaces what is staged for the kind by `pending`; row_id n is `pending[n - 1]`. */
  stage(kind: RecordKind, vaultId: number, pending: readonly PendingInput[]): StagedTables {
    const tables = this.#tables(kind)
    const columns = [
      'row_id',
      'vault_id',
      'id',
      'name',
      'created_at',
      'modified_at',
      ...kind.columns.map((column) => column.column),
      'json',
    ]
    const insertRow = this.#db.prepare(
      `INSERT INTO ${tables.rows} (${columns.join(', ')})
         VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
    )
    const insertProject = this.#db.prepare(
      `INSERT INTO ${tables.projects} (row_id, project_id) VALUES (?, ?)`,
    )
    const insertSearch = this.#db.prepare(
      `INSERT INTO ${tables.search} (rowid, name, identifiers, synonyms, content)
         VALUES (?, ?, ?, ?, ?)`,
    )
    this.#db.transaction(() => {
      this.#db.exec(
        `DELETE FROM ${tables.rows}; DELETE FROM ${tables.projects}; DELETE FROM ${tables.search};`,
      )
      pending.forEach(({ id, json }, index) => {
        const rowId = index + 1
        insertRow.run({
          ...columnValues(kind, json),
          row_id: rowId,
          vault_id: vaultId,
          id,
          json: JSON.stringify(json),
        })
        for (const projectId of distinct(kind.projectsOf?.(json) ?? [])) {
          insertProject.run(rowId, projectId)
        }
        if (kind.searchOf) insertSearch.run(rowId, ...searchColumns(kind.searchOf(json)))
      })
    })()
    return tables
  }

  #tables(kind: RecordKind): StagedTables {
    const tables = {
      rows: `temp.pending_${kind.table}`,
      projects: `temp.pending_${kind.table}_projects`,
      search: `temp.pending_${kind.table}_search`,
    }
    if (!this.#created.has(kind.table)) {
      // Shaped by the cache's own table, so that every column the list's SQL names exists.
      this.#db.exec(`
        CREATE TEMP TABLE IF NOT EXISTS pending_${kind.table} AS SELECT * FROM main.${kind.table} WHERE 0;
        CREATE TEMP TABLE IF NOT EXISTS pending_${kind.table}_projects (row_id INTEGER, project_id INTEGER);
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.pending_${kind.table}_search USING fts5(
          name, identifiers, synonyms, content,
          tokenize = "${searchTokenizer}"
        );
      `)
      this.#created.add(kind.table)
    }
    return tables
  }
}
