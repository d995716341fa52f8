/** Summary statistics of assay readouts: control-well quality (Z') and protocol averages. */

export interface Summary {
  count: number
  mean: number
  /** Sample standard deviation; 0 for a single value. */
  deviation: number
}

export function summarize(values: readonly number[]): Summary | undefined {
  const finite = values.filter(Number.isFinite)
  if (finite.length === 0) return undefined
  const mean = finite.reduce((sum, value) => sum + value, 0) / finite.length
  const squares = finite.reduce((sum, value) => sum + (value - mean) ** 2, 0)
  return {
    count: finite.length,
    mean,
    deviation: finite.length > 1 ? Math.sqrt(squares / (finite.length - 1)) : 0,
  }
}

/**
 * Z' factor of a plate (Zhang, Chung and Oldenburg 1999): 1 - 3(σ+ + σ-) / |μ+ - μ-|. Above 0.5
 * is an excellent assay; undefined when the control means coincide.
 */
export function zPrime(positive: Summary, negative: Summary): number | undefined {
  const separation = Math.abs(positive.mean - negative.mean)
  if (separation === 0) return undefined
  return 1 - (3 * (positive.deviation + negative.deviation)) / separation
}

/**
 * The vault's way of writing statistics averages: three significant digits as an integer
 * mantissa and a signed two-digit exponent, e.g. 0.000967 is "967E-06".
 */
export function formatVaultNumber(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`cannot format ${value} as a statistic`)
  if (value === 0) return '0E+00'
  const exponent = Math.floor(Math.log10(Math.abs(value))) - 2
  let mantissa = Math.round(value / Math.pow(10, exponent))
  let shift = exponent
  // Rounding can carry into a fourth digit (999.6 becomes 1000).
  if (Math.abs(mantissa) >= 1000) {
    mantissa = Math.round(mantissa / 10)
    shift += 1
  }
  const sign = shift < 0 ? '-' : '+'
  return `${mantissa}E${sign}${String(Math.abs(shift)).padStart(2, '0')}`
}
