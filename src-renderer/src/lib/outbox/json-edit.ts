/**
 * Corrections of a queued item as JSON, for editable operations without an editor of their own:
 * only the members its declaration lets the person correct are shown and taken back; the others
 * (what it changes) stay as queued.
 */
import { declarationOf } from '../../../../src-common/outbox/operations.ts'
import { isObject, type JsonObject } from '../../../../src-common/values.ts'
import type { OutboxItemView } from './items.ts'

export type JsonEdited = { ok: true; payload: JsonObject } | { ok: false; message: string }

function editableOf(item: Pick<OutboxItemView, 'operation'>): readonly string[] {
  return declarationOf(item.operation).editable ?? []
}

/** The members the person may correct, as the editor shows them. */
export function editableJson(item: Pick<OutboxItemView, 'operation' | 'payload'>): string {
  const editable = editableOf(item)
  const shown = Object.entries(item.payload).filter(([member]) => editable.includes(member))
  return JSON.stringify(Object.fromEntries(shown), null, 2)
}

/** Whether the payload has members that stay as they are (the record it changes...). */
export function keepsMembers(item: Pick<OutboxItemView, 'operation' | 'payload'>): boolean {
  const editable = editableOf(item)
  return Object.keys(item.payload).some((member) => !editable.includes(member))
}

/** The corrected payload: the members kept as queued, with the ones given in `text`. */
export function jsonEdited(
  item: Pick<OutboxItemView, 'operation' | 'payload'>,
  text: string,
): JsonEdited {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (problem) {
    return { ok: false, message: `This is not JSON: ${(problem as Error).message}` }
  }
  if (!isObject(parsed)) return { ok: false, message: 'The change must be a JSON object.' }
  const editable = editableOf(item)
  const other = Object.keys(parsed).filter((member) => !editable.includes(member))
  if (other.length > 0) {
    return {
      ok: false,
      message: `Only ${editable.join(', ')} can be corrected here, not ${other.join(', ')}.`,
    }
  }
  const kept = Object.entries(item.payload).filter(([member]) => !editable.includes(member))
  return { ok: true, payload: { ...Object.fromEntries(kept), ...parsed } }
}
