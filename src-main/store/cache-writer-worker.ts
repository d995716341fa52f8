/**
 * The entry file of the cache writer's worker thread (see cache-writer.ts).
 *
 * Its default export is its own path, so that `import path from './cache-writer-worker.ts?modulePath'`
 * means the same everywhere: unbundled (CLI, tests, benchmarks) Node loads this file and gets its
 * path; in the Electron bundle, electron-vite's `?modulePath` builds this file as a separate entry
 * and gives the built file's path. On the main thread, importing it does nothing else.
 */
import { fileURLToPath } from 'node:url'
import { parentPort, workerData } from 'node:worker_threads'
import { cacheWriterKind, type CacheWriterData } from './cache-writer-protocol.ts'

export default fileURLToPath(import.meta.url)

const data = workerData as Partial<CacheWriterData> | null
if (parentPort && data?.kind === cacheWriterKind && typeof data.file === 'string') {
  const { runCacheWriter } = await import('./cache-writer-runtime.ts')
  runCacheWriter(parentPort, data.file)
}
