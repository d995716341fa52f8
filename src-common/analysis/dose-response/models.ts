import type { EquationType } from './equations.ts'

/**
 * The equations a local fit can fit, in the form the solver searches: a vector whose entries are
 * API parameters or, for concentrations (`ic50`, `k_d`), their log10, with analytic derivatives
 * and starting points read from the data.
 */

export interface SearchEntry {
  /** The API parameter this entry stands for. */
  name: string
  /** Whether the entry is log10 of the parameter (a concentration, searched in log space). */
  log10: boolean
  /** Where the parameter itself may lie before any constraint (in the parameter's units). */
  domain: readonly [number, number]
}

export interface Evaluator {
  evaluate: (search: Float64Array, values: Float64Array) => void
  jacobian: (search: Float64Array, jacobian: Float64Array) => void
}

export interface FitModel {
  equationType: EquationType
  entries: readonly SearchEntry[]
  evaluator: (concentrations: Float64Array) => Evaluator
  /**
   * Starting vectors, best guess first. Entries that are fixed or bounded are overwritten or
   * clamped by the caller, so a start may ignore the constraints.
   */
  starts: (concentrations: Float64Array, responses: Float64Array) => Float64Array[]
}

const ANY: readonly [number, number] = [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY]
const POSITIVE: readonly [number, number] = [0, Number.POSITIVE_INFINITY]
const LN10 = Math.LN10

/** Mean response per distinct concentration, in increasing concentration. */
export function responseProfile(
  concentrations: Float64Array,
  responses: Float64Array,
): { concentration: number; mean: number; count: number }[] {
  const order = Array.from(concentrations.keys()).sort(
    (a, b) => concentrations[a]! - concentrations[b]!,
  )
  const profile: { concentration: number; mean: number; count: number }[] = []
  for (const index of order) {
    const concentration = concentrations[index]!
    const last = profile[profile.length - 1]
    if (last && last.concentration === concentration) {
      last.mean += (responses[index]! - last.mean) / (last.count + 1)
      last.count += 1
    } else {
      profile.push({ concentration, mean: responses[index]!, count: 1 })
    }
  }
  return profile
}

/** +1 when responses tend to rise with concentration, -1 when they fall (rank correlation). */
function trendSign(profile: readonly { mean: number }[]): 1 | -1 {
  const n = profile.length
  const ranks = rank(profile.map((level) => level.mean))
  let covariance = 0
  for (let index = 0; index < n; index += 1) {
    covariance += (index - (n - 1) / 2) * (ranks[index]! - (n - 1) / 2)
  }
  return covariance < 0 ? -1 : 1
}

function rank(values: readonly number[]): number[] {
  const order = values.map((_, index) => index).sort((a, b) => values[a]! - values[b]!)
  const ranks = new Array<number>(values.length)
  order.forEach((index, position) => {
    ranks[index] = position
  })
  return ranks
}

/**
 * Hill (four-parameter logistic) in log concentration: search vector [min, max, slope,
 * log10 ic50]. Points at zero concentration (used as the zero-concentration plateau) have
 * u = -Infinity and are handled as the limit.
 */
export const HILL_MODEL: FitModel = {
  equationType: 'Hill',
  entries: [
    { name: 'min', log10: false, domain: ANY },
    { name: 'max', log10: false, domain: ANY },
    { name: 'slope', log10: false, domain: ANY },
    { name: 'ic50', log10: true, domain: POSITIVE },
  ],
  evaluator: (concentrations) => {
    const m = concentrations.length
    const logs = new Float64Array(m)
    for (let i = 0; i < m; i += 1) logs[i] = Math.log10(concentrations[i]!)
    // The solver asks for the Jacobian where it last evaluated: keep the sigmoid values (one
    // exponential per point, most of a fit's time) for the slope and centre they were made for.
    const fractions = new Float64Array(m)
    let fractionsSlope = Number.NaN
    let fractionsCentre = Number.NaN
    const fill = (slope: number, centre: number): void => {
      if (slope === fractionsSlope && centre === fractionsCentre) return
      const zeroLimit = slope > 0 ? 0 : slope < 0 ? 1 : 0.5
      for (let i = 0; i < m; i += 1) {
        const u = logs[i]!
        fractions[i] =
          u === Number.NEGATIVE_INFINITY
            ? zeroLimit
            : 1 / (1 + Math.exp(LN10 * slope * (centre - u)))
      }
      fractionsSlope = slope
      fractionsCentre = centre
    }
    return {
      evaluate: (search, values) => {
        const bottom = search[0]!
        const span = search[1]! - bottom
        fill(search[2]!, search[3]!)
        for (let i = 0; i < m; i += 1) values[i] = bottom + span * fractions[i]!
      },
      jacobian: (search, jacobian) => {
        const span = search[1]! - search[0]!
        const slope = search[2]!
        const centre = search[3]!
        fill(slope, centre)
        for (let i = 0; i < m; i += 1) {
          const u = logs[i]!
          const s = fractions[i]!
          const row = i * 4
          jacobian[row] = 1 - s
          jacobian[row + 1] = s
          if (u === Number.NEGATIVE_INFINITY) {
            jacobian[row + 2] = 0
            jacobian[row + 3] = 0
            continue
          }
          // d s / d (slope·(centre - u)) = -ln10 · s · (1 - s)
          const common = -span * LN10 * s * (1 - s)
          jacobian[row + 2] = common * (centre - u)
          jacobian[row + 3] = common * slope
        }
      },
    }
  },
  starts: (concentrations, responses) => {
    const profile = responseProfile(concentrations, responses)
    const positive = profile.filter((level) => level.concentration > 0)
    let bottom = Number.POSITIVE_INFINITY
    let top = Number.NEGATIVE_INFINITY
    for (const level of profile) {
      bottom = Math.min(bottom, level.mean)
      top = Math.max(top, level.mean)
    }
    const sign = trendSign(profile)
    const logs = positive.map((level) => Math.log10(level.concentration))
    const lowest = logs[0] ?? 0
    const highest = logs[logs.length - 1] ?? 0
    const half = (bottom + top) / 2
    // Where the responses cross half way between the plateaus, in the direction of the trend.
    let crossing = (lowest + highest) / 2
    for (let index = 0; index + 1 < positive.length; index += 1) {
      const here = sign * (positive[index]!.mean - half)
      const next = sign * (positive[index + 1]!.mean - half)
      if (here <= 0 && next > 0) {
        const share = here === next ? 0.5 : -here / (next - here)
        crossing = logs[index]! + share * (logs[index + 1]! - logs[index]!)
        break
      }
    }
    const quarter = lowest + 0.25 * (highest - lowest)
    const threeQuarters = lowest + 0.75 * (highest - lowest)
    return [
      [bottom, top, sign, crossing],
      [bottom, top, 3 * sign, crossing],
      [bottom, top, 0.5 * sign, crossing],
      [bottom, top, sign, quarter],
      [bottom, top, sign, threeQuarters],
      [top, bottom, -sign, crossing],
    ].map((start) => Float64Array.from(start))
  },
}

/** Linear: search vector [slope, y_intercept]; the first start is the ordinary least squares line. */
export const LINEAR_MODEL: FitModel = {
  equationType: 'Linear',
  entries: [
    { name: 'slope', log10: false, domain: ANY },
    { name: 'y_intercept', log10: false, domain: ANY },
  ],
  evaluator: (concentrations) => ({
    evaluate: (search, values) => {
      for (let i = 0; i < concentrations.length; i += 1) {
        values[i] = search[0]! * concentrations[i]! + search[1]!
      }
    },
    jacobian: (_search, jacobian) => {
      for (let i = 0; i < concentrations.length; i += 1) {
        jacobian[i * 2] = concentrations[i]!
        jacobian[i * 2 + 1] = 1
      }
    },
  }),
  starts: (concentrations, responses) => {
    const n = concentrations.length
    let meanX = 0
    let meanY = 0
    for (let i = 0; i < n; i += 1) {
      meanX += concentrations[i]! / n
      meanY += responses[i]! / n
    }
    let sxy = 0
    let sxx = 0
    for (let i = 0; i < n; i += 1) {
      sxy += (concentrations[i]! - meanX) * (responses[i]! - meanY)
      sxx += (concentrations[i]! - meanX) ** 2
    }
    const slope = sxx > 0 ? sxy / sxx : 0
    return [Float64Array.of(slope, meanY - slope * meanX), Float64Array.of(0, meanY)]
  },
}

/** Exponential decay: search vector [c_0, c_min, k] with k >= 0 (a decay, not a growth). */
export const EXPONENTIAL_DECAY_MODEL: FitModel = {
  equationType: 'Exponential Decay',
  entries: [
    { name: 'c_0', log10: false, domain: ANY },
    { name: 'c_min', log10: false, domain: ANY },
    { name: 'k', log10: false, domain: [0, Number.POSITIVE_INFINITY] },
  ],
  evaluator: (concentrations) => ({
    evaluate: (search, values) => {
      for (let i = 0; i < concentrations.length; i += 1) {
        values[i] =
          search[1]! + (search[0]! - search[1]!) * Math.exp(-search[2]! * concentrations[i]!)
      }
    },
    jacobian: (search, jacobian) => {
      for (let i = 0; i < concentrations.length; i += 1) {
        const x = concentrations[i]!
        const decay = Math.exp(-search[2]! * x)
        jacobian[i * 3] = decay
        jacobian[i * 3 + 1] = 1 - decay
        jacobian[i * 3 + 2] = -(search[0]! - search[1]!) * x * decay
      }
    },
  }),
  starts: (concentrations, responses) => {
    const profile = responseProfile(concentrations, responses)
    const first = profile[0]!
    const last = profile[profile.length - 1]!
    const spread = last.concentration - first.concentration || 1
    return [1, 5, 0.2, 20].map((factor) => Float64Array.of(first.mean, last.mean, factor / spread))
  },
}

/** Michaelis-Menten: search vector [b_max, log10 k_d]. */
export const MICHAELIS_MENTEN_MODEL: FitModel = {
  equationType: 'Michaelis-Menten',
  entries: [
    { name: 'b_max', log10: false, domain: ANY },
    { name: 'k_d', log10: true, domain: POSITIVE },
  ],
  evaluator: (concentrations) => ({
    evaluate: (search, values) => {
      const kd = Math.pow(10, search[1]!)
      for (let i = 0; i < concentrations.length; i += 1) {
        const x = concentrations[i]!
        values[i] = (search[0]! * x) / (kd + x)
      }
    },
    jacobian: (search, jacobian) => {
      const kd = Math.pow(10, search[1]!)
      for (let i = 0; i < concentrations.length; i += 1) {
        const x = concentrations[i]!
        const denominator = kd + x
        jacobian[i * 2] = x / denominator
        // d/d log10(k_d) = d/d k_d · k_d · ln10
        jacobian[i * 2 + 1] = ((-search[0]! * x) / (denominator * denominator)) * kd * LN10
      }
    },
  }),
  starts: (concentrations, responses) => {
    const profile = responseProfile(concentrations, responses)
    const positive = profile.filter((level) => level.concentration > 0)
    let extreme = 0
    for (const level of profile) if (Math.abs(level.mean) > Math.abs(extreme)) extreme = level.mean
    const logs = positive.map((level) => Math.log10(level.concentration))
    const middle = logs.length > 0 ? (logs[0]! + logs[logs.length - 1]!) / 2 : 0
    const highest = logs[logs.length - 1] ?? 0
    return [
      Float64Array.of(extreme, middle),
      Float64Array.of(2 * extreme, highest),
      Float64Array.of(extreme, logs[0] ?? 0),
    ]
  },
}

export const FIT_MODELS: Partial<Record<EquationType, FitModel>> = {
  Hill: HILL_MODEL,
  Linear: LINEAR_MODEL,
  'Exponential Decay': EXPONENTIAL_DECAY_MODEL,
  'Michaelis-Menten': MICHAELIS_MENTEN_MODEL,
}
