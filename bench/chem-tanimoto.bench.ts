/**
 * (Named "tanimoto", not "similarity", so that `npm run bench -- sim` keeps meaning the simulator.)
 *
 * Similarity top-50 (Morgan radius 2, 2048 bits, Tanimoto) over the benchmark index, one query
 * per lead of zinc.leads.500, against Debian's RDKit BulkTanimotoSimilarity (plus a numpy top-k)
 * on the same molecules and queries in the same run. Goal: median under 25 ms with both cores;
 * the ranked hits (ids and scores, ties by id) are compared with the native ones.
 */
import { percentile, progress, report } from './report.ts'
import {
  benchmarkMoleculeCount,
  readMolecules,
  readQueries,
  requireDataFiles,
  similarityQueryFile,
} from './native/benchmark-data.ts'
import { openBenchmarkIndex, synchronizeBenchmarkIndex } from './native/benchmark-index.ts'
import { nativeRdkitVersion, runNativeReference } from './native/native-reference.ts'

const top = 50
const medianGoalMs = 25
const scoreTolerance = 1e-9

requireDataFiles()
const moleculeCount = benchmarkMoleculeCount()
const molecules = readMolecules(moleculeCount)
const queries = readQueries(similarityQueryFile)

const nativeVersion = nativeRdkitVersion()
const native = new Map<string, { ms: number; ids: number[]; scores: number[] }>()
if (nativeVersion) {
  progress(`native RDKit ${nativeVersion}: BulkTanimotoSimilarity over ${moleculeCount} molecules`)
  for (const document of await runNativeReference('similarity', {
    molecules: moleculeCount,
    queries: [similarityQueryFile],
    top,
  })) {
    if (document.mode !== 'similarity') continue
    native.set(document.query as string, {
      ms: document.ms as number,
      ids: document.ids as number[],
      scores: document.scores as number[],
    })
  }
}

const index = await openBenchmarkIndex(moleculeCount)
await synchronizeBenchmarkIndex(index, molecules)
// One search first, so that compiling the kernels and warming the workers is not timed.
await index.engine.search({ structure: { kind: 'similarity', query: 'c1ccccc1', top } })
const timings: number[] = []
let compared = 0
const differing: { query: string; firstDifference: number }[] = []
for (const query of queries) {
  const started = performance.now()
  let result
  try {
    result = await index.engine.search({ structure: { kind: 'similarity', query, top } })
  } catch (error) {
    progress(`similarity query ${query} refused: ${(error as Error).message}`)
    continue
  }
  timings.push(performance.now() - started)
  const reference = native.get(query)
  if (!reference) continue
  compared++
  const firstDifference = result.hits.findIndex(
    (hit, rank) =>
      hit.id !== reference.ids[rank] ||
      Math.abs(hit.score! - reference.scores[rank]!) > scoreTolerance,
  )
  if (firstDifference >= 0 || result.hits.length !== reference.ids.length) {
    differing.push({ query, firstDifference })
  }
}

const sorted = [...timings].sort((a, b) => a - b)
const nativeMs = [...native.values()].map((entry) => entry.ms).sort((a, b) => a - b)
const median = percentile(sorted, 0.5)
report({
  name: 'chem.similarity.top50.median',
  value: median,
  unit: 'ms',
  reference: `Debian RDKit ${nativeVersion ?? '(unavailable)'} BulkTanimotoSimilarity + top-k, one core`,
  referenceValue: percentile(nativeMs, 0.5),
  ratio: median / percentile(nativeMs, 0.5),
  goal: `median under ${medianGoalMs} ms with both cores`,
  met: median < medianGoalMs,
  p95: percentile(sorted, 0.95),
  nativeP95: percentile(nativeMs, 0.95),
  queries: timings.length,
  molecules: moleculeCount,
  workers: index.pool.size,
})
report({
  name: 'chem.similarity.top50.agreement',
  value: compared - differing.length,
  unit: 'queries',
  reference: 'queries ranked by both',
  referenceValue: compared,
  ratio: (compared - differing.length) / compared,
  goal: 'the same 50 ids and scores, in the same order, as the native ranking',
  met: nativeVersion !== null && differing.length === 0,
  differing: differing.slice(0, 20),
})
await index.close()
