import type { MessagePort } from 'node:worker_threads'
import Database from 'better-sqlite3'
import { AppError, type ErrorValue } from '../shared/app-error.ts'
import { configureCache } from './cache-database.ts'
import type { CommitAnswer, CommitRequest, Retire, Settled } from './cache-writer-protocol.ts'
import { CacheWrites } from './cache-writes.ts'
import { IdleSearchMerging } from './search-merging.ts'
import { runWrites } from './write-batch.ts'

/**
 * The cache writer's worker: its own connection to the cache file, committing each batch of
 * writes in one immediate transaction, one batch at a time, in the order they came, and merging
 * the search index when it has nothing else to do; then it says it has settled.
 */
export function runCacheWriter(port: MessagePort, file: string): void {
  const db = new Database(file, { fileMustExist: true })
  configureCache(db)
  const writes = new CacheWrites(db)
  const merging = new IdleSearchMerging(db, () => port.postMessage({ settled: true } as Settled))
  const commit = db.transaction((request: CommitRequest) => runWrites(writes, request.writes))
  port.on('message', (request: CommitRequest | Retire) => {
    merging.busy()
    if ('retire' in request) {
      db.close()
      port.close()
      return
    }
    let answer: CommitAnswer
    try {
      answer = { id: request.id, results: commit.immediate(request) }
    } catch (error) {
      answer = { id: request.id, error: errorValueOf(error) }
    }
    port.postMessage(answer)
    merging.idle()
  })
  merging.idle()
}

function errorValueOf(error: unknown): ErrorValue {
  if (error instanceof AppError) return error.toValue()
  const message = error instanceof Error ? error.message : String(error)
  return { code: 'storage', message: `Cannot write the cache: ${message}` }
}
