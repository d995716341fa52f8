import { createHash } from 'node:crypto'
import type { MessagePort } from 'node:worker_threads'
import Database from 'better-sqlite3'
import {
  curveFrom,
  EQUATIONS,
  fitDoseResponse,
  isEquationType,
  mergeConstraints,
  readFitConstraints,
  type DoseResponseFit,
  type DoseResponsePointInput,
  type ExclusionReason,
  type FitConstraints,
  type PointReport,
} from '../../src-common/analysis/dose-response/index.ts'
import { AppError, toErrorValue, type ErrorValue } from '../shared/app-error.ts'
import {
  CurveQueries,
  type CurveCalculation,
  type CurvePoint,
  type CurveSelection,
  type CurveSeriesData,
  type PendingReadoutRow,
  type PendingSeriesEdit,
} from './curve-queries.ts'

/**
 * Local fits of dose-response data series, read from the cache and fitted by the pure fitter of
 * `src-common/analysis/dose-response/`, beside what the vault fitted: which points each fit used
 * and why it left out the others, the constraints it honoured (the calculation's with the
 * series' own over them), how it compares with the vault's fit, and which curve to draw. The
 * reading and fitting run in the curve workers (`curve-fit-pool.ts`); each fit comes with a
 * content hash of everything it depends on, so that a caller holding the fit of the same hash
 * need not have it computed again.
 */

/** The local fit without its list of excluded points (each point says why it was left out). */
export type LocalFit = Omit<DoseResponseFit, 'points'> & {
  points: Omit<PointReport, 'excluded'>
}

export interface FittedPoint extends CurvePoint {
  /** Why the local fit left the point out; null when it used it. */
  exclusion: ExclusionReason | null
}

/** What each side concluded: a curve, an inactive compound, or no curve. */
export type CurveVerdict = 'curve' | 'inactive' | 'no curve'

export interface CurveComparison {
  vault: CurveVerdict
  /** `not fitted here`: the equation has no local fitting (Biphasic, Bell Curve) or is unknown. */
  local: CurveVerdict | 'not fitted here'
  /** Null when the local side could not fit. */
  sameVerdict: boolean | null
  /**
   * Each parameter both fitted: (local - vault) / |vault| (null where the vault's is 0). A Hill
   * fit the vault wrote with min above max is compared as the same curve with min <= max.
   */
  parameters: Record<string, { vault: number; local: number; relativeDifference: number | null }>
  /** The calculation's result parameter (`ic50` for Hill) and local / vault of it. */
  resultParameter: string | null
  resultRatio: number | null
  /**
   * The sum of squares of each curve over the points the local fit used: where both drew a curve
   * and they differ, which describes these points better (a lower one for the vault's means the
   * local search stopped in another valley, or the points changed since).
   */
  sumOfSquares: { vault: number; local: number } | null
}

export interface DrawnCurve {
  source: 'vault' | 'local'
  equationType: string
  parameters: Record<string, number>
  /**
   * The vault's curve although its points have changed since (corrections waiting in the outbox,
   * or rows changed after it fitted) and no local fit can replace it (Biphasic, Bell Curve).
   */
  stale: boolean
}

export interface CurveSeries extends Omit<CurveSeriesData, 'points'> {
  points: FittedPoint[]
  /** The constraints the local fit honoured; null when they could not be read (see the fit). */
  constraints: FitConstraints | null
  local: LocalFit
  /** Null when the vault said nothing of the series' curve. */
  comparison: CurveComparison | null
  /**
   * The vault's curve while it fitted the points the cache holds now; else the local fit's; null
   * when neither is drawable (the points alone are drawn).
   */
  drawn: DrawnCurve | null
  /**
   * The vault's fit no longer describes these points or constraints (pending corrections or
   * constraint edits, changed rows).
   */
  vaultFitOutdated: boolean
}

/** Bumped whenever a change of the fitter or of this file changes fits of the same inputs. */
const fitVersion = 1

/** The inputs a fit depends on, one per point, in the points' order. */
function pointInputs(points: readonly CurvePoint[]): DoseResponsePointInput[] {
  return points.map((point) => ({
    key: point.rowId,
    outlier: point.outlier,
    // A qualified concentration (`<0.01`) is not a dose: its text is not read as a number.
    concentration:
      point.concentrationModifier === null
        ? (point.concentration ?? point.concentrationText)
        : point.concentrationText,
    response: point.response ?? point.responseText,
    modifier: point.responseModifier,
  }))
}

function equationTypeOf(calculation: CurveCalculation | null, data: CurveSeriesData): unknown {
  return calculation?.equationType ?? data.equationType
}

type ConstraintsOf =
  { ok: true; constraints: FitConstraints } | { ok: false; raw: unknown; source: string }

/** The calculation's constraints with the series' own over them, each read at its level. */
function constraintsOf(calculation: CurveCalculation | null, data: CurveSeriesData): ConstraintsOf {
  const equationType = equationTypeOf(calculation, data)
  if (!isEquationType(equationType)) return { ok: true, constraints: {} }
  const calculationLevel = readFitConstraints(
    equationType,
    calculation?.fitParameters,
    'calculation',
  )
  if (!calculationLevel.ok) {
    return { ok: false, raw: calculation?.fitParameters, source: "the calculation's" }
  }
  const seriesLevel = readFitConstraints(equationType, data.fitParameters, 'data series')
  if (!seriesLevel.ok) return { ok: false, raw: data.fitParameters, source: "the data series'" }
  return {
    ok: true,
    constraints: mergeConstraints(calculationLevel.constraints, seriesLevel.constraints),
  }
}

/** A content hash of everything a series' fit depends on. */
export function fitHash(calculation: CurveCalculation | null, data: CurveSeriesData): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        fitVersion,
        equationTypeOf(calculation, data),
        calculation?.fitParameters ?? null,
        data.fitParameters,
        calculation?.minimumActivity ?? null,
        pointInputs(data.points),
      ]),
    )
    .digest('base64url')
}

/** Fits a series locally, as its calculation says (equation, constraints, minimum activity). */
export function fitSeries(
  calculation: CurveCalculation | null,
  data: CurveSeriesData,
): DoseResponseFit {
  const constraints = constraintsOf(calculation, data)
  const fit = fitDoseResponse(equationTypeOf(calculation, data), pointInputs(data.points), {
    constraints: constraints.ok ? constraints.constraints : constraints.raw,
    minimumActivity: calculation?.minimumActivity ?? null,
  })
  if (!constraints.ok && fit.outcome === 'invalid constraints') {
    return { ...fit, reason: `${constraints.source} fit_parameters: ${fit.reason}` }
  }
  return fit
}

/** A worker's answer for a series made whole: points marked, compared, the curve to draw. */
export function describeSeries(
  calculation: CurveCalculation | null,
  data: CurveSeriesData,
  fit: DoseResponseFit,
): CurveSeries {
  const exclusions = new Map(fit.points.excluded.map((point) => [point.index, point.reason]))
  const { excluded: _excluded, ...report } = fit.points
  const local: LocalFit = { ...fit, points: report }
  const equationType = equationTypeOf(calculation, data)
  const constraints = constraintsOf(calculation, data)
  const vault = data.vault
  // Not judged by the number of points used: the vault's rules for which points count may differ.
  const outdated =
    vault.samePoints === false ||
    data.pendingEdit !== null ||
    data.points.some((point) => point.pending !== null)
  const vaultCurve =
    vault.status === 'fitted' && vault.parameters ? curveFrom(equationType, vault.parameters) : null
  let drawn: DrawnCurve | null = null
  if (vaultCurve?.ok && !outdated) {
    drawn = {
      source: 'vault',
      equationType: String(equationType),
      parameters: vault.parameters!,
      stale: false,
    }
  } else if (fit.converged && fit.parameters) {
    drawn = {
      source: 'local',
      equationType: String(equationType),
      parameters: Object.fromEntries(
        Object.entries(fit.parameters).map(([name, estimate]) => [name, estimate.value]),
      ),
      stale: false,
    }
  } else if (vaultCurve?.ok && fit.outcome === 'not implemented') {
    drawn = {
      source: 'vault',
      equationType: String(equationType),
      parameters: vault.parameters!,
      stale: true,
    }
  }
  return {
    ...data,
    points: data.points.map((point, index) => ({
      ...point,
      exclusion: exclusions.get(index) ?? null,
    })),
    constraints: constraints.ok ? constraints.constraints : null,
    local,
    comparison: compare(equationType, data, fit),
    drawn,
    vaultFitOutdated: outdated,
  }
}

function verdictOfVault(status: string | null): CurveVerdict | null {
  if (status === 'fitted') return 'curve'
  if (status === 'inactive') return 'inactive'
  if (status === 'failed') return 'no curve'
  return null
}

function compare(
  equationType: unknown,
  data: CurveSeriesData,
  fit: DoseResponseFit,
): CurveComparison | null {
  const vault = data.vault
  const inputs = pointInputs(data.points)
  const excluded = new Set(fit.points.excluded.map((point) => point.index))
  const vaultVerdict = verdictOfVault(vault.status)
  if (vaultVerdict === null) return null
  const localVerdict: CurveComparison['local'] =
    fit.outcome === 'not implemented' || fit.outcome === 'unknown equation type'
      ? 'not fitted here'
      : fit.converged
        ? 'curve'
        : fit.outcome === 'inactive'
          ? 'inactive'
          : 'no curve'
  const parameters: CurveComparison['parameters'] = {}
  const resultParameter = isEquationType(equationType)
    ? EQUATIONS[equationType].resultParameter
    : null
  let resultRatio: number | null = null
  let sumOfSquares: CurveComparison['sumOfSquares'] = null
  if (vaultVerdict === 'curve' && fit.converged && fit.parameters && vault.parameters) {
    const theirs = equationType === 'Hill' ? withMinBelowMax(vault.parameters) : vault.parameters
    for (const [name, estimate] of Object.entries(fit.parameters)) {
      const value = theirs[name]
      if (value === undefined) continue
      parameters[name] = {
        vault: value,
        local: estimate.value,
        relativeDifference: value === 0 ? null : (estimate.value - value) / Math.abs(value),
      }
    }
    const vaultCurve = curveFrom(equationType, vault.parameters)
    if (vaultCurve.ok && fit.statistics) {
      let squares = 0
      inputs.forEach((input, index) => {
        if (excluded.has(index)) return
        const at = vaultCurve.curve.at(Number(input.concentration))
        squares += at === null ? Number.NaN : (Number(input.response) - at) ** 2
      })
      if (Number.isFinite(squares)) {
        sumOfSquares = { vault: squares, local: fit.statistics.sumOfSquares }
      }
    }
    const ours = resultParameter ? fit.parameters[resultParameter]?.value : undefined
    const vaults = resultParameter ? theirs[resultParameter] : undefined
    if (ours !== undefined && vaults !== undefined && vaults !== 0) resultRatio = ours / vaults
  }
  return {
    vault: vaultVerdict,
    local: localVerdict,
    sameVerdict: localVerdict === 'not fitted here' ? null : localVerdict === vaultVerdict,
    parameters,
    resultParameter,
    resultRatio,
    sumOfSquares,
  }
}

/** The same Hill curve written with min <= max (the slope's sign follows). */
function withMinBelowMax(parameters: Record<string, number>): Record<string, number> {
  const { min, max, slope } = parameters
  if (min === undefined || max === undefined || slope === undefined || min <= max) return parameters
  return { ...parameters, min: max, max: min, slope: -slope }
}

/** One worker's task: a selection of one cache's series, with the corrections waiting. */
export interface CurveFitTask {
  file: string
  vaultId: number
  selection: CurveSelection
  pending: PendingReadoutRow[]
  /** Edits of series' fit constraints waiting in the outbox. */
  pendingSeries?: PendingSeriesEdit[]
}

/** The `workerData` a curve worker is started with. */
export interface CurveWorkerData {
  kind: typeof curveWorkerKind
  /** Fits the worker keeps to reuse while their inputs stay the same. */
  keptFits: number
}
export const curveWorkerKind = 'vault-desk curve worker'

/** Series are answered in parts, so that taking each in costs the main thread little. */
export const seriesPerPart = 100
/** Parts a worker sends ahead of the main thread's acknowledgements. */
export const partsAhead = 2

/**
 * A part's series as a worker sends them: the points of all its series in columns (numbers in one
 * typed array, texts as places in a list of the part's different texts) instead of an object
 * each. A 16-point series is four fifths points; as objects they cost the main thread about twice
 * as much to take in, and the copy in and out of the message twice as many bytes. A part's wells
 * and concentrations repeat from series to series: each different text crosses once.
 */
export interface PackedSeries {
  series: Omit<CurveSeries, 'points'>[]
  /** Each series' number of points, in order. */
  counts: Uint32Array
  /** Per point: row id, plate id, concentration, response (NaN for null). */
  numbers: Float64Array
  /**
   * Per point: well, plate name, the modifiers, the texts given and the exclusion, each as its
   * place in `texts` plus one (0 for null).
   */
  textPlaces: Uint32Array
  /** The part's different texts. */
  texts: string[]
  /** Per point: 1 when an outlier. */
  outliers: Uint8Array
  /** The few points with a correction waiting: their place among the part's points, and its mark. */
  pending: [number, NonNullable<CurvePoint['pending']>][]
}

const numbersPerPoint = 4
const textsPerPoint = 7

/** A part's series packed to send (see `PackedSeries`). */
export function packSeries(series: readonly CurveSeries[]): PackedSeries {
  let total = 0
  for (const entry of series) total += entry.points.length
  const packed: PackedSeries = {
    series: [],
    counts: new Uint32Array(series.length),
    numbers: new Float64Array(total * numbersPerPoint),
    textPlaces: new Uint32Array(total * textsPerPoint),
    texts: [],
    outliers: new Uint8Array(total),
    pending: [],
  }
  const places = new Map<string, number>()
  const placeOf = (text: string | null): number => {
    if (text === null) return 0
    let place = places.get(text)
    if (place === undefined) {
      place = packed.texts.push(text)
      places.set(text, place)
    }
    return place
  }
  const orNaN = (value: number | null) => (value === null ? Number.NaN : value)
  let at = 0
  series.forEach(({ points, ...rest }, index) => {
    packed.series.push(rest)
    packed.counts[index] = points.length
    for (const point of points) {
      const number = at * numbersPerPoint
      packed.numbers[number] = point.rowId
      packed.numbers[number + 1] = orNaN(point.plateId)
      packed.numbers[number + 2] = orNaN(point.concentration)
      packed.numbers[number + 3] = orNaN(point.response)
      const text = at * textsPerPoint
      packed.textPlaces[text] = placeOf(point.well)
      packed.textPlaces[text + 1] = placeOf(point.plateName)
      packed.textPlaces[text + 2] = placeOf(point.concentrationModifier)
      packed.textPlaces[text + 3] = placeOf(point.responseModifier)
      packed.textPlaces[text + 4] = placeOf(point.concentrationText)
      packed.textPlaces[text + 5] = placeOf(point.responseText)
      packed.textPlaces[text + 6] = placeOf(point.exclusion)
      packed.outliers[at] = point.outlier ? 1 : 0
      if (point.pending !== null) packed.pending.push([at, point.pending])
      at += 1
    }
  })
  return packed
}

/**
 * The series `packSeries` packed, as they were. Takes the packed series' records over (they
 * become the answer's series), so a part is unpacked once.
 */
export function unpackSeries(packed: PackedSeries): CurveSeries[] {
  const marks = new Map(packed.pending)
  const { numbers, textPlaces, texts, outliers } = packed
  const orNull = (value: number) => (Number.isNaN(value) ? null : value)
  const textAt = (place: number) => (place === 0 ? null : texts[place - 1]!)
  let at = 0
  return packed.series.map((rest, index) => {
    const count = packed.counts[index]!
    const points: FittedPoint[] = new Array<FittedPoint>(count)
    for (let point = 0; point < count; point += 1, at += 1) {
      const number = at * numbersPerPoint
      const text = at * textsPerPoint
      points[point] = {
        rowId: numbers[number]!,
        plateId: orNull(numbers[number + 1]!),
        plateName: textAt(textPlaces[text + 1]!),
        well: textAt(textPlaces[text]!),
        concentration: orNull(numbers[number + 2]!),
        concentrationModifier: textAt(textPlaces[text + 2]!),
        response: orNull(numbers[number + 3]!),
        responseModifier: textAt(textPlaces[text + 3]!),
        concentrationText: textAt(textPlaces[text + 4]!),
        responseText: textAt(textPlaces[text + 5]!),
        outlier: outliers[at] === 1,
        pending: marks.get(at) ?? null,
        exclusion: textAt(textPlaces[text + 6]!) as ExclusionReason | null,
      }
    }
    // The record came in the message: it becomes the series, without a copy of its members.
    const series = rest as CurveSeries
    series.points = points
    return series
  })
}

export type CurveWorkerMessage =
  | { type: 'ready' }
  | { type: 'head'; taskId: number; calculations: CurveCalculation[]; total: number }
  | { type: 'part'; taskId: number; series: PackedSeries }
  | { type: 'done'; taskId: number; fitted: number; reused: number }
  | { type: 'failed'; taskId: number; error: ErrorValue }

export type CurveMainMessage =
  | { type: 'task'; taskId: number; task: CurveFitTask }
  /** A part was taken in: the worker may send another. */
  | { type: 'ack'; taskId: number }
  | { type: 'close' }

/**
 * Fits a worker keeps by series, with the hash of their inputs: one whose hash still matches is
 * reused. The least recently used go first beyond the limit.
 */
export class KeptFits {
  readonly #limit: number
  readonly #fits = new Map<string, { hash: string; fit: DoseResponseFit }>()

  constructor(limit: number) {
    this.#limit = limit
  }

  /** Whether it keeps any: when not, a fit's hash need not be computed. */
  get keeps(): boolean {
    return this.#limit > 0
  }

  take(key: string, hash: string): DoseResponseFit | null {
    const kept = this.#fits.get(key)
    if (!kept || kept.hash !== hash) return null
    this.#fits.delete(key)
    this.#fits.set(key, kept)
    return kept.fit
  }

  keep(key: string, hash: string, fit: DoseResponseFit): void {
    this.#fits.delete(key)
    if (this.#limit <= 0) return
    this.#fits.set(key, { hash, fit })
    for (const oldest of this.#fits.keys()) {
      if (this.#fits.size <= this.#limit) break
      this.#fits.delete(oldest)
    }
  }
}

/**
 * A task's messages, in order: its calculations and series count, its series fitted and described
 * in parts, and what was fitted and reused. Reads the cache on its own read-only connection, open
 * until the last message is taken.
 */
export function* curveFitMessages(
  taskId: number,
  task: CurveFitTask,
  kept: KeptFits,
): Generator<CurveWorkerMessage, void, void> {
  let db: Database.Database
  try {
    db = new Database(task.file, { readonly: true, fileMustExist: true })
  } catch (error) {
    throw new AppError(
      'storage',
      `Cannot read the cache ${task.file}: ${(error as Error).message}`,
      {
        cause: error,
      },
    )
  }
  try {
    db.pragma('busy_timeout = 5000')
    const data = db.transaction(() =>
      new CurveQueries(db).read(task.vaultId, task.selection, task.pending, task.pendingSeries),
    )()
    yield { type: 'head', taskId, calculations: data.calculations, total: data.total }
    const calculations = new Map(
      data.calculations.map((calculation) => [calculation.id, calculation]),
    )
    let fitted = 0
    let part: CurveSeries[] = []
    for (const series of data.series) {
      const calculation = calculations.get(series.calculationId) ?? null
      const key = `${task.file}\u0000${task.vaultId}\u0000${series.id}`
      const hash = kept.keeps ? fitHash(calculation, series) : null
      let fit = hash === null ? null : kept.take(key, hash)
      if (!fit) {
        fit = fitSeries(calculation, series)
        if (hash !== null) kept.keep(key, hash, fit)
        fitted += 1
      }
      part.push(describeSeries(calculation, series, fit))
      if (part.length === seriesPerPart) {
        yield { type: 'part', taskId, series: packSeries(part) }
        part = []
      }
    }
    if (part.length > 0) yield { type: 'part', taskId, series: packSeries(part) }
    yield { type: 'done', taskId, fitted, reused: data.series.length - fitted }
  } finally {
    db.close()
  }
}

/**
 * The message loop of a curve worker thread (see curve-fit-worker.ts): one task at a time. The
 * worker goes on fitting while the main thread takes parts in, but sends no more than
 * `partsAhead` parts it has not acknowledged: the others wait here, not in the main thread's
 * queue, so that the main thread takes in each part as its own turn of its event loop.
 */
export function runCurveFitWorker(port: MessagePort, data: CurveWorkerData): void {
  const kept = new KeptFits(data.keptFits)
  const tasks: { taskId: number; task: CurveFitTask }[] = []
  let running = false
  let current = 0
  let credits = partsAhead
  let waiting: CurveWorkerMessage[] = []
  let drained: (() => void) | null = null
  const flush = (): void => {
    while (waiting.length > 0 && (waiting[0]!.type !== 'part' || credits > 0)) {
      const message = waiting.shift()!
      if (message.type === 'part') credits -= 1
      port.postMessage(message)
    }
    if (waiting.length === 0) drained?.()
  }
  // A turn of this thread's event loop, in which acknowledgements arrive.
  const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
  const run = async (): Promise<void> => {
    running = true
    while (tasks.length > 0) {
      const { taskId, task } = tasks.shift()!
      current = taskId
      credits = partsAhead
      waiting = []
      try {
        for (const message of curveFitMessages(taskId, task, kept)) {
          waiting.push(message)
          flush()
          if (message.type === 'part') await turn()
        }
        if (waiting.length > 0) await new Promise<void>((resolve) => (drained = resolve))
        drained = null
      } catch (error) {
        waiting = []
        port.postMessage({
          type: 'failed',
          taskId,
          error: toErrorValue(error),
        } satisfies CurveWorkerMessage)
      }
    }
    running = false
  }
  port.on('message', (message: CurveMainMessage) => {
    if (message.type === 'close') {
      port.close()
    } else if (message.type === 'ack') {
      if (message.taskId !== current) return
      credits += 1
      flush()
    } else {
      tasks.push(message)
      if (!running) void run()
    }
  })
  port.postMessage({ type: 'ready' } satisfies CurveWorkerMessage)
}
