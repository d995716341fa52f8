/**
 * Small statistical building blocks shared by curve fitting and plate quality: sample summaries
 * and Student's t distribution (for confidence intervals with few residual degrees of freedom).
 */

export interface SampleSummary {
  n: number
  mean: number
  /** Sample standard deviation (n - 1 in the denominator); null below two values. */
  standardDeviation: number | null
}

/** Mean and sample standard deviation of finite values; null when there are none. */
export function summarize(values: readonly number[]): SampleSummary | null {
  let n = 0
  let sum = 0
  for (const value of values) {
    if (!Number.isFinite(value)) continue
    n += 1
    sum += value
  }
  if (n === 0) return null
  const mean = sum / n
  if (n < 2) return { n, mean, standardDeviation: null }
  let squares = 0
  for (const value of values) if (Number.isFinite(value)) squares += (value - mean) ** 2
  return { n, mean, standardDeviation: Math.sqrt(squares / (n - 1)) }
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, nine terms: about 15 significant digits). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x)
  const shifted = x - 1
  let series = LANCZOS[0]!
  for (let index = 1; index < LANCZOS.length; index += 1) {
    series += LANCZOS[index]! / (shifted + index)
  }
  const t = shifted + LANCZOS_G + 0.5
  return 0.5 * Math.log(2 * Math.PI) + (shifted + 0.5) * Math.log(t) - t + Math.log(series)
}

const LANCZOS_G = 7
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
  -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
  1.5056327351493116e-7,
]

/** The regularized incomplete beta function I_x(a, b), for 0 <= x <= 1 and a, b > 0. */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const logFront =
    logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x)
  // The continued fraction converges quickly only on this side of the mean; use symmetry.
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(logFront) * betaContinuedFraction(x, a, b)) / a
  return 1 - (Math.exp(logFront) * betaContinuedFraction(1 - x, b, a)) / b
}

/** The continued fraction of the incomplete beta function, by the modified Lentz method. */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300
  const guard = (value: number): number => (Math.abs(value) < tiny ? tiny : value)
  let c = 1
  let d = 1 / guard(1 - ((a + b) * x) / (a + 1))
  let result = d
  for (let m = 1; m <= 500; m += 1) {
    const even = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m))
    d = 1 / guard(1 + even * d)
    c = guard(1 + even / c)
    result *= d * c
    const odd = (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))
    d = 1 / guard(1 + odd * d)
    c = guard(1 + odd / c)
    const change = d * c
    result *= change
    if (Math.abs(change - 1) < 1e-15) break
  }
  return result
}

/** P(T <= t) for Student's t distribution with the given degrees of freedom (> 0). */
export function studentTCdf(t: number, degreesOfFreedom: number): number {
  if (Number.isNaN(t)) return Number.NaN
  if (t === Number.POSITIVE_INFINITY) return 1
  if (t === Number.NEGATIVE_INFINITY) return 0
  const tail =
    0.5 *
    regularizedIncompleteBeta(
      degreesOfFreedom / (degreesOfFreedom + t * t),
      degreesOfFreedom / 2,
      0.5,
    )
  return t >= 0 ? 1 - tail : tail
}

const quantileCache = new Map<string, number>()

/**
 * The t with P(T <= t) = probability, found by bisection on the distribution function (exact to
 * about 1e-12; cached, since fits ask for the same few quantiles again and again). NaN when the
 * probability is outside (0, 1) or the degrees of freedom are not positive.
 */
export function studentTQuantile(probability: number, degreesOfFreedom: number): number {
  if (!(probability > 0 && probability < 1) || !(degreesOfFreedom > 0)) return Number.NaN
  if (probability === 0.5) return 0
  const key = `${probability}:${degreesOfFreedom}`
  const cached = quantileCache.get(key)
  if (cached !== undefined) return cached
  const upperTail = probability > 0.5
  const target = upperTail ? probability : 1 - probability
  let low = 0
  let high = 1
  while (studentTCdf(high, degreesOfFreedom) < target && high < 1e15) high *= 2
  for (let step = 0; step < 200 && high - low > 1e-13 * Math.max(1, high); step += 1) {
    const middle = (low + high) / 2
    if (studentTCdf(middle, degreesOfFreedom) < target) low = middle
    else high = middle
  }
  const quantile = upperTail ? (low + high) / 2 : -(low + high) / 2
  if (quantileCache.size > 1000) quantileCache.clear()
  quantileCache.set(key, quantile)
  return quantile
}

/** P(F > f) for the F distribution with (d1, d2) degrees of freedom: the F test's p-value. */
export function fDistributionSurvival(f: number, d1: number, d2: number): number {
  if (!(d1 > 0 && d2 > 0) || Number.isNaN(f)) return Number.NaN
  if (f <= 0) return 1
  if (f === Number.POSITIVE_INFINITY) return 0
  return regularizedIncompleteBeta(d2 / (d2 + d1 * f), d2 / 2, d1 / 2)
}
