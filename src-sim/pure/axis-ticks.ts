/** Tick positions and labels for chart axes. */

export interface Axis {
  min: number
  max: number
  ticks: number[]
}

/** Round-number ticks (1, 2 or 5 times a power of ten) covering [low, high]. */
export function linearAxis(low: number, high: number, targetTicks = 5): Axis {
  if (!Number.isFinite(low) || !Number.isFinite(high)) {
    throw new Error(`An axis needs finite limits, not ${low} and ${high}`)
  }
  if (low > high) [low, high] = [high, low]
  if (low === high) {
    const pad = low === 0 ? 1 : Math.abs(low) * 0.1
    low -= pad
    high += pad
  }
  const rough = (high - low) / Math.max(1, targetTicks)
  const magnitude = Math.pow(10, Math.floor(Math.log10(rough)))
  const step = [1, 2, 5, 10].map((f) => f * magnitude).find((s) => s >= rough) ?? 10 * magnitude
  const min = Math.floor(low / step) * step
  const max = Math.ceil(high / step) * step
  const ticks: number[] = []
  for (let tick = min; tick <= max + step / 2; tick += step) ticks.push(cleanFloat(tick, step))
  return { min, max, ticks }
}

/** Whole decades covering [low, high] (both positive); the axis spans at least one decade. */
export function logAxis(low: number, high: number): Axis {
  if (!(low > 0) || !(high > 0)) {
    throw new Error(`A log axis needs positive limits, not ${low} and ${high}`)
  }
  if (low > high) [low, high] = [high, low]
  let first = Math.floor(Math.log10(low) + 1e-9)
  let last = Math.ceil(Math.log10(high) - 1e-9)
  if (first === last) {
    first -= 1
    last += 1
  }
  const ticks: number[] = []
  for (let exponent = first; exponent <= last; exponent += 1) ticks.push(Number(`1e${exponent}`))
  return { min: ticks[0]!, max: ticks[ticks.length - 1]!, ticks }
}

/** Short labels: plain decimals for ordinary magnitudes, `1e-7` style otherwise. */
export function formatTick(value: number): string {
  if (value === 0) return '0'
  const magnitude = Math.abs(value)
  if (magnitude >= 1e-3 && magnitude < 1e5) return String(Number(value.toPrecision(6)))
  const [mantissa, exponent] = value.toExponential().split('e')
  const shortMantissa = String(Number(Number(mantissa).toPrecision(3)))
  return `${shortMantissa}e${Number(exponent)}`
}

/** Removes binary noise such as 0.30000000000000004 from multiples of a decimal step. */
function cleanFloat(value: number, step: number): number {
  const decimals = Math.max(0, -Math.floor(Math.log10(step)) + 1)
  return Number(value.toFixed(Math.min(decimals, 20)))
}
