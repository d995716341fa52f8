const timestampPattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i

/**
 * A server timestamp as a UTC string that sorts and compares as text:
 * `YYYY-MM-DDTHH:MM:SS.ffffffZ`, keeping microseconds (inventory samples have them). The server
 * sends them with or without fractions, with `Z` or a local offset; one without an offset is read
 * as UTC. A plain date stays a plain date. Anything else gives null (the JSON keeps the original).
 */
export function normalizeTimestamp(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const match = timestampPattern.exec(value.trim())
  if (!match) return null
  const [, year, month, day, hour, minute, second = '00', fraction = '', zone = 'Z'] = match
  if (!inRange(Number(month), 1, 12) || !inRange(Number(day), 1, 31)) return null
  if (hour === undefined) return `${year}-${month}-${day}`
  if (!inRange(Number(hour), 0, 23) || !inRange(Number(minute), 0, 59)) return null
  if (!inRange(Number(second), 0, 60)) return null
  const fractionDigits = fraction.slice(0, 6).padEnd(6, '0')
  const offsetMinutes = zoneOffsetMinutes(zone)
  if (offsetMinutes === 0) {
    return `${year}-${month}-${day}T${hour}:${minute}:${second.padStart(2, '0')}.${fractionDigits}Z`
  }
  const millis = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute) - offsetMinutes,
    Number(second),
  )
  if (Number.isNaN(millis)) return null
  const whole = new Date(millis).toISOString().slice(0, 19)
  return `${whole}.${fractionDigits}Z`
}

function zoneOffsetMinutes(zone: string): number {
  if (zone.toUpperCase() === 'Z') return 0
  const sign = zone.startsWith('-') ? -1 : 1
  const digits = zone.slice(1).replace(':', '')
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'))
}

function inRange(value: number, low: number, high: number): boolean {
  return value >= low && value <= high
}
