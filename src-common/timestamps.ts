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
  if (value === lastText) return lastNormalized
  lastText = value
  lastNormalized = normalized(value)
  return lastNormalized
}

/**
 * The last text read and what it gave: a record's created and modified times are often the same
 * text, and so are its batches', and sync reads them one after the other.
 */
let lastText = ''
let lastNormalized: string | null = null

function normalized(value: string): string | null {
  const utc = canonicalUtc(value)
  if (utc !== null) return utc
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

const zero = 48
const digitAt = (text: string, index: number): number => text.charCodeAt(index) - zero
const isDigit = (text: string, index: number): boolean => {
  const code = text.charCodeAt(index)
  return code >= zero && code <= zero + 9
}
const twoDigits = (text: string, index: number): number =>
  isDigit(text, index) && isDigit(text, index + 1)
    ? digitAt(text, index) * 10 + digitAt(text, index + 1)
    : -1

/**
 * The form servers send nearly always, `YYYY-MM-DDTHH:MM:SS[.fff…]Z`, read without the pattern
 * (far cheaper, and sync reads several per record: bench/README.md); null for any other form,
 * which the pattern then reads.
 */
function canonicalUtc(text: string): string | null {
  const length = text.length
  if (length < 20 || length > 30 || text.charCodeAt(length - 1) !== 90 /* Z */) return null
  if (text[4] !== '-' || text[7] !== '-' || text[10] !== 'T' || text[13] !== ':') return null
  if (text[16] !== ':') return null
  if (twoDigits(text, 0) < 0 || twoDigits(text, 2) < 0) return null
  const month = twoDigits(text, 5)
  const day = twoDigits(text, 8)
  const hour = twoDigits(text, 11)
  const minute = twoDigits(text, 14)
  const second = twoDigits(text, 17)
  if (!inRange(month, 1, 12) || !inRange(day, 1, 31) || !inRange(hour, 0, 23)) return null
  if (!inRange(minute, 0, 59) || !inRange(second, 0, 60)) return null
  if (length === 20) return `${text.slice(0, 19)}.000000Z`
  if (text[19] !== '.' || length === 21) return null
  for (let index = 20; index < length - 1; index++) if (!isDigit(text, index)) return null
  return `${text.slice(0, 19)}.${text.slice(20, Math.min(length - 1, 26)).padEnd(6, '0')}Z`
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
