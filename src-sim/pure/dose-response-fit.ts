import {
  DOSE_RESPONSE_MODELS,
  type CurvePoint,
  type EquationType,
  type ModelParameter,
} from './dose-response-models.ts'
import type { FitConstraint, FitConstraints } from './fit-parameters.ts'
import { solveLeastSquares } from './levenberg-marquardt.ts'

/** Fits a dose-response equation to points, honouring constraints and leaving outliers out. */

export class FitError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'FitError'
  }
}

export interface DoseResponseFit {
  equationType: EquationType
  /** Every parameter of the equation, fitted or fixed. */
  parameters: Record<string, number>
  sumOfSquares: number
  /** Coefficient of determination over the points used; null when the responses are all equal. */
  rSquared: number | null
  pointsUsed: number
  converged: boolean
}

/** Strict inequalities keep the parameter this far (relative) inside the bound. */
const STRICT_MARGIN = 1e-9

export function fitDoseResponse(
  equationType: EquationType,
  allPoints: readonly CurvePoint[],
  constraints: FitConstraints = {},
): DoseResponseFit {
  const model = DOSE_RESPONSE_MODELS[equationType]
  const points = allPoints.filter(
    (point) => !point.outlier && Number.isFinite(point.x) && Number.isFinite(point.y),
  )
  const fixed = new Map<string, number>()
  const freeParameters: { spec: ModelParameter; lower: number; upper: number }[] = []
  for (const spec of model.parameters) {
    const constraint = constraints[spec.name]
    if (constraint?.modifier === '=') {
      fixed.set(spec.name, constraint.value)
      continue
    }
    const [lower, upper] = boundsOf(spec, constraint)
    if (lower > upper || (spec.positive && upper <= 0)) {
      throw new FitError(`the constraints leave no allowed value for ${spec.name}`)
    }
    freeParameters.push({ spec, lower, upper })
  }
  if (points.length < Math.max(1, freeParameters.length)) {
    throw new FitError(
      `${equationType} needs at least ${Math.max(1, freeParameters.length)} points that are not ` +
        `outliers to fit ${freeParameters.length} free parameters; ${points.length} available`,
    )
  }

  // Positive (concentration-like) parameters are searched in log10 space.
  const toSearch = (spec: ModelParameter, value: number): number =>
    spec.positive ? Math.log10(value) : value
  const fromSearch = (spec: ModelParameter, value: number): number =>
    spec.positive ? Math.pow(10, value) : value
  const assemble = (vector: readonly number[]): Record<string, number> => {
    const values: Record<string, number> = Object.fromEntries(fixed)
    freeParameters.forEach(({ spec }, index) => {
      values[spec.name] = fromSearch(spec, vector[index]!)
    })
    return values
  }
  const residuals = (vector: readonly number[]): number[] => {
    const values = assemble(vector)
    return points.map((point) => point.y - model.evaluate(point.x, values))
  }
  const lower = freeParameters.map(({ spec, lower }) => (spec.positive ? safeLog(lower) : lower))
  const upper = freeParameters.map(({ spec, upper }) => (spec.positive ? safeLog(upper) : upper))

  let best: ReturnType<typeof solveLeastSquares> | undefined
  for (const guess of model.initialGuesses(points)) {
    const initial = freeParameters.map(({ spec }) => {
      const value = fixed.get(spec.name) ?? guess[spec.name]!
      return toSearch(spec, spec.positive && value <= 0 ? 1 : value)
    })
    const solution = solveLeastSquares({ residuals, initial, lower, upper })
    if (!best || solution.sumOfSquares < best.sumOfSquares) best = solution
  }
  if (!best || !Number.isFinite(best.sumOfSquares)) {
    throw new FitError(`${equationType} could not be fitted to these points`)
  }
  const fitted = assemble(best.parameters)
  const canonical = model.canonical?.(fitted)
  const allowed = (values: Record<string, number>): boolean =>
    [...fixed].every(([name, value]) => values[name] === value) &&
    freeParameters.every(
      ({ spec, lower, upper }) => values[spec.name]! >= lower && values[spec.name]! <= upper,
    )
  const ys = points.map((point) => point.y)
  const meanY = ys.reduce((sum, y) => sum + y, 0) / ys.length
  const totalSquares = ys.reduce((sum, y) => sum + (y - meanY) ** 2, 0)
  return {
    equationType,
    parameters: canonical && allowed(canonical) ? canonical : fitted,
    sumOfSquares: best.sumOfSquares,
    rSquared: totalSquares > 0 ? 1 - best.sumOfSquares / totalSquares : null,
    pointsUsed: points.length,
    converged: best.converged,
  }
}

function boundsOf(spec: ModelParameter, constraint: FitConstraint | undefined): [number, number] {
  let lower = spec.lower ?? (spec.positive ? 0 : Number.NEGATIVE_INFINITY)
  let upper = spec.upper ?? Number.POSITIVE_INFINITY
  const nudge = (value: number): number => STRICT_MARGIN * Math.max(1, Math.abs(value))
  switch (constraint?.modifier) {
    case 'from':
      lower = Math.max(lower, constraint.range.min)
      upper = Math.min(upper, constraint.range.max)
      break
    case '>':
      lower = Math.max(lower, constraint.value + nudge(constraint.value))
      break
    case '>=':
      lower = Math.max(lower, constraint.value)
      break
    case '<':
      upper = Math.min(upper, constraint.value - nudge(constraint.value))
      break
    case '<=':
      upper = Math.min(upper, constraint.value)
      break
    default:
      break
  }
  return [lower, upper]
}

/** log10 that maps the open lower end of a positive parameter to minus infinity. */
function safeLog(value: number): number {
  return value <= 0 ? Number.NEGATIVE_INFINITY : Math.log10(value)
}
