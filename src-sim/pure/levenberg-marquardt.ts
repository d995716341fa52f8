/**
 * Bounded nonlinear least squares by Levenberg–Marquardt with Marquardt's diagonal scaling.
 * Bounds are honoured by projecting every trial step back into the box, which is enough for
 * the few, well-scaled parameters of a dose-response curve.
 */

export interface LeastSquaresProblem {
  /** Model residuals y_i - f(x_i; p) for a parameter vector. */
  residuals: (parameters: readonly number[]) => number[]
  initial: readonly number[]
  lower: readonly number[]
  upper: readonly number[]
  maxIterations?: number
}

export interface LeastSquaresSolution {
  parameters: number[]
  sumOfSquares: number
  iterations: number
  converged: boolean
}

export function solveLeastSquares(problem: LeastSquaresProblem): LeastSquaresSolution {
  const { residuals, lower, upper } = problem
  const maxIterations = problem.maxIterations ?? 300
  const clamp = (values: readonly number[]): number[] =>
    values.map((value, index) => Math.min(upper[index]!, Math.max(lower[index]!, value)))
  const sumOfSquares = (values: readonly number[]): number => {
    const total = residuals(values).reduce((sum, residual) => sum + residual * residual, 0)
    return Number.isFinite(total) ? total : Number.POSITIVE_INFINITY
  }

  let parameters = clamp(problem.initial)
  let current = sumOfSquares(parameters)
  if (parameters.length === 0) {
    return { parameters, sumOfSquares: current, iterations: 0, converged: true }
  }
  let damping = 1e-3
  for (let iteration = 1; iteration <= maxIterations; iteration += 1) {
    const base = residuals(parameters)
    const jacobian = parameters.map((value, index) => {
      const step = 1e-7 * Math.max(1, Math.abs(value))
      // Step away from a bound that would otherwise be crossed.
      const direction = value + step > upper[index]! ? -1 : 1
      const shifted = [...parameters]
      shifted[index] = value + direction * step
      const moved = residuals(shifted)
      return base.map((residual, point) => (residual - moved[point]!) / (direction * step))
    })
    // Normal equations of the linearised model r(p + d) ≈ r(p) - J d.
    const size = parameters.length
    const normal = Array.from({ length: size }, (_, row) =>
      Array.from({ length: size }, (_, column) =>
        base.reduce(
          (sum, _r, point) => sum + jacobian[row]![point]! * jacobian[column]![point]!,
          0,
        ),
      ),
    )
    const gradient = Array.from({ length: size }, (_, row) =>
      base.reduce((sum, residual, point) => sum + jacobian[row]![point]! * residual, 0),
    )

    let improved = false
    while (damping < 1e16) {
      const damped = normal.map((row, index) =>
        row.map((value, column) =>
          column === index ? value + damping * Math.max(value, 1e-12) : value,
        ),
      )
      const step = solveLinearSystem(damped, gradient)
      if (step) {
        const trial = clamp(parameters.map((value, index) => value + step[index]!))
        const trialSum = sumOfSquares(trial)
        if (trialSum < current) {
          const relativeGain = (current - trialSum) / Math.max(current, 1e-300)
          const stepSize = Math.max(
            ...trial.map((value, index) => Math.abs(value - parameters[index]!)),
          )
          parameters = trial
          current = trialSum
          damping = Math.max(damping / 10, 1e-12)
          improved = true
          if (relativeGain < 1e-12 || stepSize < 1e-12 || current < 1e-30) {
            return { parameters, sumOfSquares: current, iterations: iteration, converged: true }
          }
          break
        }
      }
      damping *= 10
    }
    if (!improved) {
      // No damping yields progress: the parameters sit at a (possibly bounded) minimum.
      return { parameters, sumOfSquares: current, iterations: iteration, converged: true }
    }
  }
  return { parameters, sumOfSquares: current, iterations: maxIterations, converged: false }
}

/** Gaussian elimination with partial pivoting; null when the matrix is singular. */
function solveLinearSystem(matrix: number[][], rightSide: number[]): number[] | null {
  const size = rightSide.length
  const rows = matrix.map((row, index) => [...row, rightSide[index]!])
  for (let pivot = 0; pivot < size; pivot += 1) {
    let best = pivot
    for (let row = pivot + 1; row < size; row += 1) {
      if (Math.abs(rows[row]![pivot]!) > Math.abs(rows[best]![pivot]!)) best = row
    }
    if (Math.abs(rows[best]![pivot]!) < 1e-300 || !Number.isFinite(rows[best]![pivot]!)) return null
    ;[rows[pivot], rows[best]] = [rows[best]!, rows[pivot]!]
    const pivotRow = rows[pivot]!
    for (let row = pivot + 1; row < size; row += 1) {
      const target = rows[row]!
      const factor = target[pivot]! / pivotRow[pivot]!
      for (let column = pivot; column <= size; column += 1) {
        target[column] = target[column]! - factor * pivotRow[column]!
      }
    }
  }
  const solution = new Array<number>(size).fill(0)
  for (let row = size - 1; row >= 0; row -= 1) {
    let sum = rows[row]![size]!
    for (let column = row + 1; column < size; column += 1)
      sum -= rows[row]![column]! * solution[column]!
    solution[row] = sum / rows[row]![row]!
  }
  return solution.every(Number.isFinite) ? solution : null
}
