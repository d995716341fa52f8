import { toNumber } from '../../values.ts'
import { fDistributionSurvival, studentTQuantile } from '../statistics.ts'
import { rangeOf, readFitConstraints, type FitConstraints } from './constraints.ts'
import { EQUATIONS, EQUATION_TYPES, isEquationType, type EquationType } from './equations.ts'
import { choleskySolve, solveBoundedLeastSquares, type StopReason } from './least-squares.ts'
import { FIT_MODELS, type FitModel } from './models.ts'
import { usablePoints, type DoseResponsePointInput, type PointReport } from './points.ts'

/**
 * A local least-squares fit of one data series. Every input gives a result value, never a throw
 * and never a NaN: see README.md beside this file for each outcome and its reason.
 */

export type FitOutcome =
  | 'fitted'
  | 'not converged'
  | 'not determined'
  | 'too few points'
  | 'too few concentrations'
  | 'all responses equal'
  | 'inactive'
  | 'invalid constraints'
  | 'not implemented'
  | 'unknown equation type'

export interface ParameterEstimate {
  value: number
  /** From the covariance; null when fixed, on a bound, or without residual degrees of freedom. */
  standardError: number | null
  /** Held at its value by an `=` constraint. */
  fixed: boolean
  /** The bound of its constraint the estimate rests on, if any. */
  atBound: 'lower' | 'upper' | null
}

export interface Potency {
  /**
   * The Hill centre, the vault's result of a Hill calculation (`ic50` in its fit parameters);
   * whether a person calls it IC50 or EC50 depends on what the readout measures.
   */
  parameter: 'ic50'
  value: number
  log10: number
  log10StandardError: number | null
  /**
   * 95% confidence interval: log10 ic50 ± t(0.975, df) · SE(log10 ic50), back-transformed (so it
   * is not symmetric around the value). Null without residual degrees of freedom.
   */
  confidenceInterval95: { low: number; high: number } | null
  /** Whether it lies within the tested (used, positive) concentrations. */
  withinTestedRange: boolean
}

/**
 * Whether the curve explains the responses better than a horizontal line at their mean: the
 * extra sum-of-squares F test, F = ((SS_line - SS_curve) / (p - 1)) / (SS_curve / df). A curve
 * fitted through noise converges too; this says so. (Where constraints keep the curve from
 * being flat, the two models are not nested and the test is only indicative.)
 */
export interface FlatLineComparison {
  fStatistic: number
  pValue: number
  /** p < 0.05. */
  significant: boolean
}

export interface FitStatistics {
  /** Points used. */
  n: number
  /** n minus the parameters fitted (fixed ones not counted). */
  degreesOfFreedom: number
  sumOfSquares: number
  /** 1 - SS_residual / SS_total; null when the responses do not vary. */
  rSquared: number | null
  /** sqrt(SS_residual / n). */
  rmse: number
  /** sqrt(SS_residual / df); null when df = 0. */
  residualStandardError: number | null
  /** Null with one free parameter, no residual degrees of freedom, or an exact fit. */
  versusFlatLine: FlatLineComparison | null
}

export interface DoseResponseFit {
  equationType: string
  /** Whether a local fit ran (false: the input or the equation type did not allow one). */
  fitted: boolean
  /**
   * Whether it converged to a curve the data determine; only then are parameters given (a fit
   * that ran away or is not determined draws the points only).
   */
  converged: boolean
  outcome: FitOutcome
  /** Why there is no curve, in words for a scientist; null when converged. */
  reason: string | null
  parameters: Record<string, ParameterEstimate> | null
  potency: Potency | null
  statistics: FitStatistics | null
  points: PointReport
  /**
   * Optimiser diagnostics: starting points tried, iterations and stop of the search kept, and
   * where it ended (in API units; also when it did not converge, to show what ran away).
   */
  search: {
    starts: number
    iterations: number
    stop: StopReason | null
    lastEstimate: Record<string, number> | null
  }
}

export interface FitOptions {
  /**
   * Constraints as the API writes fit_parameters (merge a series' over its calculation's first,
   * `mergeConstraints`); read and checked here, so raw JSON is fine.
   */
  constraints?: FitConstraints | unknown
  /** How points at zero concentration are used on a log axis (see points.ts). */
  zeroConcentration?: 'exclude' | 'plateau'
  /** Largest number of starting points tried when the first does not converge. */
  maxStarts?: number
  /**
   * The calculation's minimum activity bounds, as the vault applies them: a series whose every
   * used response lies within [min, max] is inactive and gets no fit.
   */
  minimumActivity?: { min?: number | null; max?: number | null } | null
}

/**
 * Correlations between parameters this close to ±1 (1 - R² of a Jacobian column regressed on the
 * others below it) mean the data do not determine them: no curve is reported.
 */
export const IDENTIFIABILITY_TOLERANCE = 1e-9

export function fitDoseResponse(
  equationType: unknown,
  input: readonly DoseResponsePointInput[],
  options: FitOptions = {},
): DoseResponseFit {
  const known = isEquationType(equationType)
  const points = usablePoints(Array.isArray(input) ? input : [], {
    logConcentration: known ? EQUATIONS[equationType].logConcentration : false,
    zeroConcentration: options.zeroConcentration ?? 'exclude',
  })
  const refuse = (outcome: FitOutcome, reason: string): DoseResponseFit => ({
    equationType: String(equationType),
    fitted: false,
    converged: false,
    outcome,
    reason,
    parameters: null,
    potency: null,
    statistics: null,
    points: points.report,
    search: { starts: 0, iterations: 0, stop: null, lastEstimate: null },
  })
  if (!known) {
    return refuse(
      'unknown equation type',
      `unknown equation type ${JSON.stringify(equationType)} (known: ${EQUATION_TYPES.join(', ')})`,
    )
  }
  const model = FIT_MODELS[equationType]
  if (!model) {
    return refuse(
      'not implemented',
      `local fitting of ${equationType} is not implemented: its curve is drawn from the vault's parameters only`,
    )
  }
  const reading = readFitConstraints(equationType, options.constraints, 'data series')
  if (!reading.ok) return refuse('invalid constraints', reading.problems.join('; '))
  const space = searchSpace(model, reading.constraints)
  if (typeof space === 'string') return refuse('invalid constraints', space)

  const { concentrations, responses } = points
  const n = responses.length
  const freeCount = space.free.reduce((count, flag) => count + flag, 0)
  const needed = Math.max(1, freeCount)
  if (n < needed) {
    return refuse(
      'too few points',
      `${equationType} has ${freeCount} free parameters and needs at least ${needed} usable points; ` +
        `${n} ${n === 1 ? 'is' : 'are'} usable${excludedSummary(points.report)}`,
    )
  }
  const distinct = new Set(concentrations).size
  if (distinct < needed) {
    return refuse(
      'too few concentrations',
      `${equationType} has ${freeCount} free parameters and needs at least ${needed} different ` +
        `concentrations; the usable points have ${distinct}`,
    )
  }
  let lowestResponse = Number.POSITIVE_INFINITY
  let highestResponse = Number.NEGATIVE_INFINITY
  for (const response of responses) {
    lowestResponse = Math.min(lowestResponse, response)
    highestResponse = Math.max(highestResponse, response)
  }
  if (lowestResponse === highestResponse && equationType !== 'Linear') {
    return refuse(
      'all responses equal',
      `all ${n} usable responses are equal (${lowestResponse}): a flat line has no ${equationType} curve`,
    )
  }

  const activity = options.minimumActivity
  const activityLow = toNumber(activity?.min) ?? Number.NEGATIVE_INFINITY
  const activityHigh = toNumber(activity?.max) ?? Number.POSITIVE_INFINITY
  if (
    (activityLow > Number.NEGATIVE_INFINITY || activityHigh < Number.POSITIVE_INFINITY) &&
    lowestResponse >= activityLow &&
    highestResponse <= activityHigh
  ) {
    return refuse(
      'inactive',
      `inactive: all ${n} usable responses lie within the minimum activity bounds ` +
        `(${activity?.min ?? '-∞'} to ${activity?.max ?? '∞'})`,
    )
  }

  const evaluator = model.evaluator(concentrations)
  const size = model.entries.length
  const problem = {
    observations: n,
    size,
    responses,
    evaluate: evaluator.evaluate,
    jacobian: evaluator.jacobian,
    lower: space.lower,
    upper: space.upper,
    free: space.free,
  }
  const tested = testedRange(concentrations)
  const starts = model.starts(concentrations, responses)
  const maxStarts = Number.isInteger(options.maxStarts)
    ? Math.max(1, Math.min(options.maxStarts!, starts.length))
    : starts.length
  let best: { result: ReturnType<typeof solveBoundedLeastSquares>; check: Assessment } | null = null
  let tried = 0
  for (const start of starts.slice(0, maxStarts)) {
    tried += 1
    for (let j = 0; j < size; j += 1) {
      if (!space.free[j]) start[j] = space.fixed[j]!
      else if (!Number.isFinite(start[j]!)) start[j] = 0
    }
    const result = solveBoundedLeastSquares(problem, start)
    const check = assess(model, problem, result.parameters, tested)
    const usable = result.converged && check.determined
    const bestUsable = best !== null && best.result.converged && best.check.determined
    if (
      best === null ||
      (usable && !bestUsable) ||
      (usable === bestUsable && result.sumOfSquares < best.result.sumOfSquares)
    ) {
      best = { result: { ...result, parameters: Float64Array.from(result.parameters) }, check }
    }
    if (usable) break
  }
  const { result, check } = best!
  const lastEstimate = estimateOf(model, result.parameters)
  const search = { starts: tried, iterations: result.iterations, stop: result.stop, lastEstimate }
  if (!result.converged) {
    return {
      ...refuse(
        'not converged',
        notConvergedReason(result.stop, equationType, lastEstimate, tested),
      ),
      fitted: true,
      search,
    }
  }
  if (!check.determined) {
    return {
      ...refuse('not determined', `the ${equationType} fit converged, but ${check.problem!}`),
      fitted: true,
      search,
    }
  }
  return {
    equationType,
    fitted: true,
    converged: true,
    outcome: 'fitted',
    reason: null,
    ...describe(
      model,
      space,
      problem,
      result.parameters,
      result.sumOfSquares,
      concentrations,
      check.information,
    ),
    points: points.report,
    search,
  }
}

interface TestedRange {
  lowLog: number
  highLog: number
  /** log10 of each different positive concentration, increasing. */
  logs: number[]
}

function testedRange(concentrations: Float64Array): TestedRange {
  const logs = [...new Set(concentrations)]
    .filter((concentration) => concentration > 0)
    .sort((a, b) => a - b)
    .map(Math.log10)
  return { lowLog: logs[0] ?? Number.NaN, highLog: logs[logs.length - 1] ?? Number.NaN, logs }
}

interface SearchSpace {
  lower: Float64Array
  upper: Float64Array
  free: Uint8Array
  fixed: Float64Array
}

/** Constraints as bounds on the search vector; a string says why none are possible. */
function searchSpace(model: FitModel, constraints: FitConstraints): SearchSpace | string {
  const size = model.entries.length
  const space: SearchSpace = {
    lower: new Float64Array(size),
    upper: new Float64Array(size),
    free: new Uint8Array(size),
    fixed: new Float64Array(size),
  }
  for (let j = 0; j < size; j += 1) {
    const entry = model.entries[j]!
    const range = rangeOf(constraints[entry.name])
    const [domainLow, domainHigh] = entry.domain
    if ('fixed' in range) {
      if (
        range.fixed < domainLow ||
        range.fixed > domainHigh ||
        (entry.log10 && range.fixed <= 0)
      ) {
        return `${entry.name} cannot be fixed at ${range.fixed}: it must lie in ${describeDomain(entry.domain, entry.log10)}`
      }
      space.fixed[j] = entry.log10 ? Math.log10(range.fixed) : range.fixed
      space.lower[j] = space.upper[j] = space.fixed[j]!
      continue
    }
    const lower = Math.max(range.lower, domainLow)
    const upper = Math.min(range.upper, domainHigh)
    if (lower > upper || (entry.log10 && upper <= 0)) {
      return `the constraint on ${entry.name} leaves no allowed value (it must lie in ${describeDomain(entry.domain, entry.log10)})`
    }
    space.free[j] = 1
    space.lower[j] = entry.log10 ? (lower > 0 ? Math.log10(lower) : -Infinity) : lower
    space.upper[j] = entry.log10 ? Math.log10(upper) : upper
  }
  return space
}

function describeDomain(domain: readonly [number, number], log10: boolean): string {
  if (log10) return '(0, ∞)'
  return `[${domain[0] === -Infinity ? '-∞' : domain[0]}, ${domain[1] === Infinity ? '∞' : domain[1]}]`
}

function excludedSummary(report: PointReport): string {
  const parts = Object.entries(report.excludedByReason).map(
    ([reason, count]) => `${count} ${reason}`,
  )
  return parts.length > 0 ? ` (left out: ${parts.join(', ')})` : ''
}

function estimateOf(model: FitModel, search: Float64Array): Record<string, number> {
  const estimate: Record<string, number> = {}
  model.entries.forEach((entry, j) => {
    estimate[entry.name] = entry.log10 ? Math.pow(10, search[j]!) : search[j]!
  })
  return estimate
}

function notConvergedReason(
  stop: StopReason,
  equationType: EquationType,
  estimate: Record<string, number>,
  tested: TestedRange,
): string {
  if (stop === 'non-finite') {
    return `the ${equationType} curve could not be evaluated at the points (values overflow)`
  }
  const what =
    stop === 'iteration limit' ? 'did not converge within its iteration limit' : 'stalled'
  if (equationType === 'Hill') {
    const centre = Math.log10(estimate.ic50!)
    if (centre < tested.lowLog - 1 || centre > tested.highLog + 1) {
      return (
        `the Hill fit ${what}: its centre ran to ${formatNumber(estimate.ic50!)}, far outside the ` +
        `tested concentrations (${formatNumber(10 ** tested.lowLog)} to ${formatNumber(10 ** tested.highLog)}); ` +
        'a plateau is probably not reached within them'
      )
    }
    if (Math.abs(estimate.slope!) > 10) {
      return (
        `the Hill fit ${what}: its slope ran to ${formatNumber(estimate.slope!)}, ` +
        'so the transition lies between two tested concentrations with no point on it'
      )
    }
  }
  return `the ${equationType} fit ${what}`
}

function formatNumber(value: number): string {
  return Number(value.toPrecision(3)).toString()
}

interface Assessment {
  /** Whether the data determine the curve; when not, why (for a scientist). */
  determined: boolean
  problem: string | null
  information: Information
}

interface Information {
  /** Indices of the parameters neither fixed nor on a bound. */
  moving: number[]
  /** JᵀJ over those parameters. */
  matrix: Float64Array
  /** Squared pivots of the Cholesky factor of its correlation form. */
  pivots: Float64Array
}

/** Which parameters move freely (not fixed, not resting on a bound). */
function movingMask(problem: Problem, search: Float64Array): Uint8Array {
  const moving = new Uint8Array(problem.size)
  for (let j = 0; j < problem.size; j += 1) {
    moving[j] =
      problem.free[j] && search[j]! > problem.lower[j]! && search[j]! < problem.upper[j]! ? 1 : 0
  }
  return moving
}

interface Problem {
  observations: number
  size: number
  responses: Float64Array
  evaluate: (search: Float64Array, values: Float64Array) => void
  jacobian: (search: Float64Array, jacobian: Float64Array) => void
  lower: Float64Array
  upper: Float64Array
  free: Uint8Array
}

/**
 * Cholesky factor of the correlation form of JᵀJ over the moving parameters: its squared
 * pivots are 1 - R² of each column on those before it, so a tiny one names a parameter the data
 * do not determine. Returns the moving indices, the JᵀJ matrix and the pivots.
 */
function informationMatrix(problem: Problem, search: Float64Array): Information {
  const { observations: m, size: n } = problem
  const jacobian = new Float64Array(m * n)
  problem.jacobian(search, jacobian)
  const mask = movingMask(problem, search)
  const moving: number[] = []
  for (let j = 0; j < n; j += 1) if (mask[j]) moving.push(j)
  const k = moving.length
  const matrix = new Float64Array(k * k)
  for (let a = 0; a < k; a += 1) {
    for (let b = a; b < k; b += 1) {
      let sum = 0
      for (let i = 0; i < m; i += 1) {
        sum += jacobian[i * n + moving[a]!]! * jacobian[i * n + moving[b]!]!
      }
      matrix[a * k + b] = sum
      matrix[b * k + a] = sum
    }
  }
  const correlation = new Float64Array(k * k)
  for (let a = 0; a < k; a += 1) {
    for (let b = 0; b < k; b += 1) {
      const scale = Math.sqrt(matrix[a * k + a]! * matrix[b * k + b]!)
      correlation[a * k + b] = scale > 0 ? matrix[a * k + b]! / scale : a === b ? 0 : 0
    }
  }
  const pivots = new Float64Array(k)
  for (let j = 0; j < k; j += 1) {
    let diagonal = correlation[j * k + j]!
    for (let l = 0; l < j; l += 1) diagonal -= correlation[j * k + l]! ** 2
    pivots[j] = diagonal
    const pivot = diagonal > 0 ? Math.sqrt(diagonal) : 0
    correlation[j * k + j] = pivot
    for (let i = j + 1; i < k; i += 1) {
      let sum = correlation[i * k + j]!
      for (let l = 0; l < j; l += 1) sum -= correlation[i * k + l]! * correlation[j * k + l]!
      correlation[i * k + j] = pivot > 0 ? sum / pivot : 0
    }
  }
  return { moving, matrix, pivots }
}

/** A Hill centre more than this many decades beyond the tested concentrations is not determined. */
export const CENTRE_DECADES_BEYOND_TESTED = 2

/** A Hill curve's transition: from 10% to 90% of the way between its plateaus. */
const TRANSITION = [0.1, 0.9] as const

/**
 * Whether the data determine the fitted curve: no two parameters (almost) perfectly correlated,
 * and for Hill a centre within 100-fold of the tested concentrations and at least one tested
 * concentration on the transition. scipy_reference.py applies the same rules to SciPy's fits.
 */
function assess(
  model: FitModel,
  problem: Problem,
  search: Float64Array,
  tested: TestedRange,
): Assessment {
  const information = informationMatrix(problem, search)
  const { moving, pivots } = information
  const undetermined: string[] = []
  pivots.forEach((pivot, index) => {
    if (!(pivot > IDENTIFIABILITY_TOLERANCE)) undetermined.push(model.entries[moving[index]!]!.name)
  })
  // A pivot names the later of two collinear columns; name the partner too when only one is left.
  if (undetermined.length === 1 && moving.length > 1) {
    const partner = strongestPartner(information, undetermined[0]!, model)
    if (partner) undetermined.unshift(partner)
  }
  if (undetermined.length > 0) {
    return {
      determined: false,
      problem: `the data do not determine ${undetermined.join(' and ')} of the ${model.equationType} curve`,
      information,
    }
  }
  if (model.equationType !== 'Hill') return { determined: true, problem: null, information }
  const slope = search[2]!
  const centre = search[3]!
  const range = `${formatNumber(10 ** tested.lowLog)} to ${formatNumber(10 ** tested.highLog)}`
  if (
    centre < tested.lowLog - CENTRE_DECADES_BEYOND_TESTED ||
    centre > tested.highLog + CENTRE_DECADES_BEYOND_TESTED
  ) {
    return {
      determined: false,
      problem:
        `its centre ${formatNumber(10 ** centre)} lies more than ${10 ** CENTRE_DECADES_BEYOND_TESTED}-fold ` +
        `outside the tested concentrations (${range}): the data do not determine it`,
      information,
    }
  }
  let below = Number.NEGATIVE_INFINITY
  let above = Number.POSITIVE_INFINITY
  for (const log of tested.logs) {
    const fraction = 1 / (1 + 10 ** (slope * (centre - log)))
    const onTransition = slope > 0 ? fraction : 1 - fraction
    if (onTransition >= TRANSITION[0] && onTransition <= TRANSITION[1]) {
      return { determined: true, problem: null, information }
    }
    if (log < centre) below = Math.max(below, log)
    else above = Math.min(above, log)
  }
  const between =
    Number.isFinite(below) && Number.isFinite(above)
      ? `: the IC50 lies somewhere between ${formatNumber(10 ** below)} and ${formatNumber(10 ** above)}`
      : ''
  return {
    determined: false,
    problem:
      `no tested concentration lies on its transition (10% to 90% of the way between the ` +
      `plateaus; slope ${formatNumber(slope)})${between}`,
    information,
  }
}

function strongestPartner(
  { moving, matrix }: Information,
  name: string,
  model: FitModel,
): string | null {
  const k = moving.length
  const target = moving.findIndex((index) => model.entries[index]!.name === name)
  let partner: string | null = null
  let strongest = -1
  for (let b = 0; b < k; b += 1) {
    if (b === target) continue
    const scale = Math.sqrt(matrix[target * k + target]! * matrix[b * k + b]!)
    const correlation = scale > 0 ? Math.abs(matrix[target * k + b]! / scale) : 1
    if (correlation > strongest) {
      strongest = correlation
      partner = model.entries[moving[b]!]!.name
    }
  }
  return partner
}

function describe(
  model: FitModel,
  space: SearchSpace,
  problem: Problem,
  search: Float64Array,
  sumOfSquares: number,
  concentrations: Float64Array,
  { moving, matrix }: Information,
): Pick<DoseResponseFit, 'parameters' | 'potency' | 'statistics'> {
  const n = problem.observations
  const freeCount = space.free.reduce((count, flag) => count + flag, 0)
  const degreesOfFreedom = n - freeCount
  let meanResponse = 0
  for (const response of problem.responses) meanResponse += response / n
  let totalSquares = 0
  for (const response of problem.responses) totalSquares += (response - meanResponse) ** 2
  const variance = degreesOfFreedom > 0 ? sumOfSquares / degreesOfFreedom : null

  // Covariance of the moving parameters: s² (JᵀJ)⁻¹.
  const searchErrors = new Float64Array(model.entries.length).fill(Number.NaN)
  if (variance !== null) {
    const inverse = invertSymmetric(matrix, moving.length)
    if (inverse) {
      moving.forEach((index, position) => {
        searchErrors[index] = Math.sqrt(variance * inverse[position * moving.length + position]!)
      })
    }
  }

  let values = model.entries.map((entry, j) =>
    entry.log10 ? Math.pow(10, search[j]!) : search[j]!,
  )
  let errors = model.entries.map((entry, j) => {
    const error = searchErrors[j]!
    if (!Number.isFinite(error)) return null
    // Delta method: SE(10^v) = 10^v · ln10 · SE(v).
    return entry.log10 ? values[j]! * Math.LN10 * error : error
  })
  let bounds = model.entries.map((_, j): 'lower' | 'upper' | null =>
    !space.free[j]
      ? null
      : search[j]! <= space.lower[j]!
        ? 'lower'
        : search[j]! >= space.upper[j]!
          ? 'upper'
          : null,
  )

  // The same Hill curve with min and max swapped and the slope negated, written with min <= max.
  if (model.equationType === 'Hill' && values[0]! > values[1]!) {
    const swapped = [values[1]!, values[0]!, -values[2]!, values[3]!]
    const allowed = swapped.every(
      (value, j) =>
        j === 3 ||
        (space.free[j]
          ? value >= space.lower[j]! && value <= space.upper[j]!
          : value === space.fixed[j]),
    )
    if (allowed) {
      values = swapped
      errors = [errors[1]!, errors[0]!, errors[2]!, errors[3]!]
      bounds = [null, null, null, null]
      for (let j = 0; j < 3; j += 1) {
        if (space.free[j] && values[j] === space.lower[j]) bounds[j] = 'lower'
        if (space.free[j] && values[j] === space.upper[j]) bounds[j] = 'upper'
      }
    }
  }

  const parameters: Record<string, ParameterEstimate> = {}
  model.entries.forEach((entry, j) => {
    parameters[entry.name] = {
      value: values[j]!,
      standardError: errors[j] ?? null,
      fixed: !space.free[j],
      atBound: bounds[j]!,
    }
  })

  let potency: Potency | null = null
  if (model.equationType === 'Hill') {
    const log10 = search[3]!
    const logError = Number.isFinite(searchErrors[3]!) ? searchErrors[3]! : null
    const t = degreesOfFreedom > 0 ? studentTQuantile(0.975, degreesOfFreedom) : Number.NaN
    let lowest = Number.POSITIVE_INFINITY
    let highest = 0
    for (const concentration of concentrations) {
      if (concentration > 0) lowest = Math.min(lowest, concentration)
      highest = Math.max(highest, concentration)
    }
    const value = Math.pow(10, log10)
    potency = {
      parameter: 'ic50',
      value,
      log10,
      log10StandardError: logError,
      confidenceInterval95:
        logError !== null && Number.isFinite(t)
          ? { low: Math.pow(10, log10 - t * logError), high: Math.pow(10, log10 + t * logError) }
          : null,
      withinTestedRange: value >= lowest && value <= highest,
    }
  }

  return {
    parameters,
    potency,
    statistics: {
      n,
      degreesOfFreedom,
      sumOfSquares,
      rSquared: totalSquares > 0 ? 1 - sumOfSquares / totalSquares : null,
      rmse: Math.sqrt(sumOfSquares / n),
      residualStandardError: variance === null ? null : Math.sqrt(variance),
      versusFlatLine: flatLineComparison(totalSquares, sumOfSquares, freeCount, degreesOfFreedom),
    },
  }
}

function flatLineComparison(
  lineSquares: number,
  curveSquares: number,
  freeCount: number,
  degreesOfFreedom: number,
): FlatLineComparison | null {
  if (freeCount < 2 || degreesOfFreedom < 1 || lineSquares === 0 || curveSquares === 0) return null
  const fStatistic = Math.max(
    0,
    (lineSquares - curveSquares) / (freeCount - 1) / (curveSquares / degreesOfFreedom),
  )
  const pValue = fDistributionSurvival(fStatistic, freeCount - 1, degreesOfFreedom)
  return { fStatistic, pValue, significant: pValue < 0.05 }
}

/** Inverse of a small symmetric positive definite matrix (null when it is not). */
function invertSymmetric(matrix: Float64Array, k: number): Float64Array | null {
  const inverse = new Float64Array(k * k)
  for (let column = 0; column < k; column += 1) {
    const work = Float64Array.from(matrix)
    const unit = new Float64Array(k)
    unit[column] = 1
    if (!choleskySolve(work, unit, k)) return null
    for (let row = 0; row < k; row += 1) inverse[row * k + column] = unit[row]!
  }
  return inverse
}
