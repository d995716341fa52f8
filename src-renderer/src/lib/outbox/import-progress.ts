/**
 * An import (slurp) as the Outbox follows it: the state it is in among mapping, processing,
 * processed, committing and committed (or how it failed), with its events and errors.
 */
import { finishedImportStates } from '../../../../src-common/outbox/imports.ts'
import type { OutboxItemView } from '../../../../src-common/outbox/item-view.ts'
import { isObject, toObjects, toText } from '../../../../src-common/values.ts'

export const importSteps = [
  'mapping',
  'processing',
  'processed',
  'committing',
  'committed',
] as const
const failedStates: readonly string[] = finishedImportStates.filter(
  (state) => state !== 'committed',
)

export interface ImportEvent {
  /** The record (row of the file) it is about. */
  record: string | null
  message: string
  resolution: string | null
}

export interface ImportProgress {
  /** What the import is doing, in words. */
  phase: string
  /** The server's state, or null before the vault has the file. */
  state: string | null
  /** Index into `importSteps` reached (-1 before the vault has it). */
  step: number
  failed: boolean
  finished: boolean
  ambiguous: ImportEvent[]
  suspicious: ImportEvent[]
  errors: ImportEvent[]
  /** The server's counts (`summary`), as label and number. */
  summary: { label: string; value: string }[]
}

function eventsOf(value: unknown): ImportEvent[] {
  return toObjects(value).map((event) => ({
    record: toText(event.record),
    message: toText(event.message) ?? 'No message',
    resolution: toText(event.resolution),
  }))
}

export function importProgress(item: OutboxItemView): ImportProgress {
  const result = item.state === 'sent' && isObject(item.result) ? item.result : null
  const state = result ? toText(result.state) : null
  const step = state === null ? -1 : importSteps.indexOf(state as (typeof importSteps)[number])
  const failed = state !== null && failedStates.includes(state)
  const finished = failed || state === 'committed'
  let phase: string
  if (item.state === 'cancelled') phase = 'Discarded before it was sent'
  else if (item.state !== 'sent') phase = 'Waiting to be sent'
  else if (state === null) phase = 'Sent; waiting for the vault to say how it goes'
  else if (failed) phase = `The import was ${state}`
  else if (state === 'committed') phase = 'Imported'
  else phase = `${state.charAt(0).toUpperCase()}${state.slice(1)}…`
  const summary = isObject(result?.summary)
    ? Object.entries(result.summary).flatMap(([label, value]) => {
        const text = toText(value)
        return text === null ? [] : [{ label: label.replace(/_/g, ' '), value: text }]
      })
    : []
  return {
    phase,
    state,
    step: failed ? Math.max(step, 0) : step,
    failed,
    finished,
    ambiguous: eventsOf(result?.ambiguous_events),
    suspicious: eventsOf(result?.suspicious_events),
    errors: eventsOf(result?.import_errors),
    summary,
  }
}
