/**
 * The entry file of the worker thread that checks every page of the outbox at a start, and
 * rebuilds it aside when it is damaged (`checkOutboxPagesInWorker` in outbox-page-check.ts). A
 * repair by another process is waited for here too, off the main thread.
 *
 * Its default export is its own path, so that `import path from './outbox-check-worker.ts?modulePath'`
 * means the same everywhere: unbundled (CLI, tests, benchmarks) Node loads this file and gets its
 * path; in the Electron bundle, electron-vite's `?modulePath` builds this file as a separate entry
 * and gives the built file's path. On the main thread, importing it does nothing else.
 */
import { fileURLToPath } from 'node:url'
import { parentPort, workerData } from 'node:worker_threads'
import type { ErrorValue } from '../../shared/app-error.ts'
import type { PageCheckVerdict } from './outbox-recovery.ts'

export default fileURLToPath(import.meta.url)

export interface OutboxCheckData {
  outboxPageCheck: { file: string; at: number; repairWaitMs: number }
}

export type OutboxCheckAnswer =
  | { verdict: PageCheckVerdict }
  /** Damaged, and it could not be rebuilt. */
  | { unrepairable: ErrorValue }
  /** The check could not run here (the main thread runs it instead). */
  | { failed: string }

/** Told before the answer, once, when another process is found repairing the outbox. */
export interface OutboxCheckWaiting {
  waitingFor: string
}

const data = workerData as Partial<OutboxCheckData> | null
const request = data?.outboxPageCheck
if (
  parentPort &&
  typeof request?.file === 'string' &&
  typeof request.at === 'number' &&
  typeof request.repairWaitMs === 'number'
) {
  const port = parentPort
  const { AppError } = await import('../../shared/app-error.ts')
  const { checkOutboxPages } = await import('./outbox-recovery.ts')
  let answer: OutboxCheckAnswer
  try {
    const verdict = checkOutboxPages(request.file, new Date(request.at), {
      timeoutMs: request.repairWaitMs,
      onWaiting: (holder) => port.postMessage({ waitingFor: holder } satisfies OutboxCheckWaiting),
    })
    answer = { verdict }
  } catch (error) {
    answer =
      error instanceof AppError
        ? { unrepairable: { code: error.code, message: error.message } }
        : { failed: error instanceof Error ? error.message : String(error) }
  }
  port.postMessage(answer)
}
