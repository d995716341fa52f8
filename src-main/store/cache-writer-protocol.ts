import type { ErrorValue } from '../shared/app-error.ts'
import type { CacheWrite, CacheWriteResult } from './write-batch.ts'

/** Marks the workerData of a cache writer, so that its entry file runs only as one. */
export const cacheWriterKind = 'vault-desk-cache-writer'

export interface CacheWriterData {
  kind: typeof cacheWriterKind
  /** The cache file; the main thread has opened (and migrated) it first. */
  file: string
}

export interface CommitRequest {
  id: number
  writes: CacheWrite[]
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
