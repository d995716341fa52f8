import { Worker } from 'node:worker_threads'
import { AppError } from '../shared/app-error.ts'
import {
  cacheWriterKind,
  type CacheWriterData,
  type CommitAnswer,
  type CommitRequest,
  type Retire,
  type Tidy,
  type WriterMessage,
} from './cache-writer-protocol.ts'
import cacheWriterPath from './cache-writer-worker.ts?modulePath'
import type { ApplyPageOptions, AppliedPage } from './cache-writes.ts'
import type { PageDraft, PartSink } from './page-draft.ts'
import type { PreparedPage } from './record-rows.ts'
import {
  serializedParts,
  WriteBatch,
  type CacheWrite,
  type CacheWriteResult,
} from './write-batch.ts'

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

/** A batch as the writer tracks it, for batches that name it as the one they follow. */
interface Tracked {
  /** Its request id once sent, and the worker it was sent to. */
  id: number
  worker: Worker | null
  state: 'unsent' | 'sent' | 'committed' | 'failed'
}

export interface CommitOptions {
  /**
   * A commit (a promise this writer answered for an earlier batch) that must succeed for this
   * batch to be written: if it failed, this batch fails too (`cancelled`) and writes nothing. So
   * a sync pass may hand its next page over while the last one commits, the worker never idle
   * while the main thread makes the next page ready, and still never store a page after one that
   * was not stored.
   */
  after?: Promise<unknown>
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
  /** Pages whose parts went ahead to the worker and that are neither committed nor dropped. */
  #pagesAhead = 0
  /** Commits answered, by their promise, for CommitOptions.after. */
  readonly #tracked = new WeakMap<Promise<unknown>, Tracked>()

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
   * Starts the worker for batches about to come, so that the first does not wait while it loads
   * (about a tenth of a second); one that gets no batch stops again a while after it settled.
   */
  warmUp(): void {
    if (!this.#closed) this.#started()
  }

  /**
   * Where a PageDraft's parts go to be sent to the worker as each is made, ahead of the page's
   * commit (applyDraft), which then sends only the rest: held on the main thread until the page
   * was whole, a page's parts would live through young-generation collections, each of which
   * copies them (commit 6a0904f). The worker keeps them until the page comes.
   */
  partSink(): PartSink {
    return new PartsSentAhead(this, {
      reserve: () => {
        if (this.#closed) return null
        clearTimeout(this.#retiring)
        this.#pagesAhead++
        return { id: this.#nextId++, worker: this.#started() }
      },
      running: () => this.#worker,
      // The worker says it has settled once it has committed or dropped the page (then it may stop).
      ended: () => this.#pagesAhead--,
    })
  }

  /**
   * The main thread's writes have grown the WAL: the worker (started if need be) checkpoints it
   * once idle, since the main thread's connection never does (wal-checkpoints.ts).
   */
  tidy(): void {
    if (this.#closed) return
    if (this.#worker) this.#worker.postMessage({ tidy: true } satisfies Tidy)
    // A worker that starts looks at the index and the WAL once idle, then stops again.
    else this.#started()
  }

  /**
   * Commits the batch's writes together; answers each write's result in order. Batches commit in
   * the order they were given; with `after`, only if that earlier commit succeeded.
   */
  commit(batch: WriteBatch, options: CommitOptions = {}): Promise<CacheWriteResult[]> {
    const tracked: Tracked = { id: 0, worker: null, state: 'unsent' }
    let settle!: Waiting
    const promise = new Promise<CacheWriteResult[]>((resolve, reject) => {
      settle = settlement(tracked, resolve, reject)
    })
    // Bound, not a closure here: what waits for the answer must not hold the batch (see send).
    const send = this.#send.bind(this, batch, options, tracked, settle)
    this.#sending = this.#sending.then(send).catch(settle.reject)
    this.#tracked.set(promise, tracked)
    return promise
  }

  /**
   * Settles once every batch given so far has crossed to the worker (or failed to): its writes
   * then wait there, not on the main thread.
   */
  sent(): Promise<void> {
    return this.#sending
  }

  /** Commits one page (see WriteBatch.applyPage); `options.after` as for commit. */
  applyPage(
    kind: string,
    vaultId: number | string,
    records: readonly unknown[],
    options: ApplyPageOptions = {},
    commitOptions: CommitOptions = {},
  ): Promise<AppliedPage> {
    return this.#applied(
      this.commit(new WriteBatch().applyPage(kind, vaultId, records, options), commitOptions),
    )
  }

  /** Commits a page made ready as its records came (see PageDraft); as applyPage otherwise. */
  applyDraft(
    draft: PageDraft,
    options: Omit<ApplyPageOptions, 'parentId' | 'texts'> = {},
    commitOptions: CommitOptions = {},
  ): Promise<AppliedPage> {
    return this.#applied(this.commit(new WriteBatch().applyDraft(draft, options), commitOptions))
  }

  /** The AppliedPage of a batch of one page, standing for the same commit as an `after`. */
  #applied(committed: Promise<CacheWriteResult[]>): Promise<AppliedPage> {
    const applied = committed.then(([result]) => result as AppliedPage)
    // It stands for the same commit, as an `after` of later batches.
    const tracked = this.#tracked.get(committed)
    if (tracked) this.#tracked.set(applied, tracked)
    return applied
  }

  /**
   * Sends a batch to the worker a part at a time. The batch is held only while it is sent: its
   * records die young, instead of living (and being promoted to the old generation, then
   * collected by full GCs) until the worker commits the pages handed over before them.
   */
  async #send(
    batch: WriteBatch,
    options: CommitOptions,
    tracked: Tracked,
    settle: Waiting,
  ): Promise<void> {
    const { sentAhead } = batch
    if (
      sentAhead !== undefined &&
      !(sentAhead instanceof PartsSentAhead && sentAhead.owner === this)
    ) {
      throw new AppError('internal', 'The parts of this page went ahead to another writer.')
    }
    let id: number
    let worker: Worker
    let parts: AsyncGenerator<CacheWrite[]>
    let next: IteratorResult<CacheWrite[]>
    const after = options.after ? this.#tracked.get(options.after) : undefined
    try {
      parts = serializedParts(batch.writes)
      // The first part is made before anything is sent: a batch that cannot cross fails here.
      next = await parts.next()
      if (this.#closed) throw new AppError('cancelled', `The cache ${this.#file} is closed.`)
      if (after?.state === 'failed' || after?.state === 'unsent') {
        throw new AppError('cancelled', 'Not written: a write it follows was not stored.')
      }
      clearTimeout(this.#retiring)
      worker = this.#started()
      if (after?.state === 'sent' && after.worker !== worker) {
        // Sent before this one to a worker that stopped since (and failed it).
        throw new AppError('cancelled', 'Not written: a write it follows was not stored.')
      }
      id = sentAhead?.claim(worker) ?? this.#nextId++
    } catch (error) {
      sentAhead?.drop()
      throw error
    }
    tracked.id = id
    tracked.worker = worker
    tracked.state = 'sent'
    this.#waiting.set(id, settle)
    worker.ref()
    try {
      // Each part crosses as it is made: the clone of a whole page held the thread too long.
      for (;;) {
        const writes = next.done ? [] : next.value
        if (!next.done) next = await parts.next()
        const request: CommitRequest = { id, writes, final: next.done === true }
        // The worker knows whether that one committed (it may have failed meanwhile).
        if (request.final && after && after.worker === worker) request.after = after.id
        worker.postMessage(request)
        if (request.final) break
      }
    } catch (error) {
      worker.postMessage(abandoned(id))
      this.#waiting.delete(id)
      throw error
    }
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
      // a large share of the writer's time otherwise (bench/README.md).
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
    if (this.#worker !== worker || this.#busy) return
    clearTimeout(this.#retiring)
    this.#retiring = setTimeout(() => {
      if (this.#worker !== worker || this.#busy) return
      this.#worker = null
      // It closes its connection and ends; a batch given meanwhile starts another worker.
      worker.postMessage({ retire: true } satisfies Retire)
    }, settledLifetimeMs)
    this.#retiring.unref()
  }

  /** Batches wait for the worker, or pages have parts there already. */
  get #busy(): boolean {
    return this.#waiting.size > 0 || this.#pagesAhead > 0
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

/** The callbacks that settle a commit, recording its outcome for batches that follow it. */
function settlement(
  tracked: Tracked,
  resolve: (results: CacheWriteResult[]) => void,
  reject: (error: Error) => void,
): Waiting {
  return {
    resolve: (results) => {
      tracked.state = 'committed'
      resolve(results)
    },
    reject: (error) => {
      tracked.state = 'failed'
      reject(error)
    },
  }
}

/** Tells the worker to drop what came of batch `id`: the rest of it will not come. */
function abandoned(id: number): CommitRequest {
  return { id, writes: [], final: true, abandoned: true }
}

interface AheadOfPages {
  /** A batch id and the worker for a page's parts; null once the writer is closed. */
  reserve(): { id: number; worker: Worker } | null
  /** The worker running now, if any. */
  running(): Worker | null
  /** The page was committed or dropped. */
  ended(): void
}

/**
 * The parts of one page sent to the worker as they are made, as the first messages of the batch
 * that will commit the page (under the id reserved with the first part): the worker keeps them
 * until the rest comes, or drops them when the batch is abandoned. Parts are lost with the worker
 * that took them, should it stop before the page is committed: the commit then fails.
 */
class PartsSentAhead implements PartSink {
  /** The writer whose worker takes the parts: only its batches may commit them. */
  readonly owner: CacheWriter
  readonly #writer: AheadOfPages
  #reserved: { id: number; worker: Worker } | null = null
  #ended = false

  constructor(owner: CacheWriter, writer: AheadOfPages) {
    this.owner = owner
    this.#writer = writer
  }

  take(part: PreparedPage): void {
    if (this.#ended) return
    this.#reserved ??= this.#writer.reserve()
    const reserved = this.#reserved
    if (!reserved || this.#writer.running() !== reserved.worker) return
    reserved.worker.postMessage({
      id: reserved.id,
      writes: [{ type: 'page', page: part, options: {}, continues: true }],
      final: false,
    } satisfies CommitRequest)
  }

  drop(): void {
    if (this.#ended) return
    this.#ended = true
    const reserved = this.#reserved
    if (!reserved) return
    if (this.#writer.running() === reserved.worker) {
      reserved.worker.postMessage(abandoned(reserved.id))
    }
    this.#writer.ended()
  }

  /**
   * The page is being committed by `worker`: answers the batch id its parts went under (undefined
   * when none went), or throws when they went to a worker that has stopped since.
   */
  claim(worker: Worker): number | undefined {
    if (this.#ended) throw new AppError('internal', 'This page was committed or dropped already.')
    this.#ended = true
    const reserved = this.#reserved
    if (!reserved) return undefined
    this.#writer.ended()
    if (reserved.worker !== worker) {
      throw new AppError(
        'storage',
        'Not written: the cache writer stopped while the page was being handed to it.',
      )
    }
    return reserved.id
  }
}
