/**
 * Record kinds are declared once (src-common/records/kinds/); the cache's released migrations keep
 * frozen copies of the tables they made. These tests hold the two equal, so that a declaration can
 * never drift from the tables a cache really has, and show that a kind declared after the last
 * migration gets its table when a cache opens.
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { kindDeclarations } from '../../src-common/records/record-kinds.ts'
import { openCacheDatabase } from '../../src-main/store/cache-database.ts'
import { createDeclaredTables, recordTableSql } from '../../src-main/store/record-tables.ts'
import { searchTokenizer } from '../../src-main/store/search-text.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

/** SQL with its whitespace collapsed, so that the frozen text and the derived one compare. */
const normalized = (sql: string) =>
  sql.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').replace(/ ,/g, ',').trim()

describe('declared record tables', () => {
  const temporaryDirectory = useTemporaryDirectory()

  it('are exactly the tables and indexes the released migrations make', () => {
    const { db } = openCacheDatabase(path.join(temporaryDirectory(), 'cache.db'))
    try {
      for (const kind of kindDeclarations) {
        const stored = db
          .prepare(
            `SELECT sql FROM sqlite_schema WHERE tbl_name = ? AND type IN ('table', 'index') AND sql IS NOT NULL`,
          )
          .pluck()
          .all(kind.name) as string[]
        expect(stored.map(normalized).sort(), kind.name).toEqual(
          recordTableSql(kind).map(normalized).sort(),
        )
      }
    } finally {
      db.close()
    }
  })

  it('searches with the tokenizer the search index was made with', () => {
    const { db } = openCacheDatabase(path.join(temporaryDirectory(), 'cache.db'))
    try {
      const sql = db
        .prepare(`SELECT sql FROM sqlite_schema WHERE name = 'search_index'`)
        .pluck()
        .get() as string
      expect(sql).toContain(`tokenize = "${searchTokenizer}"`)
    } finally {
      db.close()
    }
  })

  it('are made when a cache opens without one (a kind declared after the last migration)', () => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    openCacheDatabase(file).db.close()
    const bare = new Database(file)
    bare.exec('DROP TABLE slurps')
    bare.close()
    const { db } = openCacheDatabase(file)
    try {
      const columns = db.prepare('PRAGMA table_info(slurps)').all() as { name: string }[]
      expect(columns.map((column) => column.name)).toEqual([
        'row_id',
        'vault_id',
        'id',
        'name',
        'created_at',
        'modified_at',
        'status',
        'owner',
        'project_id',
        'json',
      ])
      expect(createDeclaredTables(db)).toEqual([])
    } finally {
      db.close()
    }
  })
})
