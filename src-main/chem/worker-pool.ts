/**
 * The chemistry worker threads, so that RDKit never runs on the main thread. Tasks queue until a
 * worker is free; each may report progress and be cancelled. A worker that dies (a WebAssembly
 * trap, out of memory) fails only the task it was running and is replaced; the indexes attached to
 * the pool are attached to its replacement too.
 */
import os from 'node:os'
import { Worker, type ResourceLimits } from 'node:worker_threads'
import { AppError } from '../shared/app-error.ts'
import { silentLogger, type Logger } from '../shared/logger.ts'
import chemWorkerPath from './chem-worker.ts?modulePath'
import { maximumWorkers } from './fingerprint-layout.ts'
import type { IndexBufferHandles } from './index-buffers.ts'
import {
  chemWorkerKind,
  type ChemTask,
  type ChemTaskKind,
  type ChemTaskProgress,
  type ChemTaskResult,
  type ChemWorkerData,
  type MainToWorker,
  type WorkerToMain,
} from './worker-protocol.ts'

export interface ChemWorkerPoolOptions {
  /** Worker threads to run; by default one per core the OS offers, at most 16. */
  size?: number
  /** The worker entry file; by default chem-worker.ts (or its bundled copy). */
  workerPath?: string
  /** Bounds on each worker's JavaScript heap; RDKit's WebAssembly memory is not counted. */
  resourceLimits?: ResourceLimits
  logger?: Logger
}

export interface RunOptions<K extends ChemTaskKind> {
  signal?: AbortSignal
  onProgress?: (progress: ChemTaskProgress<K>) => void
}

interface QueuedTask {
  taskId: number
  task: ChemTask
  cancelFlag: Int32Array
  onProgress: ((progress: never) => void) | undefined
  resolve(value: unknown): void
  reject(error: Error): void
  /** True once the caller has its answer (or was told it is cancelled). */
  settled: boolean
  detachAbort(): void
}

interface WorkerSlot {
  readonly index: number
  worker: Worker | null
  ready: boolean
  running: QueuedTask | null
  /** Why the worker last failed, for the message of the task it was running. */
  failure: string | null
  failedStarts: number
}

const closeGraceMs = 2000
const startAttempts = 3

export class ChemWorkerPool {
  readonly size: number
  readonly #workerPath: string
  readonly #resourceLimits: ResourceLimits | undefined
  readonly #log: Logger
  readonly #slots: WorkerSlot[]
  readonly #queue: QueuedTask[] = []
  readonly #indexes = new Map<string, IndexBufferHandles>()
  #nextTaskId = 1
  #closed = false

  constructor(options: ChemWorkerPoolOptions = {}) {
    const size = options.size ?? Math.min(maximumWorkers, os.availableParallelism())
    if (!Number.isInteger(size) || size < 1 || size > maximumWorkers) {
      throw new AppError(
        'invalid_argument',
        `The chemistry worker pool size must be a whole number from 1 to ${maximumWorkers}, not ${size}.`,
      )
    }
    this.size = size
    this.#workerPath = options.workerPath ?? chemWorkerPath
    this.#resourceLimits = options.resourceLimits
    this.#log = (options.logger ?? silentLogger).child({ component: 'chem-workers' })
    this.#slots = Array.from({ length: size }, (_, index) => ({
      index,
      worker: null,
      ready: false,
      running: null,
      failure: null,
      failedStarts: 0,
    }))
  }

  run<K extends ChemTaskKind>(
    task: ChemTask<K>,
    options: RunOptions<K> = {},
  ): Promise<ChemTaskResult<K>> {
    if (this.#closed) {
      return Promise.reject(new AppError('cancelled', 'The chemistry workers have shut down.'))
    }
    const { signal } = options
    if (signal?.aborted) {
      return Promise.reject(new AppError('cancelled', 'The operation was cancelled.'))
    }
    return new Promise<ChemTaskResult<K>>((resolve, reject) => {
      const queued: QueuedTask = {
        taskId: this.#nextTaskId++,
        task,
        cancelFlag: new Int32Array(new SharedArrayBuffer(4)),
        onProgress: options.onProgress as ((progress: never) => void) | undefined,
        resolve: resolve as (value: unknown) => void,
        reject,
        settled: false,
        detachAbort: () => {},
      }
      if (signal) {
        const onAbort = (): void => this.#cancel(queued, 'The operation was cancelled.')
        signal.addEventListener('abort', onAbort, { once: true })
        queued.detachAbort = () => signal.removeEventListener('abort', onAbort)
      }
      this.#queue.push(queued)
      this.#dispatch()
    })
  }

  /** Shares an index's buffers with every worker, now and after any restart. */
  attachIndex(indexId: string, handles: IndexBufferHandles): void {
    this.#indexes.set(indexId, handles)
    this.#broadcast({ type: 'attachIndex', indexId, handles })
  }

  detachIndex(indexId: string): void {
    if (this.#indexes.delete(indexId)) this.#broadcast({ type: 'detachIndex', indexId })
  }

  /** Cancels what is queued or running, and waits for every worker to stop. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    for (const queued of this.#queue.splice(0)) {
      this.#settle(queued, () =>
        queued.reject(new AppError('cancelled', 'The chemistry workers have shut down.')),
      )
    }
    await Promise.all(
      this.#slots.map(async (slot) => {
        const worker = slot.worker
        if (!worker) return
        if (slot.running) this.#cancel(slot.running, 'The chemistry workers have shut down.')
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
        worker.postMessage({ type: 'close' } satisfies MainToWorker)
        const timer = setTimeout(() => void worker.terminate(), closeGraceMs)
        await exited
        clearTimeout(timer)
      }),
    )
  }

  #broadcast(message: MainToWorker): void {
    for (const slot of this.#slots) if (slot.ready) slot.worker!.postMessage(message)
  }

  #cancel(queued: QueuedTask, message: string): void {
    Atomics.store(queued.cancelFlag, 0, 1)
    const waiting = this.#queue.indexOf(queued)
    if (waiting >= 0) this.#queue.splice(waiting, 1)
    this.#settle(queued, () => queued.reject(new AppError('cancelled', message)))
  }

  #settle(queued: QueuedTask, answer: () => void): void {
    if (queued.settled) return
    queued.settled = true
    queued.detachAbort()
    answer()
  }

  #dispatch(): void {
    for (const slot of this.#slots) {
      if (this.#queue.length === 0) return
      if (!slot.worker) this.#start(slot)
      if (!slot.ready || slot.running) continue
      const queued = this.#queue.shift()!
      slot.running = queued
      slot.worker!.postMessage({
        type: 'task',
        taskId: queued.taskId,
        task: queued.task,
        cancelFlag: queued.cancelFlag,
      } satisfies MainToWorker)
    }
  }

  #start(slot: WorkerSlot): void {
    const workerData: ChemWorkerData = { kind: chemWorkerKind, workerIndex: slot.index }
    const worker = new Worker(this.#workerPath, {
      workerData,
      ...(this.#resourceLimits ? { resourceLimits: this.#resourceLimits } : {}),
    })
    slot.worker = worker
    slot.failure = null
    worker.on('message', (message: WorkerToMain) => this.#onMessage(slot, message))
    worker.on('error', (error) => {
      slot.failure = error.message
      this.#log.error('chemistry worker failed', { worker: slot.index, error })
    })
    worker.on('exit', (code) => this.#onExit(slot, code))
  }

  #onMessage(slot: WorkerSlot, message: WorkerToMain): void {
    if (message.type === 'ready') {
      slot.ready = true
      slot.failedStarts = 0
      for (const [indexId, handles] of this.#indexes) {
        slot.worker!.postMessage({ type: 'attachIndex', indexId, handles } satisfies MainToWorker)
      }
      this.#dispatch()
      return
    }
    const running = slot.running
    if (!running || running.taskId !== message.taskId) return
    if (message.type === 'progress') {
      if (!running.settled) running.onProgress?.(message.progress as never)
      return
    }
    slot.running = null
    this.#settle(running, () =>
      message.ok
        ? running.resolve(message.value)
        : running.reject(new AppError(message.error.code, message.error.message)),
    )
    this.#dispatch()
  }

  #onExit(slot: WorkerSlot, code: number): void {
    const wasReady = slot.ready
    slot.worker = null
    slot.ready = false
    if (this.#closed) return
    const reason = slot.failure ?? `it exited with code ${code}`
    this.#log.warn('chemistry worker stopped', { worker: slot.index, reason })
    const running = slot.running
    slot.running = null
    if (running) {
      this.#settle(running, () =>
        running.reject(
          new AppError(
            'internal',
            `The chemistry worker stopped during ${running.task.kind}: ${reason}`,
          ),
        ),
      )
    }
    if (!wasReady && ++slot.failedStarts >= startAttempts) {
      slot.failedStarts = 0
      for (const queued of this.#queue.splice(0)) {
        this.#settle(queued, () =>
          queued.reject(new AppError('internal', `The chemistry workers cannot start: ${reason}`)),
        )
      }
      return
    }
    this.#dispatch()
  }
}
