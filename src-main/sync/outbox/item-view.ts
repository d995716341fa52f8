import { isObject, type JsonObject } from '../../store/record-values.ts'
import type { OperationName } from './operations/operation-names.ts'
import type { OutboxItem, OutboxState } from './outbox-item.ts'

/** How far an upload has gone (the renderer reads these types: no Node types here). */
export interface UploadProgressView {
  sentBytes: number
  totalBytes: number
}

/** An item as the Outbox view and `vault-desk outbox list` show it. */
export interface OutboxItemView {
  id: number
  connectionId: string
  vaultId: number
  operation: OperationName
  state: OutboxState
  /** What it does, in words: "Attach plate-7.csv to molecule 123". */
  summary: string
  /** The record it changes or creates: its server id, or the item creating it offline. */
  record: { kind: string; id: number | null; createdBy: number | null }
  payload: JsonObject
  file: { name: string; size: number } | null
  /** Bytes of an upload under way. */
  progress: UploadProgressView | null
  attempts: number
  /** When the next attempt is due (ISO), for a queued item waiting after a failure. */
  nextAttemptAt: string | null
  /** The server's last error text (or why the item is uncertain or in conflict). */
  lastError: string | null
  /** An earlier attempt may have arrived: it is looked up before any resend. */
  inDoubt: boolean
  /** For a conflict: the server's copy; the person keeps theirs or sends this item anyway. */
  theirs: JsonObject | null
  serverId: number | null
  /** The server's answer; for an import, its latest state with events and errors. */
  result: JsonObject | null
  /** A sent import still followed through its states. */
  following: boolean
  createdAt: string
  updatedAt: string
}

const iso = (millis: number) => new Date(millis).toISOString()

export function itemView(item: OutboxItem, progress: UploadProgressView | null): OutboxItemView {
  return {
    id: item.id,
    connectionId: item.connectionId,
    vaultId: item.vaultId,
    operation: item.operation,
    state: item.state,
    summary: summarize(item),
    record: { kind: item.recordKind, id: item.recordId, createdBy: item.recordItem },
    payload: item.payload,
    file: item.attachment ? { name: item.attachment.name, size: item.attachment.size } : null,
    progress: item.state === 'sending' ? progress : null,
    attempts: item.attempts,
    nextAttemptAt: item.state === 'queued' && item.attempts > 0 ? iso(item.nextAttemptAt) : null,
    lastError: item.lastError,
    inDoubt: item.inDoubt,
    theirs: item.theirs,
    serverId: item.serverId,
    result: item.result,
    following: item.following,
    createdAt: iso(item.createdAt),
    updatedAt: iso(item.updatedAt),
  }
}

function recordName(item: OutboxItem, noun: string): string {
  if (item.recordId !== null) return `${noun} ${item.recordId}`
  return item.recordItem !== null && item.recordItem !== item.id
    ? `the ${noun} of item ${item.recordItem}`
    : `a new ${noun}`
}

function refName(ref: unknown, noun: string): string {
  if (!isObject(ref)) return noun
  return typeof ref.id === 'number'
    ? `${noun} ${ref.id}`
    : `the ${noun} of item ${String(ref.item)}`
}

function summarize(item: OutboxItem): string {
  const payload = item.payload
  const file = item.attachment?.name ?? 'a file'
  switch (item.operation) {
    case 'file.attach': {
      const target = isObject(payload.target) ? payload.target : {}
      return `Attach ${file} to ${refName(target.ref, String(target.kind ?? 'record').replace('_', ' '))}`
    }
    case 'slurp.create':
      return `Import ${file} into project ${String(payload.project)}`
    case 'eln.create':
      return `Create the ELN entry "${String(payload.title)}"`
    case 'eln.update':
      return `Edit ${recordName(item, 'ELN entry')}`
    case 'eln.append':
      return `Append to ${recordName(item, 'ELN entry')}`
    case 'eln.status':
      return `${String(payload.status_action).replace(/^./, (c) => c.toUpperCase())} ${recordName(item, 'ELN entry')}`
    case 'readout.update':
      return `Correct ${recordName(item, 'readout row')}`
    case 'molecule.update':
      return `Update ${recordName(item, 'molecule')}`
    case 'batch.update':
      return `Update ${recordName(item, 'batch')}`
    case 'collection.create':
      return `Create the collection "${String(payload.name)}"`
    case 'collection.add':
      return `Add molecules to ${recordName(item, 'collection')}`
    case 'plate.create':
      return `Create the plate "${String(payload.name)}"`
    case 'plate.update':
      return `Update ${recordName(item, 'plate')}`
    case 'sample.create':
      return `Create a sample of batch ${String(payload.batch_id)}`
    case 'sample.update':
      return `Update ${recordName(item, 'inventory sample')}`
  }
}
