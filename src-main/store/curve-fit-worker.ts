/**
 * The entry file of a curve worker thread (see curve-fit-pool.ts).
 *
 * Its default export is its own path, so that `import path from './curve-fit-worker.ts?modulePath'`
 * means the same everywhere: unbundled (CLI, tests, benchmarks) Node loads this file and gets its
 * path; in the Electron bundle, electron-vite's `?modulePath` builds this file as a separate entry
 * and gives the built file's path. On the main thread, importing it does nothing else.
 */
import { fileURLToPath } from 'node:url'
import { parentPort, workerData } from 'node:worker_threads'
import { curveWorkerKind, runCurveFitWorker, type CurveWorkerData } from './curve-fits.ts'

export default fileURLToPath(import.meta.url)

const data = workerData as Partial<CurveWorkerData> | null
if (parentPort && data?.kind === curveWorkerKind) {
  runCurveFitWorker(parentPort, { kind: curveWorkerKind, keptFits: data.keptFits ?? 0 })
}
