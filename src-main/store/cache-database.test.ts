import path from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { useTemporaryDirectory } from '../../test/store/fixtures/temporary-directory.ts'
import { configureCache, openCacheDatabase } from './cache-database.ts'

/** SQLite's code for temp_store = MEMORY. */
const inMemory = 2

describe('the settings of a connection to a cache', () => {
  const temporaryDirectory = useTemporaryDirectory()

  it('keeps statement journals in memory, on the main connection and on the writer', () => {
    const file = path.join(temporaryDirectory(), 'cache.db')
    const { db } = openCacheDatabase(file)
    const writer = new Database(file)
    configureCache(writer)
    try {
      expect(db.pragma('temp_store', { simple: true })).toBe(inMemory)
      expect(writer.pragma('temp_store', { simple: true })).toBe(inMemory)
      expect(writer.pragma('journal_mode', { simple: true })).toBe('wal')
    } finally {
      writer.close()
      db.close()
    }
  })
})
