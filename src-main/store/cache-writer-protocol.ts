import type { ErrorValue } from '../shared/app-error.ts'
import type { CacheWrite, CacheWriteResult } from './write-batch.ts'

/** Marks the workerData of a cache writer, so that its entry file runs only as one. */
export const cacheWriterKind = 'vault-desk-cache-writer'

export interface CacheWriterData {
  kind: typeof cacheWriterKind
  /** The cache file; the main thread has opened (and migrated) it first. */
  file: string
}

/**
 * A batch crosses in several messages with the same id, the writes of each appended to the
 * last's; the worker commits it once the last (`final`) came, or drops what came when it is
 * `abandoned` (the sender could not finish it).
 */
export interface CommitRequest {
  id: number
  writes: CacheWrite[]
  final: boolean
  abandoned?: true
  /**
   * A batch sent before this one to the same worker that must have committed for this one to
   * commit: when it failed, this one fails too, unwritten (a sync pass hands its next page over
   * before the last is committed, and must not store a page after one that was not).
   */
  after?: number
}

/**
 * The main thread's writes have grown the WAL, which its connection never checkpoints: the worker
 * checkpoints it in its next idle moment (wal-checkpoints.ts).
 */
export interface Tidy {
  tidy: true
}

/** Closes the worker's connection, which ends the worker (the main thread has nothing waiting). */
export interface Retire {
  retire: true
}

export type CommitAnswer =
  { id: number; results: CacheWriteResult[] } | { id: number; error: ErrorValue }

/** The worker has nothing left to do (its commits answered, the search index merged). */
export interface Settled {
  settled: true
}

export type WriterMessage = CommitAnswer | Settled
