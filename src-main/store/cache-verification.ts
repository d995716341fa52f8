import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/**
 * `PRAGMA quick_check` reads every page: seconds for a large cache (bench/README.md). It
 * runs in a worker thread on its own read-only connection, so the main process keeps answering
 * from the cache meanwhile (WAL lets readers and the writer work side by side).
 */
const checkInWorker = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
let db
try {
  db = new Database(workerData.file, { readonly: true, fileMustExist: true })
  const rows = db.pragma('quick_check')
  parentPort.postMessage({ problems: rows.map((row) => row.quick_check).filter((row) => row !== 'ok') })
} catch (error) {
  parentPort.postMessage({ failure: { message: error.message, code: error.code } })
} finally {
  if (db) db.close()
}
`

export type CacheVerdict =
  | { sound: true }
  | { sound: false; details: string }
  /** The check itself could not run (file gone, locked): says nothing about the cache. */
  | { sound: null; details: string }

/** Checks every page of a cache file without blocking the calling thread. */
export function verifyCacheFile(file: string): Promise<CacheVerdict> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  return new Promise((resolve) => {
    const worker = new Worker(checkInWorker, { eval: true, workerData: { file, driver } })
    worker.once('message', (message: WorkerAnswer) => {
      if ('problems' in message) {
        resolve(
          message.problems.length === 0
            ? { sound: true }
            : { sound: false, details: message.problems.slice(0, 5).join('; ') },
        )
      } else if (
        message.failure.code === 'SQLITE_CORRUPT' ||
        message.failure.code === 'SQLITE_NOTADB'
      ) {
        resolve({ sound: false, details: message.failure.message })
      } else {
        resolve({ sound: null, details: message.failure.message })
      }
    })
    worker.once('error', (error) => resolve({ sound: null, details: error.message }))
  })
}

type WorkerAnswer = { problems: string[] } | { failure: { message: string; code?: string } }
