/**
 * Fitting every series of a protocol with 10,000 dose-response series (Hill, 8 concentrations in
 * duplicate) with both cores: worker threads running the pure fitter of
 * src-common/analysis/dose-response. Goal: under 2 s, and faster than the reference, the same
 * fits by SciPy's curve_fit (Debian's python3-scipy, a Python loop over the same series, timed
 * inside Python so that start-up and JSON are not counted) in the same run. The pool is started
 * and warmed (as the app's long-lived pool would be) before the timed pass; the first, cold pass,
 * a single-thread pass and the workers' CPU time (shared machines are noisy: the load average is
 * reported too) are given beside it. A second line compares the fits themselves.
 *
 * This file is also the worker: run as a worker thread it fits the chunks it is sent.
 */
import { spawnSync } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { Worker, isMainThread, parentPort } from 'node:worker_threads'
import { fitDoseResponse } from '../src-common/analysis/dose-response/index.ts'
import { progress, report } from './report.ts'

const seriesCount = 10_000
const goalMs = 2000
const chunkSize = 250
/** 8 concentrations, 3-fold from 30 down, each in duplicate, lowest first. */
const concentrations = Array.from({ length: 8 }, (_, index) => 30 / 3 ** (7 - index)).flatMap(
  (x) => [x, x],
)
const pointsPerSeries = concentrations.length

interface Chunk {
  first: number
  responses: Float64Array
}

/** Fits each series of a chunk; NaN marks a series without a converged fit. */
function fitChunk(responses: Float64Array): Float64Array {
  const count = responses.length / pointsPerSeries
  const ic50s = new Float64Array(count)
  for (let series = 0; series < count; series += 1) {
    const points = concentrations.map((concentration, index) => ({
      concentration,
      response: responses[series * pointsPerSeries + index],
    }))
    const fit = fitDoseResponse('Hill', points)
    ic50s[series] = fit.converged ? fit.potency!.value : Number.NaN
  }
  return ic50s
}

if (!isMainThread) {
  parentPort!.on('message', (chunk: Chunk | 'ping') => {
    if (chunk === 'ping') {
      parentPort!.postMessage('ready')
      return
    }
    const cpu = process.threadCpuUsage()
    const ic50s = fitChunk(chunk.responses)
    const used = process.threadCpuUsage(cpu)
    parentPort!.postMessage(
      { first: chunk.first, ic50s, cpuMs: (used.user + used.system) / 1000 },
      [ic50s.buffer as ArrayBuffer],
    )
  })
} else {
  await main()
}

async function main(): Promise<void> {
  const responses = syntheticSeries(seriesCount, 2029)
  const cores = Math.min(2, os.availableParallelism())

  // The reference runs before the timed passes, so that the two never share the cores.
  const scipy = scipyReference(responses)

  progress(`starting ${cores} fitting workers`)
  const poolStarted = performance.now()
  const workers = Array.from({ length: cores }, () => new Worker(new URL(import.meta.url)))
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve) => {
          worker.once('message', () => resolve())
          worker.postMessage('ping')
        }),
    ),
  )
  const poolStartMs = performance.now() - poolStarted
  const cold = await fitWithPool(workers, responses)
  progress(`pool started in ${poolStartMs.toFixed(0)} ms; cold pass: ${cold.ms.toFixed(0)} ms`)
  const warm = await fitWithPool(workers, responses)
  await Promise.all(workers.map((worker) => worker.terminate()))

  const started = performance.now()
  fitChunk(responses)
  const oneThreadMs = performance.now() - started

  const scipyMs = scipy ? scipy.seconds * 1000 : Number.NaN
  report({
    name: 'dose-response.fit.hill.10k',
    value: warm.ms,
    unit: 'ms',
    reference: scipy
      ? `SciPy ${scipy.version} curve_fit, a Python loop on one core (Debian python3-scipy)`
      : 'SciPy (unavailable: install python3-scipy)',
    referenceValue: scipyMs,
    ratio: warm.ms / scipyMs,
    goal: `${seriesCount} Hill series (8 concentrations in duplicate) under ${goalMs} ms with both cores, faster than SciPy`,
    met: scipy !== null && warm.ms < goalMs && warm.ms < scipyMs,
    cores,
    /** Starting the workers (loading the fitter), before any fit. */
    poolStartMs,
    /** The first pass, while the fitter's code is still being compiled. */
    coldMs: cold.ms,
    coldWorkerCpuMs: cold.cpuMs,
    /** CPU time the workers spent fitting: what the wall-clock time would be without contention. */
    workerCpuMs: warm.cpuMs,
    loadAverage: os.loadavg()[0],
    oneThreadMs,
    scipyScaledToCoresMs: scipyMs / cores,
    seriesPerSecond: (seriesCount / warm.ms) * 1000,
  })

  const agreement = compare(warm.ic50s, scipy?.ic50s ?? null)
  report({
    name: 'dose-response.fit.hill.10k.agreement',
    value: agreement.withinOnePercent,
    unit: 'series',
    reference: 'series both SciPy and Vault Desk fitted (converged, determined)',
    referenceValue: agreement.bothConverged,
    ratio: agreement.withinOnePercent / agreement.bothConverged,
    goal: 'IC50 within 1% of SciPy wherever both converge',
    met: scipy !== null && agreement.withinOnePercent === agreement.bothConverged,
    converged: agreement.converged,
    scipyConverged: agreement.scipyConverged,
    worstRelativeDifference: agreement.worst,
    /**
     * Series one side fitted and the other did not. The tests require none on their series; here
     * they are slopes running off towards a step, where SciPy's looser default tolerance stops
     * first and still passes the rules, while the fitter goes on and finds the slope undetermined.
     */
    verdictDifferences: agreement.verdictDifferences.length,
    verdictDifferenceSeries: agreement.verdictDifferences.slice(0, 20),
  })
}

/** Hill series with centres inside the tested range, slopes 0.6 to 2.6 either way, noise 5%. */
function syntheticSeries(count: number, seed: number): Float64Array {
  let state = seed >>> 0
  const uniform = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const normal = (): number =>
    Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform())
  const lowLog = Math.log10(concentrations[2]!)
  const highLog = Math.log10(concentrations[13]!)
  const responses = new Float64Array(count * pointsPerSeries)
  for (let series = 0; series < count; series += 1) {
    const slope = (uniform() < 0.5 ? -1 : 1) * (0.6 + 2 * uniform())
    const ic50 = 10 ** (lowLog + uniform() * (highLog - lowLog))
    const min = 2 * normal()
    const max = 100 + 2 * normal()
    concentrations.forEach((x, index) => {
      responses[series * pointsPerSeries + index] =
        min + (max - min) / (1 + (ic50 / x) ** slope) + 5 * normal()
    })
  }
  return responses
}

async function fitWithPool(
  workers: readonly Worker[],
  responses: Float64Array,
): Promise<{ ms: number; cpuMs: number; ic50s: Float64Array }> {
  const count = responses.length / pointsPerSeries
  const ic50s = new Float64Array(count)
  let cpuMs = 0
  let next = 0
  const started = performance.now()
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve, reject) => {
          const send = (): void => {
            if (next >= count) {
              worker.off('message', receive)
              worker.off('error', reject)
              resolve()
              return
            }
            const first = next
            next = Math.min(count, next + chunkSize)
            const chunk = responses.slice(first * pointsPerSeries, next * pointsPerSeries)
            worker.postMessage({ first, responses: chunk }, [chunk.buffer])
          }
          const receive = (answer: { first: number; ic50s: Float64Array; cpuMs: number }): void => {
            ic50s.set(answer.ic50s, answer.first)
            cpuMs += answer.cpuMs
            send()
          }
          worker.on('message', receive)
          worker.on('error', reject)
          send()
        }),
    ),
  )
  return { ms: performance.now() - started, cpuMs, ic50s }
}

interface ScipyRun {
  version: string
  seconds: number
  ic50s: (number | null)[]
}

function scipyReference(responses: Float64Array): ScipyRun | null {
  const python = process.env.VAULT_DESK_NATIVE_PYTHON ?? '/usr/bin/python3'
  const probe = spawnSync(python, ['-c', 'import scipy; print(scipy.__version__)'], {
    encoding: 'utf8',
  })
  if (probe.status !== 0) {
    progress(
      `SciPy unavailable: ${python} cannot import scipy (${(probe.stderr || String(probe.error)).trim()}). ` +
        'Install Debian python3-scipy for the reference.',
    )
    return null
  }
  progress(`SciPy ${probe.stdout.trim()}: curve_fit on ${seriesCount} series`)
  const problems = Array.from({ length: responses.length / pointsPerSeries }, (_, series) => ({
    id: String(series),
    equation: 'Hill',
    x: concentrations,
    y: Array.from(responses.subarray(series * pointsPerSeries, (series + 1) * pointsPerSeries)),
  }))
  const script = path.join(
    import.meta.dirname,
    '../src-common/analysis/dose-response/scipy_reference.py',
  )
  const run = spawnSync(python, [script], {
    input: JSON.stringify({ problems }),
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
  })
  if (run.status !== 0) throw new Error(`scipy_reference.py failed: ${run.stderr}`)
  const answer = JSON.parse(run.stdout) as {
    scipy: string
    seconds: number
    fits: { converged: boolean; parameters?: { ic50: number } }[]
  }
  return {
    version: answer.scipy,
    seconds: answer.seconds,
    ic50s: answer.fits.map((fit) => (fit.converged ? fit.parameters!.ic50 : null)),
  }
}

function compare(
  ours: Float64Array,
  scipy: readonly (number | null)[] | null,
): {
  bothConverged: number
  withinOnePercent: number
  converged: number
  scipyConverged: number
  worst: number
  verdictDifferences: number[]
} {
  let bothConverged = 0
  let withinOnePercent = 0
  let converged = 0
  let scipyConverged = 0
  let worst = 0
  const verdictDifferences: number[] = []
  ours.forEach((ic50, series) => {
    const reference = scipy?.[series] ?? null
    const oursConverged = !Number.isNaN(ic50)
    if (oursConverged) converged += 1
    if (reference !== null) scipyConverged += 1
    if (scipy === null) return
    if (oursConverged !== (reference !== null)) verdictDifferences.push(series)
    if (!oursConverged || reference === null) return
    bothConverged += 1
    const difference = Math.abs(ic50 - reference) / reference
    worst = Math.max(worst, difference)
    if (difference < 0.01) withinOnePercent += 1
  })
  return { bothConverged, withinOnePercent, converged, scipyConverged, worst, verdictDifferences }
}
