import { Worker } from 'node:worker_threads'
import { AppError } from '../shared/app-error.ts'
import {
  cacheWriterKind,
  type CacheWriterData,
  type CommitAnswer,
  type CommitRequest,
} from './cache-writer-protocol.ts'
import cacheWriterPath from './cache-writer-worker.ts?modulePath'
import type { ApplyPageOptions, AppliedPage } from './cache-writes.ts'
import { WriteBatch, type CacheWriteResult } from './write-batch.ts'

interface Waiting {
  resolve(results: CacheWriteResult[]): void
  reject(error: Error): void
}

/**
 * Sync's writes to a cache, committed by a worker thread on its own connection to the file, so
 * that storing a page of a thousand molecules (tens of milliseconds of SQLite) never holds up the
 * main thread. Batches commit one at a time, in the order they were given, each in one
 * transaction; the main thread's connection reads meanwhile (WAL). The worker starts on the first
 * batch and is restarted after a failure.
 */
export class CacheWriter {
  readonly #file: string
  readonly #onCommitted: () => void
  readonly #waiting = new Map<number, Waiting>()
  #worker: Worker | null = null
  #nextId = 1
  #closed = false

  /** `onCommitted` runs on the main thread after every batch that committed. */
  constructor(file: string, onCommitted: () => void) {
    this.#file = file
    this.#onCommitted = onCommitted
  }

  /** Commits the batch's writes together; answers each write's result in order. */
  commit(batch: WriteBatch): Promise<CacheWriteResult[]> {
    if (this.#closed) {
      return Promise.reject(new AppError('cancelled', `The cache ${this.#file} is closed.`))
    }
    const worker = this.#started()
    const request: CommitRequest = { id: this.#nextId++, writes: batch.writes }
    return new Promise((resolve, reject) => {
      this.#waiting.set(request.id, { resolve, reject })
      worker.ref()
      worker.postMessage(request)
    })
  }

  async applyPage(
    kind: string,
    vaultId: number | string,
    records: readonly unknown[],
    options: ApplyPageOptions = {},
  ): Promise<AppliedPage> {
    const [applied] = await this.commit(new WriteBatch().applyPage(kind, vaultId, records, options))
    return applied as AppliedPage
  }

  /** Stops the worker; a batch it was committing is rolled back, and waiting batches fail. */
  close(): void {
    this.#closed = true
    const worker = this.#worker
    this.#worker = null
    void worker?.terminate()
    this.#failAll(new AppError('cancelled', `The cache ${this.#file} was closed.`))
  }

  #started(): Worker {
    if (this.#worker) return this.#worker
    const data: CacheWriterData = { kind: cacheWriterKind, file: this.#file }
    const worker = new Worker(cacheWriterPath, { workerData: data })
    worker.unref()
    worker.on('message', (answer: CommitAnswer) => this.#answered(answer))
    worker.on('error', (error) => this.#stopped(worker, error.message))
    worker.on('exit', (code) => this.#stopped(worker, `it exited with code ${code}`))
    this.#worker = worker
    return worker
  }

  #answered(answer: CommitAnswer): void {
    const waiting = this.#waiting.get(answer.id)
    this.#waiting.delete(answer.id)
    if (this.#waiting.size === 0) this.#worker?.unref()
    if ('error' in answer) {
      waiting?.reject(new AppError(answer.error.code, answer.error.message))
      return
    }
    this.#onCommitted()
    waiting?.resolve(answer.results)
  }

  #stopped(worker: Worker, reason: string): void {
    if (this.#worker !== worker) return
    this.#worker = null
    this.#failAll(new AppError('storage', `The writer of the cache ${this.#file} stopped: ${reason}`))
  }

  #failAll(error: AppError): void {
    const waiting = [...this.#waiting.values()]
    this.#waiting.clear()
    for (const { reject } of waiting) reject(error)
  }
}
