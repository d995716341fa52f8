/**
 * Readers for the members of cached records, which arrive exactly as the vault sent them: numbers
 * and booleans may be strings, links may be bare ids or `{id, name}` objects, and any member may be
 * missing. Each reader returns null (or an empty list) for what it cannot read, so that a page
 * shows a dash instead of breaking on one odd record.
 */
export type RecordJson = Readonly<Record<string, unknown>>

export function isRecord(value: unknown): value is RecordJson {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A whole-number id from a number or a string of digits. */
export function idOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null
  if (typeof value === 'string' && /^\s*\d{1,15}\s*$/.test(value)) return Number(value)
  return null
}

/** The id of a link given as a bare id or as an object with an id. */
export function linkIdOf(value: unknown): number | null {
  return isRecord(value) ? idOf(value.id) : idOf(value)
}

export function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (typeof value === 'boolean') return value ? 'Yes' : 'No'
  return null
}

export function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value === 'string' && value.trim() !== '') {
    const number = Number(value)
    return Number.isFinite(number) ? number : null
  }
  return null
}

export function flagOf(value: unknown): boolean {
  return value === true || value === 1 || value === 'true' || value === '1'
}

/** "First Last" from a person object, or the text the vault gave instead. */
export function personOf(value: unknown): string | null {
  if (!isRecord(value)) return textOf(value)
  const parts = [value.first_name, value.last_name].filter(
    (part): part is string => typeof part === 'string' && part.trim() !== '',
  )
  return parts.length > 0 ? parts.join(' ') : textOf(value.name)
}

/** The name of a link given as `{id, name}` (or `{value}`), else null. */
export function linkNameOf(value: unknown): string | null {
  return isRecord(value) ? textOf(value.name ?? value.value) : null
}

export function recordsOf(value: unknown): RecordJson[] {
  return Array.isArray(value) ? value.filter(isRecord) : []
}

export function textsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return []
  return value.map(textOf).filter((text): text is string => text !== null)
}

export interface NamedLink {
  id: number
  name: string
}

/** Links such as `projects: [{id, name}]`; bare ids are named by their number. */
export function namedLinksOf(value: unknown): NamedLink[] {
  if (!Array.isArray(value)) return []
  return value.flatMap((item) => {
    const id = linkIdOf(item)
    if (id === null) return []
    return [{ id, name: linkNameOf(item) ?? `#${id}` }]
  })
}

/**
 * A vault-defined field map (`molecule_fields`, `batch_fields`, `fields`...) as label and text
 * pairs, in the vault's order. Lists are joined; linked values show their name.
 */
export function fieldEntriesOf(value: unknown): { label: string; value: string }[] {
  if (!isRecord(value)) return []
  return Object.entries(value).flatMap(([label, item]) => {
    const text = fieldText(item)
    return text === null ? [] : [{ label, value: text }]
  })
}

function fieldText(item: unknown): string | null {
  if (Array.isArray(item)) {
    const parts = item.map(fieldText).filter((part): part is string => part !== null)
    return parts.length > 0 ? parts.join(', ') : null
  }
  if (isRecord(item)) return linkNameOf(item) ?? textOf(item.id)
  return textOf(item)
}
