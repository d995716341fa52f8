import type { MessagePort } from 'node:worker_threads'
import Database from 'better-sqlite3'
import { AppError, type ErrorValue } from '../shared/app-error.ts'
import { IdleBackfills } from './cache-backfills.ts'
import { configureCache } from './cache-database.ts'
import type { CommitAnswer, CommitRequest, Retire, Settled, Tidy } from './cache-writer-protocol.ts'
import type { CacheWrite } from './write-batch.ts'
import { CacheWrites } from './cache-writes.ts'
import { IdleReadoutIndexing } from './readout-index.ts'
import { IdleSearchMerging } from './search-merging.ts'
import { checkpointIdle, deferCheckpoints } from './wal-checkpoints.ts'
import { runWrites } from './write-batch.ts'

/**
 * The cache writer's worker: its own connection to the cache file, committing each batch of
 * writes in one immediate transaction, one batch at a time, in the order they came, and, when it
 * has nothing else to do, filling what cache steps left to fill (cache-backfills.ts), merging the
 * search index and checkpointing the WAL (wal-checkpoints.ts); then it says it has settled.
 */
export function runCacheWriter(port: MessagePort, file: string): void {
  const db = new Database(file, { fileMustExist: true })
  configureCache(db)
  deferCheckpoints(db)
  const writes = new CacheWrites(db)
  // The writer has settled once readouts are indexed, backfills done and the search index merged.
  const settledWork = { indexing: false, backfilling: false, merging: false }
  const settle = (work: keyof typeof settledWork) => {
    settledWork[work] = true
    if (!Object.values(settledWork).every(Boolean)) return
    checkpointIdle(db)
    port.postMessage({ settled: true } as Settled)
  }
  const indexing = new IdleReadoutIndexing(db, () => settle('indexing'))
  const backfilling = new IdleBackfills(db, () => settle('backfilling'))
  const merging = new IdleSearchMerging(db, () => settle('merging'))
  const idle = () => {
    indexing.idle()
    backfilling.idle()
    merging.idle()
  }
  const busy = () => {
    settledWork.indexing = settledWork.backfilling = settledWork.merging = false
    indexing.busy()
    backfilling.busy()
    merging.busy()
  }
  const commit = db.transaction((request: CommitRequest) => runWrites(writes, request.writes))
  /** Batches that failed, which later batches may depend on (see CommitRequest.after). */
  const failed = new Set<number>()
  /** The writes of batches whose last part has not come yet. */
  const partial = new Map<number, CacheWrite[]>()
  port.on('message', (message: CommitRequest | Retire | Tidy) => {
    if ('tidy' in message) {
      merging.wake()
      return
    }
    busy()
    if ('retire' in message) {
      db.close()
      port.close()
      return
    }
    let writes = partial.get(message.id)
    if (writes) writes.push(...message.writes)
    else writes = message.writes
    if (!message.final && !message.abandoned) {
      partial.set(message.id, writes)
      return
    }
    partial.delete(message.id)
    if (message.abandoned) {
      idle()
      return
    }
    const request = { ...message, writes }
    let answer: CommitAnswer
    if (request.after !== undefined && failed.has(request.after)) {
      answer = {
        id: request.id,
        error: {
          code: 'cancelled',
          message: 'Not written: a write it follows was not stored.',
        },
      }
    } else {
      try {
        answer = { id: request.id, results: commit.immediate(request) }
      } catch (error) {
        answer = { id: request.id, error: errorValueOf(error) }
      }
    }
    if ('error' in answer) {
      failed.add(request.id)
      // Batches name one sent just before them: the last few failures are plenty.
      if (failed.size > 64) failed.delete(failed.values().next().value!)
    }
    port.postMessage(answer)
    idle()
  })
  idle()
}

function errorValueOf(error: unknown): ErrorValue {
  if (error instanceof AppError) return error.toValue()
  const message = error instanceof Error ? error.message : String(error)
  return { code: 'storage', message: `Cannot write the cache: ${message}` }
}
