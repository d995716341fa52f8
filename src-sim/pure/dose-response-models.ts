/**
 * The curve equations of dose-response calculations, with the parameter names the API uses for
 * constraints. Concentrations are in the readout's units; centres and ic50 are concentrations
 * (not logarithms). Every sigmoid here rises from 0 at low concentration to 1 at high
 * concentration when its slope is positive, and falls when the slope is negative.
 */

export const EQUATION_TYPES = [
  'Hill',
  'Biphasic',
  'Bell Curve',
  'Linear',
  'Exponential Decay',
  'Michaelis-Menten',
] as const

export type EquationType = (typeof EQUATION_TYPES)[number]

export interface CurvePoint {
  x: number
  y: number
  outlier?: boolean
}

export interface ModelParameter {
  name: string
  /** Whether fit_parameters may constrain it (the spec's parameter table). */
  constrainable: boolean
  /** Concentration-like parameters are positive and fitted on a log scale. */
  positive: boolean
  lower?: number
  upper?: number
}

export interface DoseResponseModel {
  equationType: EquationType
  parameters: readonly ModelParameter[]
  evaluate: (x: number, p: Readonly<Record<string, number>>) => number
  /** Several starting points; the fit keeps the best, which avoids most local minima. */
  initialGuesses: (points: readonly CurvePoint[]) => Record<string, number>[]
  /** Whether a log concentration axis suits the curve (for plots). */
  logConcentration: boolean
  /**
   * The conventional form of parameters that describe the same curve in two ways (a Hill curve
   * with min above max is the same as one with them swapped and the slope negated).
   */
  canonical?: (p: Readonly<Record<string, number>>) => Record<string, number>
}

/** 1 / (1 + (center / x)^slope), with its limits at x <= 0. */
function sigmoid(x: number, center: number, slope: number): number {
  if (x <= 0) return slope > 0 ? 0 : slope < 0 ? 1 : 0.5
  return 1 / (1 + Math.pow(10, slope * (Math.log10(center) - Math.log10(x))))
}

const free = (name: string): ModelParameter => ({ name, constrainable: true, positive: false })
const positive = (name: string, constrainable = true): ModelParameter => ({
  name,
  constrainable,
  positive: true,
})

export const DOSE_RESPONSE_MODELS: Readonly<Record<EquationType, DoseResponseModel>> = {
  Hill: {
    equationType: 'Hill',
    parameters: [free('min'), free('max'), free('slope'), positive('ic50', false)],
    evaluate: (x, p) => p['min']! + (p['max']! - p['min']!) * sigmoid(x, p['ic50']!, p['slope']!),
    initialGuesses: (points) => {
      const { low, high } = yRange(points)
      return [1, -1].flatMap((slope) =>
        [0.25, 0.5, 0.75].map((quantile) => ({
          min: low,
          max: high,
          slope,
          ic50: logQuantile(points, quantile),
        })),
      )
    },
    logConcentration: true,
    canonical: (p) =>
      p['min']! > p['max']!
        ? { ...p, min: p['max']!, max: p['min']!, slope: -p['slope']! }
        : { ...p },
  },
  Biphasic: {
    equationType: 'Biphasic',
    parameters: [
      positive('center1'),
      positive('center2'),
      { name: 'frac', constrainable: true, positive: false, lower: 0, upper: 1 },
      free('plateau1'),
      free('plateau2'),
      free('slope1'),
      free('slope2'),
    ],
    evaluate: (x, p) =>
      p['plateau1']! +
      (p['plateau2']! - p['plateau1']!) *
        (p['frac']! * sigmoid(x, p['center1']!, p['slope1']!) +
          (1 - p['frac']!) * sigmoid(x, p['center2']!, p['slope2']!)),
    initialGuesses: (points) => {
      const ends = endValues(points)
      return [1, -1].map((sign) => ({
        center1: logQuantile(points, 0.3),
        center2: logQuantile(points, 0.7),
        frac: 0.5,
        plateau1: ends.first,
        plateau2: ends.last,
        slope1: sign,
        slope2: sign,
      }))
    },
    logConcentration: true,
  },
  'Bell Curve': {
    equationType: 'Bell Curve',
    parameters: [
      free('plateau1'),
      positive('center1'),
      free('slope1'),
      free('peak'),
      positive('center2'),
      free('slope2'),
      free('plateau2'),
    ],
    // Rises (or falls) from plateau1 to peak around center1, then to plateau2 around center2.
    evaluate: (x, p) =>
      p['plateau1']! +
      (p['peak']! - p['plateau1']!) * sigmoid(x, p['center1']!, p['slope1']!) +
      (p['plateau2']! - p['peak']!) * sigmoid(x, p['center2']!, p['slope2']!),
    initialGuesses: (points) => {
      const ends = endValues(points)
      const { low, high } = yRange(points)
      return [high, low].map((peak) => ({
        plateau1: ends.first,
        center1: logQuantile(points, 0.3),
        slope1: 1,
        peak,
        center2: logQuantile(points, 0.7),
        slope2: 1,
        plateau2: ends.last,
      }))
    },
    logConcentration: true,
  },
  Linear: {
    equationType: 'Linear',
    parameters: [free('slope'), free('y_intercept')],
    evaluate: (x, p) => p['slope']! * x + p['y_intercept']!,
    initialGuesses: (points) => [{ slope: 0, y_intercept: mean(points.map((point) => point.y)) }],
    logConcentration: false,
  },
  'Exponential Decay': {
    equationType: 'Exponential Decay',
    parameters: [
      free('c_0'),
      free('c_min'),
      { name: 'k', constrainable: true, positive: false, lower: 0 },
    ],
    evaluate: (x, p) => p['c_min']! + (p['c_0']! - p['c_min']!) * Math.exp(-p['k']! * x),
    initialGuesses: (points) => {
      const ends = endValues(points)
      const spread = Math.max(...points.map((point) => point.x)) || 1
      return [1, 5, 0.2].map((factor) => ({
        c_0: ends.first,
        c_min: ends.last,
        k: factor / spread,
      }))
    },
    logConcentration: false,
  },
  'Michaelis-Menten': {
    equationType: 'Michaelis-Menten',
    parameters: [free('b_max'), positive('k_d')],
    evaluate: (x, p) => (p['b_max']! * x) / (p['k_d']! + x),
    initialGuesses: (points) => [
      { b_max: yRange(points).high, k_d: logQuantile(points, 0.5) },
      { b_max: yRange(points).high * 2, k_d: logQuantile(points, 0.9) },
    ],
    logConcentration: false,
  },
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length
}

function yRange(points: readonly CurvePoint[]): { low: number; high: number } {
  const ys = points.map((point) => point.y)
  return { low: Math.min(...ys), high: Math.max(...ys) }
}

/** Mean responses at the lowest and at the highest concentration. */
function endValues(points: readonly CurvePoint[]): { first: number; last: number } {
  const xs = points.map((point) => point.x)
  const lowest = Math.min(...xs)
  const highest = Math.max(...xs)
  return {
    first: mean(points.filter((point) => point.x === lowest).map((point) => point.y)),
    last: mean(points.filter((point) => point.x === highest).map((point) => point.y)),
  }
}

/** A concentration at the given quantile of the log-spaced positive concentrations. */
function logQuantile(points: readonly CurvePoint[], quantile: number): number {
  const logs = points
    .map((point) => point.x)
    .filter((x) => x > 0)
    .map(Math.log10)
    .sort((a, b) => a - b)
  if (logs.length === 0) return 1
  const low = logs[0]!
  const high = logs[logs.length - 1]!
  return Math.pow(10, low + (high - low) * quantile)
}
