import type { DistinctColumnValue } from '../../lib/bridge.ts'
import type { FilterValue } from '../../lib/state/record-list.svelte.ts'
import type { FilterChoice, ListFilter } from './list-definitions.ts'

/** Whether a filter's choices are fixed, or read from the cache. */
export function fixedChoices(choices: ListFilter['choices']): choices is readonly FilterChoice[] {
  return Array.isArray(choices)
}

/**
 * The choices of a filter whose values come from the cache: one per distinct value of its column
 * (a category, or a protocol named by its name), in natural order.
 */
export function choicesFrom(
  column: string,
  values: readonly DistinctColumnValue[],
): FilterChoice[] {
  const choices: FilterChoice[] = []
  for (const { value, label } of values) {
    if (value === null) continue
    const set: Record<string, FilterValue> = { [column]: value }
    choices.push({ label: label ?? String(value), set })
  }
  return choices.sort((a, b) =>
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
