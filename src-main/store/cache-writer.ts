import { Worker } from 'node:worker_threads'
import { AppError } from '../shared/app-error.ts'
import {
  cacheWriterKind,
  type CacheWriterData,
  type CommitAnswer,
  type CommitRequest,
  type Retire,
  type WriterMessage,
} from './cache-writer-protocol.ts'
import cacheWriterPath from './cache-writer-worker.ts?modulePath'
import type { ApplyPageOptions, AppliedPage } from './cache-writes.ts'
import { serialized, WriteBatch, type CacheWriteResult } from './write-batch.ts'

/** Room for the objects of several pages (a page of molecules parses to about 10 MB). */
const youngGenerationMb = 64
/**
 * A writer with nothing to do stops after this long, giving back its memory (its heap and its
 * SQLite page cache, over 100 MB after a large sync); the next batch starts it again (~100 ms).
 */
const settledLifetimeMs = 10_000

interface Waiting {
  resolve(results: CacheWriteResult[]): void
  reject(error: Error): void
}

/**
 * Sync's writes to a cache, committed by a worker thread on its own connection to the file, so
 * that storing a page of a thousand molecules (tens of milliseconds of SQLite) never holds up the
 * main thread. Batches commit one at a time, in the order they were given, each in one
 * transaction; the main thread's connection reads meanwhile (WAL). The worker starts on the first
 * batch, stops a while after it has settled, and is started again by the next batch (or after a
 * failure).
 */
export class CacheWriter {
  readonly #file: string
  readonly #onCommitted: () => void
  readonly #waiting = new Map<number, Waiting>()
  /** Batches are serialized one after the other, so that they reach the worker in order. */
  #sending: Promise<void> = Promise.resolve()
  #worker: Worker | null = null
  #retiring: NodeJS.Timeout | undefined
  /** Workers that have not exited yet, a retiring one included: close() waits for them. */
  readonly #exits = new Set<Promise<void>>()
  #nextId = 1
  #closed = false

  /** `onCommitted` runs on the main thread after every batch that committed. */
  constructor(file: string, onCommitted: () => void) {
    this.#file = file
    this.#onCommitted = onCommitted
  }

  /** Whether its worker is running (it stops a while after it has settled). */
  get running(): boolean {
    return this.#worker !== null
  }

  /**
   * Commits the batch's writes together; answers each write's result in order. Batches commit in
   * the order they were given.
   */
  commit(batch: WriteBatch): Promise<CacheWriteResult[]> {
    return new Promise((resolve, reject) => {
      const send = async () => {
        const writes = await serialized(batch.writes)
        if (this.#closed) throw new AppError('cancelled', `The cache ${this.#file} is closed.`)
        clearTimeout(this.#retiring)
        const worker = this.#started()
        const request: CommitRequest = { id: this.#nextId++, writes }
        this.#waiting.set(request.id, { resolve, reject })
        worker.ref()
        worker.postMessage(request)
      }
      this.#sending = this.#sending.then(send).catch(reject)
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

  /**
   * Stops the worker; a batch it was committing is rolled back, and waiting batches fail. Resolves
   * once every worker has exited, so that their connections to the file are closed.
   */
  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#retiring)
    const worker = this.#worker
    this.#worker = null
    this.#failAll(new AppError('cancelled', `The cache ${this.#file} was closed.`))
    if (worker) await worker.terminate()
    await Promise.all(this.#exits)
  }

  #started(): Worker {
    if (this.#worker) return this.#worker
    const data: CacheWriterData = { kind: cacheWriterKind, file: this.#file }
    const worker = new Worker(cacheWriterPath, {
      workerData: data,
      // A page's parsed records die young: a young generation this large spares promoting them,
      // which took about a fifth of the writer's time.
      resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb },
    })
    worker.unref()
    worker.on('message', (message: WriterMessage) => {
      if ('settled' in message) this.#settled(worker)
      else this.#answered(message)
    })
    worker.on('error', (error) => this.#stopped(worker, error.message))
    const exited = new Promise<void>((resolve) => {
      worker.on('exit', (code) => {
        this.#exits.delete(exited)
        this.#stopped(worker, `it exited with code ${code}`)
        resolve()
      })
    })
    this.#exits.add(exited)
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

  #settled(worker: Worker): void {
    if (this.#worker !== worker || this.#waiting.size > 0) return
    clearTimeout(this.#retiring)
    this.#retiring = setTimeout(() => {
      if (this.#worker !== worker || this.#waiting.size > 0) return
      this.#worker = null
      // It closes its connection and ends; a batch given meanwhile starts another worker.
      worker.postMessage({ retire: true } satisfies Retire)
    }, settledLifetimeMs)
    this.#retiring.unref()
  }

  #stopped(worker: Worker, reason: string): void {
    if (this.#worker !== worker) return
    this.#worker = null
    this.#failAll(
      new AppError('storage', `The writer of the cache ${this.#file} stopped: ${reason}`),
    )
  }

  #failAll(error: AppError): void {
    const waiting = [...this.#waiting.values()]
    this.#waiting.clear()
    for (const { reject } of waiting) reject(error)
  }
}
