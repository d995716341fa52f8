/**
 * Date parameters and timestamps. A date parameter may be a plain ISO date, a date-time read in
 * the user's time zone, or a date-time with an explicit offset. Stored timestamps have
 * one-second precision, except inventory samples which keep microseconds.
 */

export type DatePrecision = 'second' | 'microsecond'

const datePattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/

export class DateFormatError extends Error {}

/**
 * Reads a date parameter as a moment: whole seconds since the epoch (fractional seconds dropped)
 * or, with microsecond precision, microseconds since the epoch.
 */
export function parseDateParameter(
  text: string,
  timeZone: string,
  precision: DatePrecision,
): number {
  const match = datePattern.exec(text.trim())
  if (!match) {
    throw new DateFormatError(
      `'${text}' is not a date: use YYYY-MM-DD, YYYY-MM-DDThh:mm:ss, or YYYY-MM-DDThh:mm:ss+hh:mm`,
    )
  }
  const [, year, month, day, hour, minute, second, fraction, zone] = match
  const fields = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour ?? 0),
    minute: Number(minute ?? 0),
    second: Number(second ?? 0),
  }
  const wall = Date.UTC(
    fields.year,
    fields.month - 1,
    fields.day,
    fields.hour,
    fields.minute,
    fields.second,
  )
  const check = new Date(wall)
  if (
    check.getUTCFullYear() !== fields.year ||
    check.getUTCMonth() !== fields.month - 1 ||
    check.getUTCDate() !== fields.day ||
    fields.hour > 23 ||
    fields.minute > 59 ||
    fields.second > 59
  ) {
    throw new DateFormatError(`'${text}' is not a valid calendar date and time`)
  }
  const offsetMillis = zone === undefined ? zoneOffsetAtWallTime(wall, timeZone) : parseOffset(zone)
  const seconds = (wall - offsetMillis) / 1000
  if (precision === 'second') return seconds
  const micros = Number((fraction ?? '').padEnd(6, '0').slice(0, 6))
  return seconds * 1_000_000 + micros
}

function parseOffset(zone: string): number {
  if (zone === 'Z') return 0
  const sign = zone.startsWith('-') ? -1 : 1
  const digits = zone.slice(1).replace(':', '')
  const hours = Number(digits.slice(0, 2))
  const minutes = Number(digits.slice(2, 4) || '0')
  return sign * (hours * 60 + minutes) * 60_000
}

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone)
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/** The zone's offset from UTC, in milliseconds, at a UTC instant. */
function zoneOffsetAt(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {}
  for (const part of formatterFor(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value)
  }
  const asUtc = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  )
  return asUtc - Math.floor(instant / 1000) * 1000
}

/** The offset that applies to a wall-clock time in a zone (two passes settle DST changes). */
function zoneOffsetAtWallTime(wall: number, timeZone: string): number {
  const first = zoneOffsetAt(wall, timeZone)
  const second = zoneOffsetAt(wall - first, timeZone)
  return second
}

const formattedSeconds = new Map<number, string>()

/**
 * `2024-05-01T12:34:56.000Z`: how one-second timestamps are written in answers. Pages of a
 * thousand records repeat the same few thousand timestamps, so the strings are kept.
 */
export function formatSeconds(seconds: number): string {
  let text = formattedSeconds.get(seconds)
  if (text === undefined) {
    if (formattedSeconds.size >= 200_000) formattedSeconds.clear()
    text = new Date(seconds * 1000).toISOString()
    formattedSeconds.set(seconds, text)
  }
  return text
}

/** `2024-05-01T12:34:56.123456Z`: inventory sample timestamps keep microseconds. */
export function formatMicros(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000)
  const fraction = String(micros - seconds * 1_000_000).padStart(6, '0')
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${fraction}Z`
}

/** `2024-05-01`: plain dates such as run dates. */
export function formatDay(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10)
}
