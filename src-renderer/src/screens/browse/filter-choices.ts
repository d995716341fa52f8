import type { CachedRecord } from '../../lib/bridge.ts'
import { recordTitle } from '../../lib/records/record-titles.ts'
import { idOf, textOf } from '../../lib/records/record-values.ts'
import type { FilterValue } from '../../lib/state/record-list.svelte.ts'
import type { FilterChoice, ListFilter } from './list-definitions.ts'

type ChoiceSource = Exclude<ListFilter['choices'], readonly FilterChoice[]>

/** Whether a filter's choices are fixed, or read from the cache. */
export function fixedChoices(choices: ListFilter['choices']): choices is readonly FilterChoice[] {
  return Array.isArray(choices)
}

/**
 * The choices of a filter whose values come from the cache: one per record (a protocol, by name)
 * or one per distinct value of a member (a category), in natural order.
 */
export function choicesFrom(
  source: ChoiceSource,
  records: readonly CachedRecord[],
): FilterChoice[] {
  const choices = new Map<string, FilterChoice>()
  for (const record of records) {
    const value: FilterValue =
      source.member === 'id' ? idOf(record.id) : textOf(record[source.member])
    if (value === null) continue
    const label = source.member === 'id' ? recordTitle(source.kind, record) : String(value)
    choices.set(String(value), { label, set: { [source.column]: value } })
  }
  return [...choices.values()].sort((a, b) =>
    a.label.localeCompare(b.label, undefined, { numeric: true, sensitivity: 'base' }),
  )
}

/** The index of the choice whose filters are all set, or -1 (the "any" choice). */
export function chosenIndex(
  choices: readonly FilterChoice[],
  filters: Readonly<Record<string, FilterValue>>,
): number {
  return choices.findIndex((choice) =>
    Object.entries(choice.set).every(([column, value]) => filters[column] === value),
  )
}

/** Every column a filter may set, so that choosing "any" clears them all. */
export function columnsOf(choices: readonly FilterChoice[]): string[] {
  return [...new Set(choices.flatMap((choice) => Object.keys(choice.set)))]
}
