/**
 * The slots a narrowed structure search scans, in ascending order, in shared memory (every worker
 * reads the one list): those of the ids the search's other filters allow, within the property
 * ranges asked for (a molecule whose property is unknown is outside any range on it). Null when
 * nothing narrows the search. Building it costs what the ids are, plus one pass over the slots.
 */
import type { StructureIndex } from './structure-index.ts'
import type { NormalizedRange } from './structure-search-request.ts'

export function candidateSlots(
  index: StructureIndex,
  slotCount: number,
  within: readonly number[] | null,
  ranges: readonly NormalizedRange[],
): Int32Array | null {
  if (within === null && ranges.length === 0) return null
  const inScope = new Uint8Array(slotCount)
  if (within === null) {
    inScope.fill(1)
  } else {
    for (const id of within) {
      const slot = index.slotOf(id)
      if (slot !== undefined && slot < slotCount) inScope[slot] = 1
    }
  }
  for (const { name, min, max } of ranges) {
    const values = index.propertyColumn(name)
    for (let slot = 0; slot < slotCount; slot++) {
      if (inScope[slot] === 1 && !(values[slot]! >= min && values[slot]! <= max)) inScope[slot] = 0
    }
  }
  let count = 0
  for (let slot = 0; slot < slotCount; slot++) count += inScope[slot]!
  const slots = new Int32Array(new SharedArrayBuffer(count * Int32Array.BYTES_PER_ELEMENT))
  for (let slot = 0, at = 0; at < count; slot++) {
    if (inScope[slot] === 1) slots[at++] = slot
  }
  return slots
}
