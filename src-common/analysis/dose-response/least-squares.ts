/**
 * Bounded nonlinear least squares: Levenberg-Marquardt with Moré's diagonal scaling, Nielsen's
 * damping updates, and bounds honoured by projection with an active set (a parameter on a bound
 * whose gradient points outwards is held there for the step, every trial point is clipped into
 * the box). Written for the few parameters of a curve and tens of points: all work arrays are
 * allocated once per problem, so a fit allocates almost nothing per iteration.
 */

export interface LeastSquaresProblem {
  /** Number of observations (m). */
  observations: number
  /** Length of the parameter vector (n), fixed parameters included. */
  size: number
  responses: Float64Array
  /** Writes the model's value at each observation for the parameters. */
  evaluate: (parameters: Float64Array, values: Float64Array) => void
  /** Writes d value_i / d parameter_j at [i * size + j] (columns of fixed parameters unused). */
  jacobian: (parameters: Float64Array, jacobian: Float64Array) => void
  lower: Float64Array
  upper: Float64Array
  /** 1 where the parameter is fitted, 0 where it is held at its initial value. */
  free: Uint8Array
}

export type StopReason =
  'gradient' | 'step' | 'reduction' | 'iteration limit' | 'non-finite' | 'damping limit'

export interface LeastSquaresResult {
  parameters: Float64Array
  sumOfSquares: number
  iterations: number
  stop: StopReason
  converged: boolean
}

export interface LeastSquaresOptions {
  maxIterations?: number
  /** Relative reduction of the sum of squares (actual and predicted) below which it stops. */
  functionTolerance?: number
  /** Relative (scaled) step length below which it stops. */
  stepTolerance?: number
  /** Largest cosine between the residuals and a Jacobian column at which it stops. */
  gradientTolerance?: number
}

/**
 * Tighter on the sum of squares than MINPACK's √ε (SciPy's default), so that a fit drifting
 * along a flat valley does not stop early and call itself converged; the step tolerance is
 * MINPACK's. The iteration limit counts every trial step, like MINPACK's limit on function
 * evaluations (500 for four parameters).
 */
const DEFAULTS: Required<LeastSquaresOptions> = {
  maxIterations: 500,
  functionTolerance: 1e-10,
  stepTolerance: 1.49012e-8,
  gradientTolerance: 1e-10,
}

export function solveBoundedLeastSquares(
  problem: LeastSquaresProblem,
  initial: Float64Array,
  options: LeastSquaresOptions = {},
): LeastSquaresResult {
  const settings = { ...DEFAULTS, ...options }
  const { observations: m, size: n, responses, lower, upper, free } = problem
  const parameters = new Float64Array(n)
  for (let j = 0; j < n; j += 1) parameters[j] = clamp(initial[j]!, lower[j]!, upper[j]!)
  const values = new Float64Array(m)
  const residuals = new Float64Array(m)
  const jacobian = new Float64Array(m * n)
  const normal = new Float64Array(n * n)
  const gradient = new Float64Array(n)
  const scale = new Float64Array(n)
  const active = new Uint8Array(n)
  const system = new Float64Array(n * n)
  const step = new Float64Array(n)
  const trial = new Float64Array(n)
  const trialValues = new Float64Array(m)

  const sumOfSquaresAt = (at: Float64Array, into: Float64Array): number => {
    problem.evaluate(at, into)
    let total = 0
    for (let i = 0; i < m; i += 1) {
      const residual = into[i]! - responses[i]!
      total += residual * residual
    }
    return Number.isFinite(total) ? total : Number.POSITIVE_INFINITY
  }

  let cost = sumOfSquaresAt(parameters, values)
  const result = (iterations: number, stop: StopReason): LeastSquaresResult => ({
    parameters,
    sumOfSquares: cost,
    iterations,
    stop,
    converged: stop === 'gradient' || stop === 'step' || stop === 'reduction',
  })
  if (!Number.isFinite(cost)) return result(0, 'non-finite')
  let anyFree = false
  for (let j = 0; j < n; j += 1) if (free[j]) anyFree = true
  if (!anyFree) return result(0, 'gradient')

  let damping = -1
  let growth = 2
  let refresh = true
  for (let iteration = 1; iteration <= settings.maxIterations; iteration += 1) {
    if (refresh) {
      for (let i = 0; i < m; i += 1) residuals[i] = values[i]! - responses[i]!
      problem.jacobian(parameters, jacobian)
      for (let a = 0; a < n; a += 1) {
        if (!free[a]) continue
        let g = 0
        for (let i = 0; i < m; i += 1) g += jacobian[i * n + a]! * residuals[i]!
        gradient[a] = g
        for (let b = a; b < n; b += 1) {
          if (!free[b]) continue
          let sum = 0
          for (let i = 0; i < m; i += 1) sum += jacobian[i * n + a]! * jacobian[i * n + b]!
          normal[a * n + b] = sum
          normal[b * n + a] = sum
        }
      }
      let largestDiagonal = 0
      for (let j = 0; j < n; j += 1) {
        if (!free[j]) continue
        scale[j] = Math.max(scale[j]!, normal[j * n + j]!)
        largestDiagonal = Math.max(largestDiagonal, normal[j * n + j]!)
      }
      if (damping < 0) damping = 1e-3 * Math.max(largestDiagonal, 1e-300)
      // A parameter on a bound whose descent direction leaves the box stays there this step.
      let worstCosine = 0
      const residualNorm = Math.sqrt(cost)
      for (let j = 0; j < n; j += 1) {
        active[j] =
          free[j] &&
          ((parameters[j]! <= lower[j]! && gradient[j]! > 0) ||
            (parameters[j]! >= upper[j]! && gradient[j]! < 0))
            ? 1
            : 0
        if (!free[j] || active[j]) continue
        const columnNorm = Math.sqrt(normal[j * n + j]!)
        if (columnNorm > 0 && residualNorm > 0) {
          worstCosine = Math.max(worstCosine, Math.abs(gradient[j]!) / (columnNorm * residualNorm))
        }
      }
      if (residualNorm === 0 || worstCosine <= settings.gradientTolerance) {
        return result(iteration - 1, 'gradient')
      }
      refresh = false
    }

    // (JᵀJ + λ·D) δ = -Jᵀr over the parameters that move, solved by Cholesky.
    for (let a = 0; a < n; a += 1) {
      for (let b = 0; b < n; b += 1) {
        const moving = free[a] && !active[a] && free[b] && !active[b]
        system[a * n + b] = moving ? normal[a * n + b]! : a === b ? 1 : 0
      }
      if (free[a] && !active[a]) {
        system[a * n + a] = normal[a * n + a]! + damping * Math.max(scale[a]!, 1e-300)
      }
      step[a] = free[a] && !active[a] ? -gradient[a]! : 0
    }
    if (!choleskySolve(system, step, n)) {
      damping *= growth
      growth *= 2
      if (damping > 1e30) return result(iteration, 'damping limit')
      continue
    }

    let stepNorm = 0
    let parameterNorm = 0
    for (let j = 0; j < n; j += 1) {
      trial[j] = free[j] ? clamp(parameters[j]! + step[j]!, lower[j]!, upper[j]!) : parameters[j]!
      step[j] = trial[j]! - parameters[j]!
      const weight = Math.sqrt(scale[j]!)
      stepNorm += (weight * step[j]!) ** 2
      parameterNorm += (weight * parameters[j]!) ** 2
    }
    stepNorm = Math.sqrt(stepNorm)
    parameterNorm = Math.sqrt(parameterNorm)
    if (stepNorm <= settings.stepTolerance * (parameterNorm + settings.stepTolerance)) {
      return result(iteration, 'step')
    }

    // The reduction the linearised model predicts for the (clipped) step.
    let predictedCost = 0
    for (let i = 0; i < m; i += 1) {
      let change = residuals[i]!
      for (let j = 0; j < n; j += 1) if (step[j] !== 0) change += jacobian[i * n + j]! * step[j]!
      predictedCost += change * change
    }
    const predicted = cost - predictedCost
    const trialCost = sumOfSquaresAt(trial, trialValues)
    const actual = cost - trialCost
    const tolerance = settings.functionTolerance * cost
    if (predicted <= tolerance && Math.abs(actual) <= tolerance) {
      if (actual > 0) accept(trialCost)
      return result(iteration, 'reduction')
    }
    const ratio = predicted > 0 ? actual / predicted : -1
    if (ratio > 0 && actual > 0) {
      accept(trialCost)
      damping *= Math.max(1 / 3, 1 - (2 * ratio - 1) ** 3)
      growth = 2
      refresh = true
      if (actual <= tolerance) return result(iteration, 'reduction')
    } else {
      damping *= growth
      growth *= 2
      if (damping > 1e30) return result(iteration, 'damping limit')
    }
  }
  return result(settings.maxIterations, 'iteration limit')

  function accept(trialCost: number): void {
    parameters.set(trial)
    values.set(trialValues)
    cost = trialCost
  }
}

function clamp(value: number, lower: number, upper: number): number {
  return value < lower ? lower : value > upper ? upper : value
}

/** Solves the symmetric positive definite system in place (the answer replaces `right`). */
export function choleskySolve(matrix: Float64Array, right: Float64Array, n: number): boolean {
  for (let j = 0; j < n; j += 1) {
    let diagonal = matrix[j * n + j]!
    for (let k = 0; k < j; k += 1) diagonal -= matrix[j * n + k]! ** 2
    if (!(diagonal > 0)) return false
    const pivot = Math.sqrt(diagonal)
    matrix[j * n + j] = pivot
    for (let i = j + 1; i < n; i += 1) {
      let sum = matrix[i * n + j]!
      for (let k = 0; k < j; k += 1) sum -= matrix[i * n + k]! * matrix[j * n + k]!
      matrix[i * n + j] = sum / pivot
    }
  }
  for (let i = 0; i < n; i += 1) {
    let sum = right[i]!
    for (let k = 0; k < i; k += 1) sum -= matrix[i * n + k]! * right[k]!
    right[i] = sum / matrix[i * n + i]!
  }
  for (let i = n - 1; i >= 0; i -= 1) {
    let sum = right[i]!
    for (let k = i + 1; k < n; k += 1) sum -= matrix[k * n + i]! * right[k]!
    right[i] = sum / matrix[i * n + i]!
  }
  return true
}
