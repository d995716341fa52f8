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

export type CommitAnswer =
  | { id: number; results: CacheWriteResult[] }
  | { id: number; error: ErrorValue }
