/**
 * One benchmark result per line on stdout, always beside a reference measured in the same run,
 * because these machines are shared and noisy: the ratio is what a goal is judged on.
 */
export interface BenchLine {
  name: string
  value: number
  unit: string
  /** What `value` is compared with, measured in the same run. */
  reference: string
  referenceValue: number
  /** value / referenceValue (so its meaning depends on the unit: read `goal`). */
  ratio: number
  goal?: string
  met?: boolean
  [extra: string]: unknown
}

export function report(line: BenchLine): void {
  process.stdout.write(`${JSON.stringify(line)}\n`)
}

/** Human progress for a benchmark goes to stderr, so stdout stays JSON lines. */
export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`)
}

export function percentile(sortedValues: readonly number[], fraction: number): number {
  if (sortedValues.length === 0) return Number.NaN
  const index = Math.min(sortedValues.length - 1, Math.ceil(fraction * sortedValues.length) - 1)
  return sortedValues[Math.max(0, index)]!
}
