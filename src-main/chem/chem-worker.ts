/**
 * The entry file of a chemistry worker thread.
 *
 * Its default export is its own path, so that `import path from './chem-worker.ts?modulePath'`
 * means the same everywhere: unbundled (CLI, tests, benchmarks) Node loads this file and gets its
 * path; in the Electron bundle, electron-vite's `?modulePath` builds this file as a separate entry
 * and gives the built file's path. On the main thread, importing it does nothing else.
 */
import { fileURLToPath } from 'node:url'
import { parentPort, workerData } from 'node:worker_threads'
import { chemWorkerKind, type ChemWorkerData } from './worker-protocol.ts'

export default fileURLToPath(import.meta.url)

const data = workerData as Partial<ChemWorkerData> | null
if (parentPort && data?.kind === chemWorkerKind && typeof data.workerIndex === 'number') {
  const { runChemWorker } = await import('./worker-runtime.ts')
  await runChemWorker(parentPort, { kind: chemWorkerKind, workerIndex: data.workerIndex })
}
