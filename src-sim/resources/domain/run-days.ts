import { invalid } from '../../core/http-error.ts'
import type { Params } from '../../core/params.ts'

/**
 * Run dates are calendar days, not moments: `2024-05-01` is the same day for a user in Tokyo and
 * one in New York. A date-time is accepted and its date part, as written, is the day. Days are
 * stored as the epoch seconds of their UTC midnight.
 */
export function readRunDay(params: Params, key: string): number | undefined {
  const value = params.raw(key)
  if (value === undefined || value === null || value === '') return undefined
  const day = typeof value === 'string' ? parseRunDay(value) : undefined
  if (day === undefined) {
    throw invalid(params.nameOf(key), `must be a date as YYYY-MM-DD, got ${JSON.stringify(value)}`)
  }
  return day
}

export function parseRunDay(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:$|[T ])/.exec(text.trim())
  if (!match) return undefined
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const moment = Date.UTC(year, month - 1, day)
  const check = new Date(moment)
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined
  return moment / 1000
}
