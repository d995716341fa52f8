/**
 * The protocols and readout definitions that criteria name, as plain data the caller gives (from
 * the cache or from protocol records), and how a name someone typed finds its entry: exactly;
 * else ignoring case, Unicode compatibility forms (`µ` and `μ`) and runs of spaces; else not at
 * all, with the existing names closest first (by edit distance, names that contain what was
 * typed, or are contained in it, ahead of the rest).
 */
import { isObject, toId, toText } from '../../values.ts'
import { valueTypeOf, type ValueType } from './readout-value.ts'

export interface ReadoutDefinitionEntry {
  id: number
  name: string
  valueType: ValueType
  /** The unit label; null when the definition has none. */
  unit: string | null
  /** As the definition names it ("geometric mean"); null when it does not. */
  aggregation: string | null
}

export interface ProtocolEntry {
  id: number
  name: string
  readouts: readonly ReadoutDefinitionEntry[]
}

export type Catalogue = readonly ProtocolEntry[]

/** A readout definition from a protocol record's `readout_definitions`; null without an id. */
export function readoutDefinitionEntryOf(raw: unknown): ReadoutDefinitionEntry | null {
  if (!isObject(raw)) return null
  const id = toId(raw.id)
  if (id === null) return null
  return {
    id,
    name: toText(raw.name)?.trim() ?? `Readout ${id}`,
    valueType: valueTypeOf(raw.data_type),
    unit: toText(raw.unit_label)?.trim() ?? null,
    aggregation: toText(raw.aggregation)?.trim() ?? null,
  }
}

/** A protocol record as a catalogue entry; null without an id. */
export function protocolEntryOf(raw: unknown): ProtocolEntry | null {
  if (!isObject(raw)) return null
  const id = toId(raw.id)
  if (id === null) return null
  const definitions = Array.isArray(raw.readout_definitions) ? raw.readout_definitions : []
  return {
    id,
    name: toText(raw.name)?.trim() ?? `Protocol ${id}`,
    readouts: definitions.flatMap((definition) => readoutDefinitionEntryOf(definition) ?? []),
  }
}

/** A name as compared without case: NFKC, spaces collapsed, lower case. */
export function foldName(name: string): string {
  return name.normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase()
}

export type NameLookup<T> = { found: T } | { ambiguous: T[] } | { unknown: true; closest: T[] }

/** Finds the entry a typed name means. */
export function lookUpName<T extends { name: string }>(
  typed: string,
  entries: readonly T[],
): NameLookup<T> {
  const trimmed = typed.trim()
  const exact = entries.filter((entry) => entry.name.trim() === trimmed)
  if (exact.length === 1) return { found: exact[0]! }
  const folded = foldName(trimmed)
  const loose =
    exact.length > 1 ? exact : entries.filter((entry) => foldName(entry.name) === folded)
  if (loose.length === 1) return { found: loose[0]! }
  if (loose.length > 1) return { ambiguous: loose }
  return { unknown: true, closest: closestFirst(trimmed, entries) }
}

/** Names are ranked by their first characters: enough to tell them apart, cheap for long ones. */
const COMPARED_LENGTH = 200

/** The entries ordered by how close their name is to the typed one. */
export function closestFirst<T extends { name: string }>(
  typed: string,
  entries: readonly T[],
): T[] {
  const folded = foldName(typed).slice(0, COMPARED_LENGTH)
  const scored = entries.map((entry) => {
    const name = foldName(entry.name).slice(0, COMPARED_LENGTH)
    const overlaps = folded !== '' && (name.includes(folded) || folded.includes(name))
    return { entry, name, tier: overlaps ? 0 : 1, distance: editDistance(folded, name) }
  })
  scored.sort(
    (first, second) =>
      first.tier - second.tier ||
      first.distance - second.distance ||
      (first.name < second.name ? -1 : first.name > second.name ? 1 : 0),
  )
  return scored.map((score) => score.entry)
}

/**
 * The optimal string alignment distance: insertions, deletions, substitutions and swaps of
 * neighbours each cost one ("ADP Glo" is one from "ADP-Glo", "IC05" one from "IC50").
 */
export function editDistance(first: string, second: string): number {
  const a = [...first]
  const b = [...second]
  let beforePrevious: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i]
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, beforePrevious[j - 2]! + 1)
      }
      current.push(best)
    }
    beforePrevious = previous
    previous = current
  }
  return previous[b.length]!
}

const LISTED = 8

/** `"A", "B", "C" and 12 more`: names for a message, closest first as given. */
export function listNames(names: readonly string[]): string {
  const shown = names.slice(0, LISTED).map((name) => `"${name}"`)
  const rest = names.length - shown.length
  return rest > 0 ? `${shown.join(', ')} and ${rest} more` : shown.join(', ')
}
