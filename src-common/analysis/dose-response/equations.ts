import { isObject, toNumber } from '../../values.ts'

/**
 * The six curve equations of the vault's dose-response calculations, with the parameter names
 * the API uses. Centres (`ic50`, `center1`, `center2`, `k_d`) are concentrations, never their
 * logarithms. A sigmoid term 1 / (1 + (centre / x)^slope) rises from 0 at low concentration to 1
 * at high concentration when its slope is positive and falls when it is negative, so:
 *
 * - Hill: min + (max - min) / (1 + (ic50 / x)^slope). `min` is the response at zero
 *   concentration when the slope is positive (a rising curve) and at infinite concentration when
 *   it is negative; a fit keeps min <= max wherever the constraints allow (the same curve can be
 *   written with them swapped and the slope negated).
 * - Biphasic: plateau1 + (plateau2 - plateau1) · (frac · S(center1, slope1) + (1 - frac) ·
 *   S(center2, slope2)), frac in [0, 1].
 * - Bell Curve: plateau1 + (peak - plateau1) · S(center1, slope1) + (plateau2 - peak) ·
 *   S(center2, slope2).
 * - Linear: slope · x + y_intercept.
 * - Exponential Decay: c_min + (c_0 - c_min) · exp(-k · x).
 * - Michaelis-Menten: b_max · x / (k_d + x).
 *
 * Only the parameters of the specification's table may be constrained by fit_parameters; the
 * Hill centre `ic50` is always fitted.
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

export interface EquationDefinition {
  equationType: EquationType
  /** Every parameter the curve needs, in a fixed order. */
  parameters: readonly string[]
  /** The parameters fit_parameters may constrain (the specification's table). */
  constrainable: readonly string[]
  /** Concentrations (centres) that must be positive. */
  positive: readonly string[]
  /** Whether the curve is drawn and fitted over log concentration. */
  logConcentration: boolean
  /** The parameter the vault reports as a series' result (its aggregate row's value). */
  resultParameter: string
}

export const EQUATIONS: Readonly<Record<EquationType, EquationDefinition>> = {
  Hill: {
    equationType: 'Hill',
    parameters: ['min', 'max', 'slope', 'ic50'],
    constrainable: ['min', 'max', 'slope'],
    positive: ['ic50'],
    logConcentration: true,
    resultParameter: 'ic50',
  },
  Biphasic: {
    equationType: 'Biphasic',
    parameters: ['center1', 'center2', 'frac', 'plateau1', 'plateau2', 'slope1', 'slope2'],
    constrainable: ['center1', 'center2', 'frac', 'plateau1', 'plateau2', 'slope1', 'slope2'],
    positive: ['center1', 'center2'],
    logConcentration: true,
    resultParameter: 'center1',
  },
  'Bell Curve': {
    equationType: 'Bell Curve',
    parameters: ['plateau1', 'center1', 'slope1', 'peak', 'center2', 'slope2', 'plateau2'],
    constrainable: ['plateau1', 'center1', 'slope1', 'peak', 'center2', 'slope2', 'plateau2'],
    positive: ['center1', 'center2'],
    logConcentration: true,
    resultParameter: 'center1',
  },
  Linear: {
    equationType: 'Linear',
    parameters: ['slope', 'y_intercept'],
    constrainable: ['slope', 'y_intercept'],
    positive: [],
    logConcentration: false,
    resultParameter: 'slope',
  },
  'Exponential Decay': {
    equationType: 'Exponential Decay',
    parameters: ['c_0', 'c_min', 'k'],
    constrainable: ['c_0', 'c_min', 'k'],
    positive: [],
    logConcentration: false,
    resultParameter: 'k',
  },
  'Michaelis-Menten': {
    equationType: 'Michaelis-Menten',
    parameters: ['b_max', 'k_d'],
    constrainable: ['b_max', 'k_d'],
    positive: ['k_d'],
    logConcentration: false,
    resultParameter: 'k_d',
  },
}

export function isEquationType(value: unknown): value is EquationType {
  return typeof value === 'string' && (EQUATION_TYPES as readonly string[]).includes(value)
}

/**
 * S(x) = 1 / (1 + (centre / x)^slope), with its limits at zero concentration (0 for a rising
 * term, 1 for a falling one, 1/2 for a flat one).
 */
export function sigmoid(x: number, centre: number, slope: number): number {
  if (x === 0) return slope > 0 ? 0 : slope < 0 ? 1 : 0.5
  return 1 / (1 + Math.pow(10, slope * (Math.log10(centre) - Math.log10(x))))
}

type Parameters = Readonly<Record<string, number>>

const FORMULAS: Readonly<Record<EquationType, (x: number, p: Parameters) => number>> = {
  Hill: (x, p) => p.min! + (p.max! - p.min!) * sigmoid(x, p.ic50!, p.slope!),
  Biphasic: (x, p) =>
    p.plateau1! +
    (p.plateau2! - p.plateau1!) *
      (p.frac! * sigmoid(x, p.center1!, p.slope1!) +
        (1 - p.frac!) * sigmoid(x, p.center2!, p.slope2!)),
  'Bell Curve': (x, p) =>
    p.plateau1! +
    (p.peak! - p.plateau1!) * sigmoid(x, p.center1!, p.slope1!) +
    (p.plateau2! - p.peak!) * sigmoid(x, p.center2!, p.slope2!),
  Linear: (x, p) => p.slope! * x + p.y_intercept!,
  'Exponential Decay': (x, p) => p.c_min! + (p.c_0! - p.c_min!) * Math.exp(-p.k! * x),
  'Michaelis-Menten': (x, p) => (p.b_max! * x) / (p.k_d! + x),
}

/** A curve whose parameters have been checked: it can be evaluated anywhere on its domain. */
export interface Curve {
  equationType: EquationType
  parameters: Readonly<Record<string, number>>
  logConcentration: boolean
  /**
   * The response at a concentration; null where the equation is undefined there (negative
   * concentrations, and for Michaelis-Menten the pole at x = -k_d) or not finite.
   */
  at: (concentration: number) => number | null
}

export type CurveReading = { ok: true; curve: Curve } | { ok: false; reason: string }

/**
 * A drawable curve from an equation type and parameters as the vault sends them (numbers or
 * numeric strings); a missing, non-numeric or out-of-domain parameter gives a reason instead.
 */
export function curveFrom(equationType: unknown, parameters: unknown): CurveReading {
  if (!isEquationType(equationType)) {
    return {
      ok: false,
      reason: `unknown equation type ${JSON.stringify(equationType)} (known: ${EQUATION_TYPES.join(', ')})`,
    }
  }
  if (!isObject(parameters)) {
    return { ok: false, reason: `${equationType} parameters must be an object keyed by name` }
  }
  const definition = EQUATIONS[equationType]
  const values: Record<string, number> = {}
  const problems: string[] = []
  for (const name of definition.parameters) {
    const raw = parameters[name]
    const value = toNumber(raw)
    if (value === null) {
      problems.push(
        raw === undefined || raw === null || raw === ''
          ? `"${name}" is missing`
          : `"${name}" ${JSON.stringify(raw)} is not a finite number`,
      )
    } else if (definition.positive.includes(name) && value <= 0) {
      problems.push(`"${name}" must be a positive concentration, not ${value}`)
    } else if (name === 'frac' && (value < 0 || value > 1)) {
      problems.push(`"frac" must lie between 0 and 1, not ${value}`)
    } else {
      values[name] = value
    }
  }
  if (problems.length > 0) {
    return { ok: false, reason: `cannot draw the ${equationType} curve: ${problems.join('; ')}` }
  }
  const formula = FORMULAS[equationType]
  return {
    ok: true,
    curve: {
      equationType,
      parameters: values,
      logConcentration: definition.logConcentration,
      at: (concentration) => {
        if (!Number.isFinite(concentration) || concentration < 0) return null
        const response = formula(concentration, values)
        return Number.isFinite(response) ? response : null
      },
    },
  }
}

/**
 * Points along a curve for drawing between two concentrations: evenly spaced in log
 * concentration for the sigmoid equations (both ends must then be positive), linearly otherwise.
 * Points where the curve is undefined are left out.
 */
export function sampleCurve(
  curve: Curve,
  from: number,
  to: number,
  count = 100,
): { x: number; y: number }[] {
  const steps = Math.max(2, Math.floor(count))
  const logAxis = curve.logConcentration
  if (!(Number.isFinite(from) && Number.isFinite(to))) return []
  if (logAxis && (from <= 0 || to <= 0)) return []
  const start = logAxis ? Math.log10(from) : from
  const end = logAxis ? Math.log10(to) : to
  const points: { x: number; y: number }[] = []
  for (let index = 0; index < steps; index += 1) {
    const position = start + ((end - start) * index) / (steps - 1)
    const x = logAxis ? Math.pow(10, position) : position
    const y = curve.at(x)
    if (y !== null) points.push({ x, y })
  }
  return points
}
