import { Worker } from 'node:worker_threads'
import { AppError } from '../../shared/app-error.ts'
import type {
  OutboxCheckAnswer,
  OutboxCheckData,
  OutboxCheckWaiting,
} from './outbox-check-worker.ts'
import outboxCheckWorkerPath from './outbox-check-worker.ts?modulePath'
import { defaultClaimTimeoutMs } from './outbox-file.ts'
import { checkOutboxPages, type PageCheckVerdict } from './outbox-recovery.ts'

/*
 * Apart from outbox-recovery.ts: the worker loads that module, and an import of the worker's
 * entry from it (under its `?modulePath` name) would start the check again inside the worker.
 */

export interface WorkerCheckOptions {
  /** The worker cannot run the check (it cannot start, or SQLite refuses it there): why. */
  onFallback: (reason: string) => void
  /** Another process is repairing the outbox: the worker waits for it (told once). */
  onWaiting?: (holder: string) => void
  /** How long to wait for another process's repair (default 10 minutes). */
  repairWaitMs?: number
}

/**
 * `checkOutboxPages` in a worker thread, a repair it makes and a wait for another process's
 * repair included: the calling thread goes on meanwhile. A worker that cannot run the check
 * leaves it to this thread, after `onFallback` is told why.
 */
export function checkOutboxPagesInWorker(
  file: string,
  at: Date,
  options: WorkerCheckOptions,
): Promise<PageCheckVerdict> {
  const repairWaitMs = options.repairWaitMs ?? defaultClaimTimeoutMs
  return new Promise((resolve, reject) => {
    let answered = false
    const here = (reason: string) => {
      answered = true
      options.onFallback(reason)
      try {
        resolve(
          checkOutboxPages(file, at, {
            timeoutMs: repairWaitMs,
            ...(options.onWaiting ? { onWaiting: options.onWaiting } : {}),
          }),
        )
      } catch (error) {
        reject(error as Error)
      }
    }
    let worker: Worker
    try {
      const data: OutboxCheckData = {
        outboxPageCheck: { file, at: at.getTime(), repairWaitMs },
      }
      worker = new Worker(outboxCheckWorkerPath, { workerData: data })
    } catch (error) {
      here((error as Error).message)
      return
    }
    worker.on('message', (message: OutboxCheckAnswer | OutboxCheckWaiting) => {
      if ('waitingFor' in message) {
        options.onWaiting?.(message.waitingFor)
        return
      }
      answered = true
      if ('verdict' in message) resolve(message.verdict)
      else if ('unrepairable' in message) {
        reject(new AppError(message.unrepairable.code, message.unrepairable.message))
      } else here(message.failed)
    })
    worker.once('error', (error) => {
      if (!answered) here(error.message)
    })
    worker.once('exit', (code) => {
      if (!answered) here(`its worker exited with code ${code}`)
    })
  })
}
