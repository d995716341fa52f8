import path from 'node:path'
import type Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { moleculeRecords } from '../../test/store/fixtures/molecule-records.ts'
import { useTemporaryDirectory } from '../../test/store/fixtures/temporary-directory.ts'
import { openCacheDatabase } from './cache-database.ts'
import { recordKind } from './record-kinds.ts'
import { PageBuilder, type PreparedPage } from './record-rows.ts'
import { RecordWriter } from './record-writer.ts'

function prepared(records: readonly unknown[]): PreparedPage {
  const builder = new PageBuilder(recordKind('molecules'), 1, null)
  for (const record of records) builder.add(record)
  return builder.finish()
}

describe('the record writer after a page that failed midway', () => {
  const temporaryDirectory = useTemporaryDirectory()
  let db: Database.Database | undefined
  afterEach(() => db?.close())

  // A full disk, as SQLite's page limit makes it: the page fails at whichever statement first
  // needs a page more, with rows given to a multi-row INSERT and not run yet. With these fixtures
  // that is the molecules' INSERT, the molecules after its last full run, and the project links.
  it.each([2, 60, 80])(
    'writes the next page as it is, with nothing of the failed one (%i pages left)',
    (pagesLeft) => {
      db = openCacheDatabase(path.join(temporaryDirectory(), 'cache.db')).db
      const writer = new RecordWriter(db)
      const write = db.transaction((page: PreparedPage) => writer.write(page))
      write(prepared(moleculeRecords(10)))
      const pageCount = db.pragma('page_count', { simple: true }) as number
      db.pragma(`max_page_count = ${pageCount + pagesLeft}`)
      expect(() => write(prepared(moleculeRecords(300, 11)))).toThrow(/full/)

      db.pragma(`max_page_count = ${2 ** 30}`)
      write(prepared(moleculeRecords(40, 400)))
      const ids = db.prepare('SELECT id FROM molecules ORDER BY id').pluck().all()
      expect(ids).toEqual([
        ...moleculeRecords(10).map((record) => record.id),
        ...moleculeRecords(40, 400).map((record) => record.id),
      ])
      const batchMolecules = db
        .prepare('SELECT DISTINCT molecule_id FROM batches ORDER BY molecule_id')
        .pluck()
        .all()
      expect(batchMolecules).toEqual(ids)
      const linked = db
        .prepare('SELECT count(DISTINCT row_id) FROM record_projects WHERE kind_code = 7')
        .pluck()
        .get()
      expect(linked).toBe(ids.length)
    },
  )
})
