/**
 * The curve workers: threads that read dose-response series from a cache (a read-only connection
 * of their own, opened for each task), fit and describe them, so that fitting a protocol of
 * thousands of series never holds the main thread. Each worker keeps the fits it made and reuses
 * one while its series' inputs stay the same, so a caller sends each worker the same share of a
 * selection every time (`run`'s `worker`: by batch, as `CurveSelection.shard` splits them). A
 * worker's answer comes in parts of `seriesPerPart` series, at most `partsAhead` parts before the
 * main thread has taken them in, each part its own turn of the main thread's event loop. A worker
 * that dies fails only its task and is started again (without its fits) for the next; idle
 * workers retire after a while.
 */
import os from 'node:os'
import { Worker } from 'node:worker_threads'
import { AppError } from '../shared/app-error.ts'
import { silentLogger, type Logger } from '../shared/logger.ts'
import type { CurveCalculation } from './curve-queries.ts'
import {
  curveWorkerKind,
  type CurveFitTask,
  type CurveMainMessage,
  type CurveSeries,
  type CurveWorkerData,
  type CurveWorkerMessage,
  unpackSeries,
} from './curve-fits.ts'
import curveWorkerPath from './curve-fit-worker.ts?modulePath'

export interface CurveFitPoolOptions {
  /** Worker threads; by default two (one on a single core). */
  size?: number
  /** How long an idle worker is kept, with its fits (default 5 minutes). */
  idleMs?: number
  /** Fits kept by all the workers together, to reuse (default 20,000; each a kilobyte or two). */
  keptFits?: number
  logger?: Logger
}

export interface CurveTaskHandlers {
  /** The calculations of the selection and its series count, before any series. */
  onHead: (calculations: CurveCalculation[], total: number) => void
  onPart: (series: CurveSeries[]) => void
}

interface QueuedTask {
  taskId: number
  task: CurveFitTask
  handlers: CurveTaskHandlers
  resolve: (summary: { fitted: number; reused: number }) => void
  reject: (error: Error) => void
  /** A handler threw: the task fails with it once the worker is done. */
  handlerError: Error | null
}

interface Slot {
  index: number
  worker: Worker | null
  ready: boolean
  queue: QueuedTask[]
  running: QueuedTask | null
  failure: string | null
  failedStarts: number
  idleTimer: NodeJS.Timeout | undefined
}

const startAttempts = 3
const maximumSize = 16

export class CurveFitPool {
  readonly size: number
  readonly #idleMs: number
  readonly #log: Logger
  readonly #keptFits: number
  readonly #slots: Slot[]
  #nextTaskId = 1
  #closed = false

  constructor(options: CurveFitPoolOptions = {}) {
    const size = options.size ?? Math.min(2, os.availableParallelism())
    if (!Number.isInteger(size) || size < 1 || size > maximumSize) {
      throw new AppError(
        'invalid_argument',
        `The curve worker pool size must be a whole number from 1 to ${maximumSize}, not ${size}.`,
      )
    }
    this.size = size
    this.#idleMs = options.idleMs ?? 300_000
    this.#keptFits = Math.ceil((options.keptFits ?? 20_000) / size)
    this.#log = (options.logger ?? silentLogger).child({ component: 'curve-workers' })
    this.#slots = Array.from({ length: size }, (_, index) => ({
      index,
      worker: null,
      ready: false,
      queue: [],
      running: null,
      failure: null,
      failedStarts: 0,
      idleTimer: undefined,
    }))
  }

  /**
   * Runs a task on the given worker (the same share of a selection on the same worker each time,
   * so that its fits are reused), or on the least busy; resolves with how many fits it computed
   * and reused.
   */
  run(
    task: CurveFitTask,
    handlers: CurveTaskHandlers,
    worker?: number,
  ): Promise<{ fitted: number; reused: number }> {
    if (this.#closed) {
      return Promise.reject(new AppError('cancelled', 'The curve workers have shut down.'))
    }
    const slot =
      worker === undefined
        ? this.#slots.reduce((best, candidate) => (load(candidate) < load(best) ? candidate : best))
        : this.#slots[worker % this.size]!
    return new Promise((resolve, reject) => {
      slot.queue.push({
        taskId: this.#nextTaskId++,
        task,
        handlers,
        resolve,
        reject,
        handlerError: null,
      })
      this.#dispatch(slot)
    })
  }

  /** Fails what is queued or running, and stops every worker. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    const shutDown = (): AppError => new AppError('cancelled', 'The curve workers have shut down.')
    await Promise.all(
      this.#slots.map(async (slot) => {
        clearTimeout(slot.idleTimer)
        for (const queued of slot.queue.splice(0)) queued.reject(shutDown())
        slot.running?.reject(shutDown())
        slot.running = null
        const worker = slot.worker
        if (worker) await worker.terminate()
      }),
    )
  }

  #dispatch(slot: Slot): void {
    if (slot.queue.length === 0 || this.#closed) return
    if (!slot.worker) this.#start(slot)
    if (!slot.ready || slot.running) return
    clearTimeout(slot.idleTimer)
    const queued = slot.queue.shift()!
    slot.running = queued
    slot.worker!.postMessage({
      type: 'task',
      taskId: queued.taskId,
      task: queued.task,
    } satisfies CurveMainMessage)
  }

  #start(slot: Slot): void {
    const workerData: CurveWorkerData = { kind: curveWorkerKind, keptFits: this.#keptFits }
    const worker = new Worker(curveWorkerPath, { workerData })
    slot.worker = worker
    slot.failure = null
    worker.on('message', (message: CurveWorkerMessage) => this.#onMessage(slot, message))
    worker.on('error', (error) => {
      slot.failure = error.message
      this.#log.error('curve worker failed', { worker: slot.index, error })
    })
    worker.on('exit', (code) => this.#onExit(slot, worker, code))
  }

  #onMessage(slot: Slot, message: CurveWorkerMessage): void {
    if (message.type === 'ready') {
      slot.ready = true
      slot.failedStarts = 0
      this.#dispatch(slot)
      this.#retireWhenIdle(slot)
      return
    }
    const running = slot.running
    if (!running || running.taskId !== message.taskId) return
    if (message.type === 'head' || message.type === 'part') {
      if (!running.handlerError) {
        try {
          if (message.type === 'head') running.handlers.onHead(message.calculations, message.total)
          else running.handlers.onPart(unpackSeries(message.series))
        } catch (error) {
          running.handlerError = error instanceof Error ? error : new Error(String(error))
        }
      }
      if (message.type === 'part') {
        slot.worker?.postMessage({ type: 'ack', taskId: message.taskId } satisfies CurveMainMessage)
      }
      return
    }
    slot.running = null
    if (running.handlerError) running.reject(running.handlerError)
    else if (message.type === 'done') {
      running.resolve({ fitted: message.fitted, reused: message.reused })
    } else running.reject(new AppError(message.error.code, message.error.message))
    this.#dispatch(slot)
    this.#retireWhenIdle(slot)
  }

  #retireWhenIdle(slot: Slot): void {
    if (slot.running || slot.queue.length > 0) return
    clearTimeout(slot.idleTimer)
    slot.idleTimer = setTimeout(() => {
      const worker = slot.worker
      if (!worker || slot.running || this.#closed) return
      slot.worker = null
      slot.ready = false
      worker.postMessage({ type: 'close' } satisfies CurveMainMessage)
    }, this.#idleMs)
    slot.idleTimer.unref()
  }

  #onExit(slot: Slot, worker: Worker, code: number): void {
    // A retired worker has already left its slot (another may be starting in it).
    if (slot.worker !== worker) return
    const wasReady = slot.ready
    slot.worker = null
    slot.ready = false
    clearTimeout(slot.idleTimer)
    if (this.#closed) return
    const reason = slot.failure ?? `it exited with code ${code}`
    this.#log.warn('curve worker stopped', { worker: slot.index, reason })
    const running = slot.running
    slot.running = null
    running?.reject(new AppError('internal', `The curve worker stopped while fitting: ${reason}`))
    if (!wasReady && ++slot.failedStarts >= startAttempts) {
      slot.failedStarts = 0
      for (const queued of slot.queue.splice(0)) {
        queued.reject(new AppError('internal', `The curve workers cannot start: ${reason}`))
      }
      return
    }
    this.#dispatch(slot)
  }
}

function load(slot: Slot): number {
  return slot.queue.length + (slot.running ? 1 : 0)
}
