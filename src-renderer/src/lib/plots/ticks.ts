/**
 * Axis ticks a reader can use: steps of 1, 2 or 5 times a power of ten on linear axes, powers of
 * ten (with 2 and 5 between them when there is room) on log axes, and labels written at the
 * precision of the step, so that neighbouring labels always differ and never carry float noise
 * (0.30000000000000004).
 */

export interface Tick {
  value: number
  label: string
}

/** Values at or past these sizes are written with a power of ten ("2×10⁶", "5×10⁻⁵"). */
const largest = 1e6
const smallest = 1e-4

const superscripts: Record<string, string> = {
  '-': '⁻',
  '0': '⁰',
  '1': '¹',
  '2': '²',
  '3': '³',
  '4': '⁴',
  '5': '⁵',
  '6': '⁶',
  '7': '⁷',
  '8': '⁸',
  '9': '⁹',
}

export function superscript(exponent: number): string {
  return [...String(exponent)].map((character) => superscripts[character] ?? character).join('')
}

/**
 * The step between nice ticks that cuts [min, max] into about `count` parts: 1, 2 or 5 times a
 * power of ten (the thresholds are the geometric midpoints, as in d3 and Heckbert's "nice numbers").
 */
export function niceStep(min: number, max: number, count: number): number {
  const raw = Math.abs(max - min) / Math.max(1, count)
  if (!Number.isFinite(raw) || raw === 0) return 0
  const power = 10 ** Math.floor(Math.log10(raw))
  const error = raw / power
  const factor =
    error >= Math.sqrt(50) ? 10 : error >= Math.sqrt(10) ? 5 : error >= Math.sqrt(2) ? 2 : 1
  return factor * power
}

/**
 * Multiples of a step, computed as k × step for steps of 1 and more, and k / (1 / step) below, so
 * that 0.1 × 3 gives 0.3 and not 0.30000000000000004.
 */
function multiple(k: number, step: number): number {
  if (step >= 1) return k * step
  const inverse = Math.round(1 / step)
  return Math.abs(inverse * step - 1) < 1e-9 ? k / inverse : k * step
}

/** Ticks on a linear axis between min and max (either order), about `count` of them. */
export function linearTicks(min: number, max: number, count = 6): Tick[] {
  const low = Math.min(min, max)
  const high = Math.max(min, max)
  if (!Number.isFinite(low) || !Number.isFinite(high)) return []
  const step = niceStep(low, high, count)
  if (step === 0) return [{ value: low, label: formatValue(low) }]
  const first = Math.ceil(low / step - 1e-9)
  const last = Math.floor(high / step + 1e-9)
  const ticks: Tick[] = []
  for (let k = first; k <= last && ticks.length < 1000; k += 1) {
    // Adding zero turns -0 (from -0 × step) into 0.
    const value = multiple(k, step) + 0
    ticks.push({ value, label: formatNumber(value, step) })
  }
  return ticks
}

/**
 * Ticks on a log axis between two positive values. Over several decades: powers of ten (every
 * second or fifth power when there are too many); over one or two: 1, 2 and 5 in each decade;
 * within less than a decade, nice linear ticks, since a log axis that narrow reads like a linear one.
 */
export function logTicks(min: number, max: number, count = 6): Tick[] {
  const low = Math.min(min, max)
  const high = Math.max(min, max)
  if (!(low > 0) || !Number.isFinite(high)) return []
  const lowExponent = Math.log10(low)
  const highExponent = Math.log10(high)
  const decades = highExponent - lowExponent
  if (decades < 1) {
    const ticks = linearTicks(low, high, Math.max(2, Math.round(count / 2)))
    return ticks.filter((tick) => tick.value > 0)
  }
  const first = Math.ceil(lowExponent - 1e-9)
  const last = Math.floor(highExponent + 1e-9)
  const every = Math.max(1, niceStep(0, decades, count))
  const mantissas = decades * 3 <= count ? [1, 2, 5] : [1]
  const ticks: Tick[] = []
  const plain = first >= -3 && last <= 5
  for (let exponent = Math.floor(lowExponent); exponent <= last; exponent += 1) {
    if (mantissas.length === 1 && (exponent - first) % every !== 0) continue
    for (const mantissa of mantissas) {
      const value = mantissa * 10 ** exponent
      // 10 ** -3 is 0.0010000000000000002: read the value back from its decimal text.
      const exact = Number(`${mantissa}e${exponent}`)
      if (exact < low * (1 - 1e-12) || exact > high * (1 + 1e-12)) continue
      ticks.push({
        value: exact,
        label: plain
          ? formatNumber(value, 10 ** exponent)
          : mantissa === 1
            ? `10${superscript(exponent)}`
            : `${mantissa}×10${superscript(exponent)}`,
      })
    }
  }
  return ticks
}

const formats = new Map<string, Intl.NumberFormat>()

function numberFormat(decimals: number): Intl.NumberFormat {
  const key = String(decimals)
  let format = formats.get(key)
  if (!format) {
    format = new Intl.NumberFormat('en-US', {
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals,
    })
    formats.set(key, format)
  }
  return format
}

/**
 * A tick's label: as many decimals as the step needs, or a power of ten for very large or very
 * small numbers ("2.5×10⁶"). The minus is a real minus sign (−), as in print.
 */
export function formatNumber(value: number, step: number): string {
  if (value === 0) return '0'
  const size = Math.abs(value)
  const stepSize = Math.abs(step) || size
  if (size >= largest || (size < smallest && stepSize < smallest)) {
    const exponent = Math.floor(Math.log10(size) + 1e-12)
    const digits = Math.max(0, Math.min(6, exponent - Math.floor(Math.log10(stepSize) + 1e-12)))
    const mantissa = value / 10 ** exponent
    const text = Number(mantissa.toFixed(digits)).toString()
    return `${(text === '1' ? '' : text === '-1' ? '-' : `${text}×`).replace('-', '−')}10${superscript(exponent)}`
  }
  const decimals = Math.max(0, Math.min(12, -Math.floor(Math.log10(stepSize) + 1e-12)))
  return numberFormat(decimals).format(value).replace('-', '−')
}

/**
 * A value as a tooltip or table shows it: four significant digits (enough to tell neighbouring
 * points apart) without a step to go by.
 */
export function formatValue(value: number): string {
  if (value === 0) return '0'
  if (!Number.isFinite(value)) return String(value)
  const size = Math.abs(value)
  if (size >= largest || size < smallest) {
    const exponent = Math.floor(Math.log10(size))
    const mantissa = Number((value / 10 ** exponent).toPrecision(4))
    return `${mantissa}×10${superscript(exponent)}`.replace('-', '−')
  }
  const digits = Math.max(0, 3 - Math.floor(Math.log10(size)))
  return numberFormat(Math.min(digits, 6))
    .format(Number(value.toPrecision(4)))
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '')
    .replace('-', '−')
}
