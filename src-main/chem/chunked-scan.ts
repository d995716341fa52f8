/**
 * Runs one scan on every worker of the pool at once; the workers share the chunks (see
 * scan-chunks.ts) and report each one as they finish it. The scan is done when every chunk has
 * been reported, even if a worker busy with other work never got to start its part: that part is
 * then withdrawn.
 */
import { AppError } from '../shared/app-error.ts'
import { chunkCount } from './scan-chunks.ts'
import type { ChemWorkerPool } from './worker-pool.ts'
import type { ChemTask, ChemTaskProgress } from './worker-protocol.ts'

type ScanKind = 'substructureScan' | 'similarityScan'

export async function runChunkedScan<K extends ScanKind>(
  pool: ChemWorkerPool,
  task: ChemTask<K>,
  onChunk: (chunk: ChemTaskProgress<K>) => void,
  signal?: AbortSignal,
): Promise<void> {
  if (signal?.aborted) throw new AppError('cancelled', 'The search was cancelled.')
  const total = chunkCount(task)
  // With nothing to scan, one worker still reads the query, so that a bad one is refused.
  if (total === 0) return void (await pool.run<K>(task, { signal }))
  const parts = new AbortController()
  const stopParts = (): void => parts.abort()
  signal?.addEventListener('abort', stopParts, { once: true })
  try {
    await new Promise<void>((resolve, reject) => {
      let reported = 0
      const onProgress = (chunk: ChemTaskProgress<K>): void => {
        onChunk(chunk)
        if (++reported === total) resolve()
      }
      for (let worker = 0; worker < pool.size; worker++) {
        pool.run<K>(task, { signal: parts.signal, onProgress }).catch((error: unknown) => {
          if (signal?.aborted) reject(new AppError('cancelled', 'The search was cancelled.'))
          else if (!parts.signal.aborted) reject(error)
        })
      }
    })
  } finally {
    signal?.removeEventListener('abort', stopParts)
    parts.abort()
  }
}
