/**
 * Tolerant readers for values in server records: numbers and booleans may come as strings, and
 * any member may be missing. Each returns null for what it cannot read; ids are strict (see ids).
 */
export type SqlValue = string | number | bigint | null

export type JsonObject = Record<string, unknown>

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** An integer id from a number or a string of digits, else null. */
export function toId(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null
  if (typeof value === 'string' && /^\s*-?\d{1,15}\s*$/.test(value)) return Number(value)
  return null
}

/** The id of a link that may be a bare id or an object with an id ({id, name}). */
export function toLinkId(value: unknown): number | null {
  return isObject(value) ? toId(value.id) : toId(value)
}

export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value === 'string' && value.trim() !== '') {
    const number = Number(value)
    return Number.isFinite(number) ? number : null
  }
  return null
}

export function toText(value: unknown): string | null {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return null
}

/** 1 or 0 for SQLite, from booleans, 0/1 and the strings "true"/"false". */
export function toFlag(value: unknown): number | null {
  if (value === true || value === 1 || value === 'true' || value === '1') return 1
  if (value === false || value === 0 || value === 'false' || value === '0') return 0
  return null
}

/** The ids of an array of links ({id, name} objects or bare ids); anything unreadable is skipped. */
export function toLinkIds(value: unknown): number[] {
  if (!Array.isArray(value)) return []
  const ids: number[] = []
  for (const item of value) {
    const id = toLinkId(item)
    if (id !== null) ids.push(id)
  }
  return ids
}

/** "First Last" from an object with first_name and last_name, else its name. */
export function toPersonName(value: unknown): string | null {
  if (typeof value === 'string') return value
  if (!isObject(value)) return null
  const full = [value.first_name, value.last_name].filter((part) => typeof part === 'string')
  return full.length > 0 ? full.join(' ') : toText(value.name)
}

/**
 * The values of a list, each once, in order. Sync asks this of every record's projects and
 * search texts, nearly always a value or two: a Set for each cost more than the scan.
 */
export function distinct<T>(values: readonly T[]): readonly T[] {
  if (values.length < 2) return values
  if (values.length > 16) return [...new Set(values)]
  const kept: T[] = []
  for (const value of values) if (!kept.includes(value)) kept.push(value)
  return kept
}
