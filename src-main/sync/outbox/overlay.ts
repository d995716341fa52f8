import { isObject, type JsonObject } from '../../../src-common/values.ts'

/**
 * What the UI shows of a queued change before the server has it, stored with its item: the
 * record as created offline, members set on it, or values appended to its array members.
 */
export interface Overlay {
  create?: JsonObject
  /** Objects merge member by member; null removes a member (as a JSON merge patch). */
  set?: JsonObject
  /** Appended to array members; values already there are not added again. */
  append?: Record<string, unknown[]>
}

/** Applies overlays in the order they were queued; never changes `record` itself. */
export function applyOverlays(record: JsonObject | null, overlays: readonly Overlay[]): JsonObject {
  let merged: JsonObject = record ? structuredClone(record) : {}
  for (const overlay of overlays) {
    if (overlay.create) merged = mergePatch(merged, overlay.create)
    if (overlay.set) merged = mergePatch(merged, overlay.set)
    for (const [member, values] of Object.entries(overlay.append ?? {})) {
      const current = Array.isArray(merged[member]) ? (merged[member] as unknown[]) : []
      const fresh = values.filter((value) => !current.some((old) => sameJson(old, value)))
      merged[member] = [...current, ...fresh]
    }
  }
  return merged
}

function mergePatch(target: JsonObject, patch: JsonObject): JsonObject {
  const merged: JsonObject = { ...target }
  for (const [member, value] of Object.entries(patch)) {
    if (value === null) delete merged[member]
    else if (isObject(value) && isObject(merged[member])) {
      merged[member] = mergePatch(merged[member] as JsonObject, value)
    } else merged[member] = structuredClone(value)
  }
  return merged
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}
