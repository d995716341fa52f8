/** A date parameter: a Date, or an ISO 8601 string (plain date, date-time, with or without offset). */
export type DateInput = Date | string

const isoPattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i

const pad = (value: number, width = 2) => String(Math.abs(value)).padStart(width, '0')

function offsetText(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+'
  return `${sign}${pad(Math.trunc(offsetMinutes / 60))}:${pad(offsetMinutes % 60)}`
}

/**
 * Formats a date parameter as ISO 8601 with an explicit offset, so the server never reads it in
 * the time zone of the user's account. A Date is sent in UTC (milliseconds only when it has any, as
 * the seconds-only `YYYY-MM-DDThh:mm:ss+hh:mm` form is what every operation reads); a string with an
 * offset is sent as written (inventory samples filter on microseconds, which a Date would drop);
 * a string without one is read in this machine's time zone, as the person typed it here.
 */
export function formatDateParam(value: DateInput, name: string): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new RangeError(`${name} is an invalid Date.`)
    return value.toISOString().replace(/(\.000)?Z$/, '+00:00')
  }
  const match = isoPattern.exec(value.trim())
  if (!match) throw new RangeError(`${name}: "${value}" is not an ISO 8601 date.`)
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', offset] =
    match
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)))
  if (
    calendar.getUTCMonth() !== Number(month) - 1 ||
    calendar.getUTCDate() !== Number(day) ||
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second) > 59
  ) {
    throw new RangeError(`${name}: "${value}" is not a valid calendar date and time.`)
  }
  const clock = `${year}-${month}-${day}T${hour}:${minute}:${second}${fraction}`
  if (offset) {
    const normalized =
      offset.toUpperCase() === 'Z' ? '+00:00' : offset.replace(/^(.\d{2})(\d{2})$/, '$1:$2')
    return `${clock}${normalized}`
  }
  const local = new Date(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    Number(second),
  )
  return `${clock}${offsetText(-local.getTimezoneOffset())}`
}

/**
 * Parameter names the spec gives as dates. Bodies and query strings pass their values through
 * formatDateParam, so a caller may hand over a Date or any ISO string.
 */
export function isDateParam(name: string): boolean {
  return /(^|_)(after|before)$/.test(name) || name === 'date_value'
}
