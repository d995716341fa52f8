import { isObject, isSet, toNumber } from '../../values.ts'

/**
 * Turns the points of a data series, as the cache holds them, into the points a fit uses, and
 * says why each other point was left out. A point is never silently dropped and never crashes a
 * fit: each gets exactly one reason, the first that applies in this order:
 *
 * 1. `outlier`: flagged as an outlier (by the vault or by a pending correction).
 * 2. `missing`: no concentration or no response.
 * 3. `qualified`: the response carries a qualifier (`>30`, `<0.1`, as a modifier or in its text):
 *    a censored value, not a measurement, so least squares cannot use it.
 * 4. `text`: a concentration or response that is text and not a number.
 * 5. `non-finite`: NaN or an infinity.
 * 6. `negative concentration`: meaningless for every equation.
 * 7. `zero concentration`: on a log-concentration axis (Hill, Biphasic, Bell Curve) zero lies at
 *    minus infinity. By default such points are left out and counted. With
 *    `zeroConcentration: 'plateau'` they are used as what they are in the model, the response at
 *    zero concentration (the curve's low-concentration plateau), which is how untreated controls
 *    in dose-response experiments (the dose-0 rows of the published data sets) are usually fitted
 *    (R's drc does so).
 */

export interface DoseResponsePointInput {
  concentration: unknown
  response: unknown
  /** The qualifier the vault sent with the response (`<`, `>`); absent or empty for a value. */
  modifier?: unknown
  outlier?: unknown
  /** The caller's handle for the point (a readout row id), reported back with exclusions. */
  key?: string | number
}

export type ExclusionReason =
  | 'outlier'
  | 'missing'
  | 'qualified'
  | 'text'
  | 'non-finite'
  | 'negative concentration'
  | 'zero concentration'

export interface ExcludedPoint {
  /** Position in the input. */
  index: number
  key?: string | number
  reason: ExclusionReason
}

export interface PointReport {
  /** Points given. */
  total: number
  /** Points the fit used. */
  used: number
  /** Of those used, points at zero concentration used as the zero-concentration plateau. */
  zeroConcentrationUsed: number
  excluded: ExcludedPoint[]
  /** Excluded points per reason (reasons with none are absent). */
  excludedByReason: Partial<Record<ExclusionReason, number>>
}

export interface UsablePoints {
  concentrations: Float64Array
  responses: Float64Array
  report: PointReport
}

export interface PointOptions {
  logConcentration: boolean
  zeroConcentration: 'exclude' | 'plateau'
}

const QUALIFIED_TEXT = /^\s*(?:<=?|>=?|~|≤|≥)\s*[-+]?(?:\d|\.\d)/

export function usablePoints(
  input: readonly DoseResponsePointInput[],
  options: PointOptions,
): UsablePoints {
  const concentrations: number[] = []
  const responses: number[] = []
  const excluded: ExcludedPoint[] = []
  const excludedByReason: Partial<Record<ExclusionReason, number>> = {}
  let zeroConcentrationUsed = 0
  input.forEach((point, index) => {
    const reason = exclusionOf(point, options)
    if (reason === null) {
      const concentration = toNumber(point.concentration)!
      if (concentration === 0) zeroConcentrationUsed += 1
      concentrations.push(concentration)
      responses.push(toNumber(point.response)!)
      return
    }
    const key = isObject(point) ? point.key : undefined
    excluded.push(key === undefined ? { index, reason } : { index, key, reason })
    excludedByReason[reason] = (excludedByReason[reason] ?? 0) + 1
  })
  return {
    concentrations: Float64Array.from(concentrations),
    responses: Float64Array.from(responses),
    report: {
      total: input.length,
      used: concentrations.length,
      zeroConcentrationUsed,
      excluded,
      excludedByReason,
    },
  }
}

function exclusionOf(point: DoseResponsePointInput, options: PointOptions): ExclusionReason | null {
  if (!isObject(point)) return 'missing'
  if (isSet(point.outlier)) return 'outlier'
  if (isAbsent(point.concentration) || isAbsent(point.response)) return 'missing'
  if (!isAbsent(point.modifier) && point.modifier !== '=') return 'qualified'
  if (typeof point.response === 'string' && QUALIFIED_TEXT.test(point.response)) return 'qualified'
  const concentration = readNumber(point.concentration)
  const response = readNumber(point.response)
  if (concentration === 'text' || response === 'text') return 'text'
  if (!Number.isFinite(concentration) || !Number.isFinite(response)) return 'non-finite'
  if (concentration < 0) return 'negative concentration'
  if (concentration === 0 && options.logConcentration && options.zeroConcentration === 'exclude') {
    return 'zero concentration'
  }
  return null
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
}

/** A number (possibly non-finite) or 'text' for anything that does not read as one. */
function readNumber(value: unknown): number | 'text' {
  if (typeof value === 'number') return value
  if (typeof value === 'string') {
    const trimmed = value.trim()
    if (/^[-+]?(?:infinity|nan)$/i.test(trimmed)) return Number.NaN
    return toNumber(trimmed) ?? 'text'
  }
  return 'text'
}
