import { isObject, toLinkIds } from '../../../../src-common/values.ts'
import { normalizeTimestamp } from '../../../../src-common/timestamps.ts'

/**
 * Whether a value the outbox sent is what the server now holds, allowing for the ways servers
 * echo values back: numbers as strings, `{id, name}` objects for ids, sets in any order.
 */
export function sameValue(sent: unknown, held: unknown): boolean {
  if (sent === null || sent === undefined || sent === '') {
    return held === null || held === undefined || held === ''
  }
  if (typeof sent === 'number' || typeof held === 'number') {
    return held !== null && held !== '' && Number(sent) === Number(held)
  }
  if (typeof sent === 'boolean' || typeof held === 'boolean') {
    return String(sent) === String(held)
  }
  if (Array.isArray(sent)) {
    if (!Array.isArray(held) || held.length !== sent.length) return false
    return sent.every((value) => held.some((candidate) => sameValue(value, candidate)))
  }
  if (isObject(sent)) {
    return (
      isObject(held) && Object.entries(sent).every(([key, value]) => sameValue(value, held[key]))
    )
  }
  return sent === held
}

/** Whether every project (by id or name) the outbox sent is among the record's projects. */
export function sameProjects(sent: readonly (number | string)[], held: unknown): boolean {
  if (!Array.isArray(held) || held.length !== sent.length) return false
  const ids = new Set(toLinkIds(held))
  const names = new Set(
    held.flatMap((project) =>
      isObject(project) && typeof project.name === 'string' ? [project.name] : [],
    ),
  )
  return sent.every((project) =>
    typeof project === 'number' ? ids.has(project) : names.has(project),
  )
}

/** Whether two server timestamps are the same instant (at whatever precision they carry). */
export function sameInstant(a: unknown, b: unknown): boolean {
  const left = normalizeTimestamp(a)
  return left !== null && left === normalizeTimestamp(b)
}

/** Whether `later` is a later instant than `earlier`. */
export function isLater(later: unknown, earlier: unknown): boolean {
  const left = normalizeTimestamp(later)
  const right = normalizeTimestamp(earlier)
  return left !== null && right !== null && left > right
}
