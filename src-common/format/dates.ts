/**
 * Dates and timestamps from the vault. A plain date ("2026-07-24", a run date) names a day, not an
 * instant, so it is shown as that day whatever the computer's time zone; a timestamp is shown in
 * local time.
 */
const plainDate = /^(\d{4})-(\d{2})-(\d{2})$/

export function formatDay(value: string | null, locale?: string): string {
  if (value === null) return ''
  const day = plainDate.exec(value.trim())
  if (day) {
    const instant = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]))
    return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(instant)
  }
  const instant = new Date(value)
  if (Number.isNaN(instant.getTime())) return value
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }).format(instant)
}

export function formatTimestamp(value: string | null, locale?: string): string {
  if (value === null) return ''
  if (plainDate.test(value.trim())) return formatDay(value, locale)
  const instant = new Date(value)
  if (Number.isNaN(instant.getTime())) return value
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(
    instant,
  )
}
