/**
 * One of several processes opening the same new database at the same moment (a first start of
 * the app and the CLI together). `steps` opens a test database whose steps log who applied them;
 * `real` opens an outbox and a cache with their real openers; `declared` opens an existing cache
 * whose record tables of some kinds are missing. Prints `ok`, or the error.
 */
import { openCacheDatabase } from '../../src-main/store/cache-database.ts'
import type { Migration } from '../../src-main/store/migrations.ts'
import { openDatabase } from '../../src-main/store/sqlite.ts'
import { openOutboxDatabase } from '../../src-main/sync/outbox/outbox-database.ts'

const [mode, folder, startAt] = process.argv.slice(2)

const loggedSteps: Migration[] = [
  (db) => {
    db.exec('CREATE TABLE steps (step INTEGER NOT NULL, pid INTEGER NOT NULL)')
    db.prepare('INSERT INTO steps VALUES (1, ?)').run(process.pid)
  },
  // Long enough that the others arrive while it runs.
  (db) => {
    db.exec(`CREATE TABLE filler AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
      WHERE i < 60000) SELECT i, hex(randomblob(16)) AS text FROM n`)
    db.prepare('INSERT INTO steps VALUES (2, ?)').run(process.pid)
  },
  (db) => db.prepare('INSERT INTO steps VALUES (3, ?)').run(process.pid),
]

// All start together: each sleeps until the same instant.
const pause = Number(startAt) - Date.now()
if (pause > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause)
try {
  if (mode === 'steps') {
    openDatabase(`${folder}/steps.db`, loggedSteps, 'the test database').close()
  } else if (mode === 'declared') {
    openCacheDatabase(`${folder}/caches/cache.db`).db.close()
  } else {
    openOutboxDatabase(`${folder}/outbox.db`).close()
    openCacheDatabase(`${folder}/caches/cache.db`).db.close()
  }
  process.stdout.write('ok\n')
} catch (error) {
  process.stdout.write(`${(error as Error).message}\n`)
  process.exitCode = 1
}
