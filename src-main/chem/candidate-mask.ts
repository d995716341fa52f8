/**
 * The molecules a structure search may return, as one shared byte per slot, from the ids the
 * search's other filters allow and the property ranges asked for (a molecule whose property is
 * unknown is outside any range on it). Null when nothing narrows the search.
 */
import type { StructureIndex } from './structure-index.ts'
import type { NormalizedRange } from './structure-search-request.ts'

export function candidateMask(
  index: StructureIndex,
  slotCount: number,
  within: ReadonlySet<number> | null,
  ranges: readonly NormalizedRange[],
): Uint8Array | null {
  if (within === null && ranges.length === 0) return null
  const mask = new Uint8Array(new SharedArrayBuffer(slotCount))
  if (within === null) {
    mask.fill(1)
  } else {
    for (const id of within) {
      const slot = index.slotOf(id)
      if (slot !== undefined && slot < slotCount) mask[slot] = 1
    }
  }
  for (const { name, min, max } of ranges) {
    const values = index.propertyColumn(name)
    for (let slot = 0; slot < slotCount; slot++) {
      if (mask[slot] === 1 && !(values[slot]! >= min && values[slot]! <= max)) mask[slot] = 0
    }
  }
  return mask
}
