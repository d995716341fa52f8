import { Worker } from 'node:worker_threads'
import { AppError } from '../../shared/app-error.ts'
import type { OutboxCheckAnswer, OutboxCheckData } from './outbox-check-worker.ts'
import outboxCheckWorkerPath from './outbox-check-worker.ts?modulePath'
import { checkOutboxPages, type PageCheckVerdict } from './outbox-recovery.ts'

/*
 * Apart from outbox-recovery.ts: the worker loads that module, and an import of the worker's
 * entry from it (under its `?modulePath` name) would start the check again inside the worker.
 */

/**
 * `checkOutboxPages` in a worker thread: the calling thread goes on meanwhile. A worker that
 * cannot run the check (it cannot start, or SQLite refuses it there) leaves it to this thread,
 * after `onFallback` is told why.
 */
export function checkOutboxPagesInWorker(
  file: string,
  at: Date,
  onFallback: (reason: string) => void,
): Promise<PageCheckVerdict> {
  return new Promise((resolve, reject) => {
    let answered = false
    const here = (reason: string) => {
      answered = true
      onFallback(reason)
      try {
        resolve(checkOutboxPages(file, at))
      } catch (error) {
        reject(error as Error)
      }
    }
    let worker: Worker
    try {
      const data: OutboxCheckData = { outboxPageCheck: { file, at: at.getTime() } }
      worker = new Worker(outboxCheckWorkerPath, { workerData: data })
    } catch (error) {
      here((error as Error).message)
      return
    }
    worker.once('message', (answer: OutboxCheckAnswer) => {
      answered = true
      if ('verdict' in answer) resolve(answer.verdict)
      else if ('unrepairable' in answer) {
        reject(new AppError(answer.unrepairable.code, answer.unrepairable.message))
      } else here(answer.failed)
    })
    worker.once('error', (error) => {
      if (!answered) here(error.message)
    })
    worker.once('exit', (code) => {
      if (!answered) here(`its worker exited with code ${code}`)
    })
  })
}
