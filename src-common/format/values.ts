/**
 * How values read from records are written for a person: booleans as "Yes" and "No", lists joined,
 * linked values by their name. The readers in `src-common/values.ts` read; these write.
 */
import { toFieldEntries, toText } from '../values.ts'

/** A value as text for a person, or null when there is nothing to show. */
export function displayText(value: unknown): string | null {
  if (typeof value === 'boolean') return value ? 'Yes' : 'No'
  if (Array.isArray(value)) {
    const parts = value.map(displayText).filter((part) => part !== null)
    return parts.length > 0 ? parts.join(', ') : null
  }
  return toText(value)
}

/** A vault-defined field map as labelled text, in the vault's order (a record page's fields). */
export function formatFieldEntries(value: unknown): { label: string; value: string }[] {
  return toFieldEntries(value).flatMap(({ name, value: item }) => {
    const text = displayText(item)
    return text === null ? [] : [{ label: name, value: text }]
  })
}
