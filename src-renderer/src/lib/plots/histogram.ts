/**
 * Histograms of a numeric column, binned as numpy bins them (`numpy.histogram_bin_edges`), so a
 * scientist who checks a figure in Python gets the same bars:
 *
 * - Freedman-Diaconis: bin width 2 × IQR / n^(1/3), robust to outliers; the default.
 * - Sturges: range / (log2(n) + 1), for small or near-normal samples.
 * - a chosen number of equal bins.
 *
 * Bins are equal in width between the smallest and largest value (in log10 units on a log axis);
 * every bin holds [left, right) except the last, which holds its right edge too. Missing values and,
 * on a log axis, values at or below zero are counted, never dropped silently. Freedman-Diaconis
 * needs a spread: when half the values are equal (IQR 0) it falls back to Sturges and says so.
 */

export type BinRule = 'freedman-diaconis' | 'sturges'

export const binRuleLabels: Record<BinRule, string> = {
  'freedman-diaconis': 'Freedman-Diaconis',
  sturges: 'Sturges',
}

/** More bins than this are unreadable on a screen: the rule's count is capped, and says so. */
export const maxBins = 200

export interface HistogramOptions {
  rule?: BinRule
  /** A chosen number of equal bins, instead of the rule's. */
  binCount?: number
  scale?: 'linear' | 'log'
}

export interface Histogram {
  /** Bin edges in data units, bins + 1 of them, rising. */
  edges: number[]
  counts: number[]
  /** Values counted in the bins. */
  binned: number
  /** No value (null or not a finite number). */
  missing: number
  /** At or below zero on a log axis. */
  nonPositive: number
  /** The rule the bins follow (Sturges when Freedman-Diaconis found no spread), or `count`. */
  rule: BinRule | 'count'
  /** The rule asked for more bins than maxBins (`wanted` of them). */
  capped: boolean
  wanted: number
  /** Freedman-Diaconis had no spread to go by and Sturges was used. */
  fellBack: boolean
}

/**
 * A percentile of sorted values, interpolated linearly between the two nearest ranks (numpy's
 * default `linear` method, Hyndman and Fan's type 7).
 */
export function percentile(sorted: ArrayLike<number>, fraction: number): number {
  const n = sorted.length
  if (n === 0) return Number.NaN
  const rank = (n - 1) * fraction
  const below = Math.floor(rank)
  const above = Math.min(n - 1, below + 1)
  const t = rank - below
  const low = sorted[below]!
  const high = sorted[above]!
  // numpy's lerp: from the nearer end, so that t = 1 gives exactly the upper value.
  return t >= 0.5 ? high - (high - low) * (1 - t) : low + (high - low) * t
}

/** The number of equal bins a rule gives for sorted values (numpy's histogram_bin_edges). */
export function ruleBinCount(sorted: ArrayLike<number>, rule: BinRule): number {
  const n = sorted.length
  if (n === 0) return 1
  const range = sorted[n - 1]! - sorted[0]!
  if (range === 0) return 1
  const width =
    rule === 'sturges'
      ? range / (Math.log2(n) + 1)
      : 2 * (percentile(sorted, 0.75) - percentile(sorted, 0.25)) * n ** (-1 / 3)
  return width > 0 ? Math.ceil(range / width) : 1
}

/**
 * `count` equal bins from first to last, as numpy's `linspace` places them (a missing range
 * widens to a unit each side of the value, as numpy does).
 */
export function equalEdges(first: number, last: number, count: number): number[] {
  let low = first
  let high = last
  if (low === high) {
    low -= 0.5
    high += 0.5
  }
  const step = (high - low) / count
  const edges = Array.from({ length: count + 1 }, (_, index) => low + index * step)
  edges[count] = high
  return edges
}

/**
 * The bin of a value among equal edges, by numpy's rule: computed from the position, then
 * corrected against the edges themselves (a value on an edge goes to the bin it opens).
 */
function binOf(value: number, edges: readonly number[], norm: number): number {
  const bins = edges.length - 1
  let bin = Math.floor((value - edges[0]!) * norm)
  if (bin >= bins) bin = bins - 1
  if (bin < 0) bin = 0
  if (value < edges[bin]!) bin -= 1
  else if (bin + 1 < bins && value >= edges[bin + 1]!) bin += 1
  return bin
}

export function histogram(
  values: ArrayLike<number | null>,
  options: HistogramOptions = {},
): Histogram {
  const log = options.scale === 'log'
  const rule = options.rule ?? 'freedman-diaconis'
  let missing = 0
  let nonPositive = 0
  const kept = new Float64Array(values.length)
  let count = 0
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index]
    if (typeof value !== 'number' || !Number.isFinite(value)) missing += 1
    else if (log && value <= 0) nonPositive += 1
    else kept[count++] = log ? Math.log10(value) : value
  }
  const sorted = kept.subarray(0, count).sort()
  if (count === 0) {
    return {
      edges: [],
      counts: [],
      binned: 0,
      missing,
      nonPositive,
      rule,
      capped: false,
      wanted: 0,
      fellBack: false,
    }
  }
  let binRule: Histogram['rule'] = rule
  let fellBack = false
  let bins: number
  if (options.binCount !== undefined) {
    if (!Number.isInteger(options.binCount) || options.binCount < 1) {
      throw new Error(`A histogram needs a whole number of bins from 1, not ${options.binCount}.`)
    }
    bins = options.binCount
    binRule = 'count'
  } else {
    bins = ruleBinCount(sorted, rule)
    if (rule === 'freedman-diaconis' && bins === 1 && sorted[count - 1]! > sorted[0]!) {
      bins = ruleBinCount(sorted, 'sturges')
      binRule = 'sturges'
      fellBack = true
    }
  }
  const wanted = bins
  const capped = bins > maxBins
  bins = Math.min(bins, maxBins)
  const edges = equalEdges(sorted[0]!, sorted[count - 1]!, bins)
  const counts = new Array<number>(bins).fill(0)
  const norm = bins / (edges[bins]! - edges[0]!)
  for (let index = 0; index < count; index += 1) {
    counts[binOf(sorted[index]!, edges, norm)]! += 1
  }
  return {
    edges: log ? edges.map((edge) => 10 ** edge) : edges,
    counts,
    binned: count,
    missing,
    nonPositive,
    rule: binRule,
    capped,
    wanted,
    fellBack,
  }
}

/** How many values fall in [min, max], ends included (what a brush over a histogram selects). */
export function countInRange(values: ArrayLike<number | null>, min: number, max: number): number {
  let inside = 0
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index]
    if (typeof value === 'number' && value >= min && value <= max) inside += 1
  }
  return inside
}
