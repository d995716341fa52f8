/**
 * The one set of tolerant readers for values in server records, used by the API client, the cache
 * (its columns and search text), the outbox and the renderer alike. Records arrive as the vault
 * sent them: numbers and booleans may come as strings, links as bare ids or `{id, name}` objects,
 * and any member may be missing. Each reader returns null (or an empty list) for what it cannot
 * read, so that one odd record never breaks a page; ids are strict (digits only).
 *
 * Readers read; they do not format. How a value is written for a person (booleans as "Yes",
 * numbers with grouping) is `src-common/format/`.
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

/** A finite number from a number or a numeric string ("1.20E+2"), else null. */
export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value === 'string' && value.trim() !== '') {
    const number = Number(value)
    return Number.isFinite(number) ? number : null
  }
  return null
}

/**
 * Text from a string, a finite number or a boolean ("true"/"false"); blank text is missing text,
 * so that an empty member reads as absent wherever it is shown, sorted or searched.
 */
export function toText(value: unknown): string | null {
  if (typeof value === 'string') return isBlank(value) ? null : value
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null
  if (typeof value === 'boolean') return String(value)
  return null
}

function isBlank(text: string): boolean {
  if (text === '') return true
  // Sync reads millions of strings: most begin with a visible character and need no trim.
  const first = text.charCodeAt(0)
  const last = text.charCodeAt(text.length - 1)
  return first <= 32 || last <= 32 || first === 160 || last === 160 ? text.trim() === '' : false
}

const trueTexts = new Set(['true', '1', 'yes', 't'])
const falseTexts = new Set(['false', '0', 'no', 'f'])

/**
 * 1 or 0 for SQLite, from booleans, 0 and 1, and the words vaults write for them ("true", "yes",
 * "t", "1" and their opposites, in any case).
 */
export function toFlag(value: unknown): 1 | 0 | null {
  if (value === true || value === 1) return 1
  if (value === false || value === 0) return 0
  if (typeof value !== 'string') return null
  const text = value.trim().toLowerCase()
  if (trueTexts.has(text)) return 1
  if (falseTexts.has(text)) return 0
  return null
}

/** Whether a flag reads as set (a missing or unreadable flag is not). */
export function isSet(value: unknown): boolean {
  return toFlag(value) === 1
}

/**
 * "First Last" from a person object, its name, or the text the vault gave instead. A bare number
 * is a user's id, not a name: it reads as no name.
 */
export function toPersonName(value: unknown): string | null {
  if (typeof value === 'string') return toText(value)
  if (!isObject(value)) return null
  const parts: string[] = []
  for (const part of [value.first_name, value.last_name]) {
    const text = toText(part)
    if (text !== null && typeof part === 'string') parts.push(text)
  }
  return parts.length > 0 ? parts.join(' ') : toText(value.name)
}

/** The name of a link given as `{id, name}` (or `{value}`), else null. */
export function toLinkName(value: unknown): string | null {
  return isObject(value) ? toText(value.name ?? value.value) : null
}

/** The objects of a list (nested records such as a plate's wells); anything else is skipped. */
export function toObjects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : []
}

/** The texts of a list (synonyms, tags); what is not text is skipped. */
export function toTexts(value: unknown): string[] {
  if (!Array.isArray(value)) return []
  const texts: string[] = []
  for (const item of value) {
    const text = toText(item)
    if (text !== null) texts.push(text)
  }
  return texts
}

export interface NamedLink {
  id: number
  name: string
}

/** Links such as `projects: [{id, name}]`; bare ids are named by their number. */
export function toNamedLinks(value: unknown): NamedLink[] {
  if (!Array.isArray(value)) return []
  return value.flatMap((item) => {
    const id = toLinkId(item)
    if (id === null) return []
    return [{ id, name: toLinkName(item) ?? `#${id}` }]
  })
}

/**
 * A vault-defined field map (`molecule_fields`, `batch_fields`, `fields`...) as name and value
 * pairs, in the vault's order: lists are kept as lists, linked values as their name. Values that
 * read as nothing are left out.
 */
export function toFieldEntries(value: unknown): { name: string; value: unknown }[] {
  if (!isObject(value)) return []
  const entries: { name: string; value: unknown }[] = []
  for (const [name, item] of Object.entries(value)) {
    const read = fieldValue(item)
    if (read !== null) entries.push({ name, value: read })
  }
  return entries
}

function fieldValue(item: unknown): unknown {
  if (Array.isArray(item)) {
    const parts = item.map(fieldValue).filter((part) => part !== null)
    return parts.length > 0 ? parts : null
  }
  if (isObject(item)) return toLinkName(item) ?? toText(item.id)
  if (typeof item === 'string') return toText(item)
  if (typeof item === 'number') return Number.isFinite(item) ? item : null
  if (typeof item === 'boolean') return item
  return null
}

/**
 * The texts of a vault-defined field map, for the search index: string values, strings in lists,
 * and the names of linked values. Sync asks this of every record, so it reads only what search
 * needs (numbers are not words a person types to find a record).
 */
export function fieldTexts(value: unknown): string[] {
  if (!isObject(value)) return []
  const texts: string[] = []
  for (const item of Object.values(value)) {
    if (typeof item === 'string') texts.push(item)
    else if (Array.isArray(item)) {
      for (const element of item) if (typeof element === 'string') texts.push(element)
    } else if (isObject(item) && typeof (item.name ?? item.value) === 'string') {
      texts.push((item.name ?? item.value) as string)
    }
  }
  return texts
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
