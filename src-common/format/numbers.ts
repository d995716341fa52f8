/**
 * Numbers as scientists read them: grouped thousands, a chosen number of decimals, and small
 * values that would round to zero written with significant digits instead.
 */
const formats = new Map<string, Intl.NumberFormat>()

function numberFormat(options: Intl.NumberFormatOptions, locale?: string): Intl.NumberFormat {
  const key = `${locale ?? ''}|${JSON.stringify(options)}`
  let format = formats.get(key)
  if (!format) {
    format = new Intl.NumberFormat(locale, options)
    formats.set(key, format)
  }
  return format
}

/** Whole numbers with grouped thousands: "2,000". */
export function formatCount(value: number, locale?: string): string {
  return numberFormat({ maximumFractionDigits: 0 }, locale).format(value)
}

/**
 * A measured value with at most `decimals` decimals ("47.7", "0.123"). A value too small to show
 * at that many decimals keeps `decimals` significant digits instead, so 2.5e-9 is not shown as 0.
 */
export function formatMeasure(value: number, decimals = 2, locale?: string): string {
  const places = Math.min(Math.max(Math.trunc(decimals), 0), 20)
  if (value !== 0 && Math.abs(value) < 0.5 * 10 ** -places) {
    return numberFormat({ maximumSignificantDigits: Math.max(places, 2) }, locale).format(value)
  }
  return numberFormat({ maximumFractionDigits: places }, locale).format(value)
}

/** A value to `digits` significant digits, grouped: "91,600", "53.2", "0.000967". */
export function formatSignificant(value: number, digits = 3, locale?: string): string {
  return numberFormat({ maximumSignificantDigits: digits }, locale).format(value)
}

/** "2 mg", "15.8 µL": an amount and its unit, or the amount alone. */
export function formatAmount(value: number | null, unit: string | null, locale?: string): string {
  if (value === null) return ''
  const amount = formatMeasure(value, 3, locale)
  return unit ? `${amount} ${unit}` : amount
}

/** "161 B", "2.4 MB". */
export function formatBytes(bytes: number, locale?: string): string {
  const units = ['B', 'KB', 'MB', 'GB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${formatMeasure(value, unit === 0 ? 0 : 1, locale)} ${units[unit]}`
}
