/**
 * (Named "footprint", not "memory", so that `npm run bench -- memory` keeps meaning the others.)
 *
 * Memory with the benchmark index loaded and searched: the resident set of a fresh process that
 * only opens the index and searches it (main thread, both workers with their RDKit heaps, and the
 * shared index all live in one process), against the goal of 800 MB for 250k molecules. The
 * reference is Debian's RDKit holding the same molecules for substructure and similarity search
 * (library of pickles and pattern fingerprints; Morgan fingerprints), measured in the same run.
 */
import { spawnSync } from 'node:child_process'
import { progress, report } from './report.ts'
import {
  benchmarkMoleculeCount,
  readMolecules,
  readQueries,
  requireDataFiles,
  substructureQueryFiles,
} from './native/benchmark-data.ts'
import { openBenchmarkIndex, synchronizeBenchmarkIndex } from './native/benchmark-index.ts'
import { nativeRdkitVersion, runNativeReference } from './native/native-reference.ts'

const goalMb = 800
const megabyte = 1024 * 1024
const measureFlag = '--measure-loaded-index'

interface Footprint {
  startMb: number
  loadedMb: number
  searchedMb: number
  mainHeapUsedMb: number
  sharedIndexMb: number
  molecules: number
  workers: number
}

requireDataFiles()
const moleculeCount = benchmarkMoleculeCount()

if (process.argv.includes(measureFlag)) {
  process.stdout.write(`${JSON.stringify(await measureLoadedIndex())}\n`)
} else {
  await compareWithNative()
}

/** Runs in a fresh process, so that nothing but the loaded index counts. */
async function measureLoadedIndex(): Promise<Footprint> {
  const rss = (): number => process.memoryUsage().rss / megabyte
  const startMb = rss()
  const index = await openBenchmarkIndex(moleculeCount)
  await index.engine.search({ structure: { kind: 'exact', query: 'CCO' } })
  const loadedMb = rss()
  for (const query of substructureQueryFiles.map((file) => readQueries(file)[0]!)) {
    await index.engine.search({ structure: { kind: 'substructure', query, language: 'smiles' } })
    await index.engine.search({ structure: { kind: 'similarity', query, top: 50 } })
  }
  globalThis.gc?.()
  const footprint: Footprint = {
    startMb,
    loadedMb,
    searchedMb: rss(),
    mainHeapUsedMb: process.memoryUsage().heapUsed / megabyte,
    sharedIndexMb: index.engine.stats().sharedBytes / megabyte,
    molecules: index.engine.stats().molecules,
    workers: index.pool.size,
  }
  await index.close()
  return footprint
}

async function compareWithNative(): Promise<void> {
  const index = await openBenchmarkIndex(moleculeCount)
  const summary = await synchronizeBenchmarkIndex(index, readMolecules(moleculeCount))
  await index.close()
  if (summary.computed > 0)
    progress(`the index needed ${summary.computed} molecules computed first`)

  const child = spawnSync(process.execPath, ['--expose-gc', import.meta.filename, measureFlag], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  })
  if (child.status !== 0) throw new Error(`measuring the loaded index failed (${child.status})`)
  const footprint = JSON.parse(child.stdout) as Footprint

  let nativeMb = Number.NaN
  const nativeVersion = nativeRdkitVersion()
  if (nativeVersion) {
    const substructure = await runNativeReference('substructure', {
      molecules: moleculeCount,
      queries: [],
    })
    const similarity = await runNativeReference('similarity', {
      molecules: moleculeCount,
      queries: [],
    })
    const library = substructure.find((document) => document.mode === 'library')!
    const fingerprints = similarity.find((document) => document.mode === 'fingerprints')!
    // Each search's data lives in its own reference process; together they are the reference.
    nativeMb = (library.maxRssMb as number) + (fingerprints.maxRssMb as number)
  }

  const scaledGoal = (goalMb * moleculeCount) / 250_000
  report({
    name: 'chem.memory.rss',
    value: footprint.searchedMb,
    unit: 'MB',
    reference: `Debian RDKit ${nativeVersion ?? '(unavailable)'}: its substructure library process plus its Morgan fingerprint process (peak RSS)`,
    referenceValue: nativeMb,
    ratio: footprint.searchedMb / nativeMb,
    goal: `main process and workers under ${scaledGoal.toFixed(0)} MB together (800 MB per 250k)`,
    met: footprint.searchedMb < scaledGoal,
    ...footprint,
  })
}
