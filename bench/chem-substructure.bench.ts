/**
 * Substructure search over the benchmark index with the three query sets of RDKit's screen-out
 * benchmark, against Debian's rdSubstructLibrary (pickles + pattern fingerprints, all cores) on
 * the same molecules and queries, measured in the same run. Goals: median no slower than the
 * native library, p95 under 300 ms, the same hit count on every query, and the first page of hits
 * before counting finishes. Disagreements are listed, and the first few explained molecule by
 * molecule.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { percentile, progress, report } from './report.ts'
import {
  benchmarkMoleculeCount,
  readMolecules,
  readQueries,
  requireDataFiles,
  substructureQueryFiles,
} from './native/benchmark-data.ts'
import { openBenchmarkIndex, synchronizeBenchmarkIndex } from './native/benchmark-index.ts'
import { nativeRdkitVersion, runNativeReference } from './native/native-reference.ts'

const p95GoalMs = 300
const firstPageSize = 50
const explainedDisagreements = 5

interface QueryOutcome {
  file: string
  index: number
  query: string
  hits: number | null
  ms: number
  firstPageMs: number | null
  /** Molecules that passed the screen and were matched atom by atom. */
  candidates: number
  error: string | null
}

requireDataFiles()
const moleculeCount = benchmarkMoleculeCount()
const molecules = readMolecules(moleculeCount)

const nativeVersion = nativeRdkitVersion()
const native = new Map<string, { hits: number | null; ms: number }>()
let nativeLibraryRssMb = Number.NaN
if (nativeVersion) {
  progress(`native RDKit ${nativeVersion}: rdSubstructLibrary over ${moleculeCount} molecules`)
  for (const document of await runNativeReference('substructure', {
    molecules: moleculeCount,
    queries: substructureQueryFiles,
  })) {
    if (document.mode === 'library') nativeLibraryRssMb = document.maxRssMb as number
    if (document.mode !== 'substructure') continue
    native.set(`${path.basename(document.file as string)}#${document.index as number}`, {
      hits: typeof document.hits === 'number' ? document.hits : null,
      ms: typeof document.ms === 'number' ? document.ms : Number.NaN,
    })
  }
}

const index = await openBenchmarkIndex(moleculeCount)
await synchronizeBenchmarkIndex(index, molecules)
// One search first, so that compiling the kernels and warming the workers is not timed.
await index.engine.search({
  structure: { kind: 'substructure', query: 'c1ccccc1', language: 'smiles' },
})
const outcomes: QueryOutcome[] = []
for (const file of substructureQueryFiles) {
  const queries = readQueries(file)
  progress(`${queries.length} queries from ${path.basename(file)}`)
  for (const [position, query] of queries.entries()) {
    const started = performance.now()
    let firstPageMs: number | null = null
    const outcome: QueryOutcome = {
      file: path.basename(file),
      index: position,
      query,
      hits: null,
      ms: Number.NaN,
      firstPageMs: null,
      candidates: 0,
      error: null,
    }
    try {
      const result = await index.engine.search(
        { structure: { kind: 'substructure', query, language: 'smiles' }, firstPageSize },
        {
          onProgress: (update) => {
            if (update.firstPage && firstPageMs === null) firstPageMs = performance.now() - started
            outcome.candidates = update.candidates ?? 0
          },
        },
      )
      outcome.hits = result.hits.length
    } catch (error) {
      outcome.error = (error as Error).message
    }
    outcome.ms = performance.now() - started
    outcome.firstPageMs = firstPageMs
    outcomes.push(outcome)
  }
}

const nativeOf = (outcome: QueryOutcome) => native.get(`${outcome.file}#${outcome.index}`)
const searched = outcomes.filter((outcome) => outcome.hits !== null)
for (const set of [...substructureQueryFiles.map((file) => path.basename(file)), 'all']) {
  const ours = searched.filter((outcome) => set === 'all' || outcome.file === set)
  const oursMs = ours.map((outcome) => outcome.ms).sort((a, b) => a - b)
  const nativeMs = ours
    .map((outcome) => nativeOf(outcome)?.ms ?? Number.NaN)
    .filter((ms) => !Number.isNaN(ms))
    .sort((a, b) => a - b)
  const median = percentile(oursMs, 0.5)
  const nativeMedian = percentile(nativeMs, 0.5)
  report({
    name: `chem.substructure.median.${set}`,
    value: median,
    unit: 'ms',
    reference: `Debian RDKit ${nativeVersion ?? '(unavailable)'} rdSubstructLibrary, ${os.availableParallelism()} threads`,
    referenceValue: nativeMedian,
    ratio: median / nativeMedian,
    goal: 'median no slower than the native library (ratio <= 1)',
    met: median <= nativeMedian,
    queries: ours.length,
    molecules: moleculeCount,
  })
  const p95 = percentile(oursMs, 0.95)
  report({
    name: `chem.substructure.p95.${set}`,
    value: p95,
    unit: 'ms',
    reference: 'native p95 in this run',
    referenceValue: percentile(nativeMs, 0.95),
    ratio: p95 / percentile(nativeMs, 0.95),
    goal: `p95 under ${p95GoalMs} ms`,
    met: p95 < p95GoalMs,
    max: oursMs[oursMs.length - 1],
    nativeMax: nativeMs[nativeMs.length - 1],
    medianCandidates: percentile(
      ours.map((outcome) => outcome.candidates).sort((a, b) => a - b),
      0.5,
    ),
    slowest: [...ours]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 5)
      .map((outcome) => ({
        query: outcome.query,
        ms: Math.round(outcome.ms),
        nativeMs: Math.round(nativeOf(outcome)?.ms ?? Number.NaN),
        hits: outcome.hits,
        candidates: outcome.candidates,
      })),
  })
}

const paged = searched.filter(
  (outcome) => outcome.hits! > firstPageSize && outcome.firstPageMs !== null,
)
const firstPageMs = paged.map((outcome) => outcome.firstPageMs!).sort((a, b) => a - b)
const beforeEnd = paged.filter((outcome) => outcome.firstPageMs! < outcome.ms)
report({
  name: 'chem.substructure.first-page',
  value: percentile(firstPageMs, 0.5),
  unit: 'ms',
  reference: 'median time to the whole answer, same queries',
  referenceValue: percentile(
    paged.map((outcome) => outcome.ms).sort((a, b) => a - b),
    0.5,
  ),
  ratio:
    percentile(firstPageMs, 0.5) /
    percentile(
      paged.map((outcome) => outcome.ms).sort((a, b) => a - b),
      0.5,
    ),
  goal: `the first ${firstPageSize} hits shown before counting finishes (queries with more hits)`,
  met: beforeEnd.length === paged.length,
  p95: percentile(firstPageMs, 0.95),
  queries: paged.length,
  firstPageBeforeEnd: beforeEnd.length,
})

const disagreements = outcomes.filter((outcome) => {
  const reference = nativeOf(outcome)
  return reference !== undefined && reference.hits !== outcome.hits
})
report({
  name: 'chem.substructure.agreement',
  value: outcomes.length - disagreements.length,
  unit: 'queries',
  reference: 'queries searched by both (hit counts compared)',
  referenceValue: outcomes.length,
  ratio: (outcomes.length - disagreements.length) / outcomes.length,
  goal: 'hit counts equal to the native library on every query',
  met: nativeVersion !== null && disagreements.length === 0,
  disagreements: disagreements.map((outcome) => ({
    file: outcome.file,
    index: outcome.index,
    query: outcome.query,
    ours: outcome.hits ?? outcome.error,
    native: nativeOf(outcome)!.hits ?? 'not parsed',
  })),
  nativeLibraryMaxRssMb: nativeLibraryRssMb,
})

const toExplain = disagreements
  .filter((outcome) => outcome.hits !== null)
  .slice(0, explainedDisagreements)
if (toExplain.length > 0) {
  const queryFile = path.join(os.tmpdir(), `vault-desk-explain-${process.pid}.smi`)
  fs.writeFileSync(queryFile, toExplain.map((outcome) => `${outcome.query}\n`).join(''))
  const explained = await runNativeReference('explain', {
    molecules: moleculeCount,
    queries: [queryFile],
  })
  fs.rmSync(queryFile, { force: true })
  for (const [position, outcome] of toExplain.entries()) {
    const nativeIds = new Set(explained[position]!.ids as number[])
    const ours = await index.engine.search({
      structure: { kind: 'substructure', query: outcome.query, language: 'smiles' },
    })
    const ourIds = new Set(ours.hits.map((hit) => hit.id))
    const onlyOurs = [...ourIds].filter((id) => !nativeIds.has(id))
    const onlyNative = [...nativeIds].filter((id) => !ourIds.has(id))
    report({
      name: 'chem.substructure.disagreement',
      value: ourIds.size,
      unit: 'hits',
      reference: 'native brute force (HasSubstructMatch, useChirality) on the same molecules',
      referenceValue: nativeIds.size,
      ratio: ourIds.size / nativeIds.size,
      query: outcome.query,
      file: outcome.file,
      onlyOurs: onlyOurs.slice(0, 5).map((id) => ({ id, smiles: molecules[id]!.smiles })),
      onlyNative: onlyNative.slice(0, 5).map((id) => ({ id, smiles: molecules[id]!.smiles })),
      onlyOursCount: onlyOurs.length,
      onlyNativeCount: onlyNative.length,
    })
  }
}
await index.close()
