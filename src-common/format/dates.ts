/**
 * Dates and timestamps from the vault. A plain date ("2026-07-24", a run date) names a day, not an
 * instant, so it is shown as that day whatever the computer's time zone; a timestamp is shown in
 * local time.
 */
const plainDate = /^(\d{4})-(\d{2})-(\d{2})$/

type Style = 'day' | 'utcDay' | 'timestamp'
const styles: Record<Style, Intl.DateTimeFormatOptions> = {
  day: { dateStyle: 'medium' },
  utcDay: { dateStyle: 'medium', timeZone: 'UTC' },
  timestamp: { dateStyle: 'medium', timeStyle: 'short' },
}
/** Made once per locale and style: making one took up to 10 ms of a plate page's first draw. */
const formats = new Map<string, Intl.DateTimeFormat>()

function formatOf(style: Style, locale: string | undefined): Intl.DateTimeFormat {
  const key = `${style} ${locale ?? ''}`
  let format = formats.get(key)
  if (!format) formats.set(key, (format = new Intl.DateTimeFormat(locale, styles[style])))
  return format
}

export function formatDay(value: string | null, locale?: string): string {
  if (value === null) return ''
  const day = plainDate.exec(value.trim())
  if (day) {
    const instant = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]))
    return formatOf('utcDay', locale).format(instant)
  }
  const instant = new Date(value)
  if (Number.isNaN(instant.getTime())) return value
  return formatOf('day', locale).format(instant)
}

export function formatTimestamp(value: string | null, locale?: string): string {
  if (value === null) return ''
  if (plainDate.test(value.trim())) return formatDay(value, locale)
  const instant = new Date(value)
  if (Number.isNaN(instant.getTime())) return value
  return formatOf('timestamp', locale).format(instant)
}
