/**
 * The Outbox view's reading of items: groups, what each item changes (and where that record's
 * page is), which items go with it when it is discarded, and when it is tried next.
 */
import type { OutboxItemView } from '../../../../src-main/ipc/contract.ts'
import type { OutboxState } from '../../../../src-main/sync/outbox/outbox-item.ts'
import { relativeTime } from '../format/relative-time.ts'
import { browseKind, recordHref, type BrowseKind } from '../records/browse-kinds.ts'
import { idOf, isRecord } from '../records/record-values.ts'

export type { OutboxItemView }

export type ItemGroupId = 'attention' | 'waiting' | 'recent'

export interface ItemGroup {
  id: ItemGroupId
  title: string
  detail: string
  items: OutboxItemView[]
}

export const stateLabels: Record<OutboxState, string> = {
  queued: 'Queued',
  sending: 'Sending',
  sent: 'Sent',
  needs_attention: 'Needs attention',
  conflict: 'Conflict',
  uncertain: 'Uncertain',
  cancelled: 'Discarded',
}

const attentionOrder: readonly OutboxState[] = ['needs_attention', 'conflict', 'uncertain']

/**
 * What waits for the person first (refused, in conflict, uncertain), then what waits for the
 * network (sending first), then what was sent recently. Empty groups are left out.
 */
export function groupItems(
  items: readonly OutboxItemView[],
  recent: readonly OutboxItemView[],
): ItemGroup[] {
  const attention = items
    .filter((item) => attentionOrder.includes(item.state))
    .sort(
      (a, b) => attentionOrder.indexOf(a.state) - attentionOrder.indexOf(b.state) || a.id - b.id,
    )
  const waiting = items
    .filter((item) => item.state === 'queued' || item.state === 'sending')
    .sort((a, b) => Number(b.state === 'sending') - Number(a.state === 'sending') || a.id - b.id)
  const groups: ItemGroup[] = [
    {
      id: 'attention',
      title: 'Needs you',
      detail: 'The vault refused these, or cannot tell whether they arrived. Nothing is lost.',
      items: attention,
    },
    {
      id: 'waiting',
      title: 'Waiting to be sent',
      detail: 'Safe on this computer; they go out, in order, as soon as the vault answers.',
      items: waiting,
    },
    {
      id: 'recent',
      title: 'Recently sent',
      detail: 'What the vault has accepted (and what you discarded) lately.',
      items: [...recent],
    },
  ]
  return groups.filter((group) => group.items.length > 0)
}

/** Operation names as a person reads them. */
export const operationLabels: Record<OutboxItemView['operation'], string> = {
  'file.attach': 'File upload',
  'slurp.create': 'Data import',
  'eln.create': 'New notebook entry',
  'eln.update': 'Notebook edit',
  'eln.append': 'Notebook addition',
  'eln.status': 'Notebook status change',
  'readout.update': 'Readout correction',
  'molecule.update': 'Molecule update',
  'batch.update': 'Batch update',
  'collection.create': 'New collection',
  'collection.add': 'Collection update',
  'plate.create': 'New plate',
  'plate.update': 'Plate update',
  'sample.create': 'New sample',
  'sample.update': 'Sample update',
}

export interface ItemTarget {
  /** The record's words: "Molecule 12", "a notebook entry written offline". */
  label: string
  /** Its page, where it has one. */
  href: string | null
}

const attachKinds: Record<string, BrowseKind> = {
  molecule: 'molecules',
  run: 'runs',
  protocol: 'protocols',
  eln_entry: 'eln_entries',
  readout_row: 'readout_rows',
}

const recordKinds: Partial<Record<string, BrowseKind>> = {
  molecules: 'molecules',
  batches: 'batches',
  readout_rows: 'readout_rows',
  plates: 'plates',
  inventory_samples: 'inventory_samples',
  eln_entries: 'eln_entries',
}

/** The address of an entry written offline, until the vault gives it an id. */
export function draftEntryHref(itemId: number): string {
  return `#/entries/new/${itemId}`
}

/** A record named by server id or by the item creating it offline. */
function refTarget(kind: BrowseKind, ref: unknown): ItemTarget {
  const info = browseKind(kind)
  const id = isRecord(ref) ? idOf(ref.id) : null
  if (id !== null) return { label: `${info.singular} ${id}`, href: recordHref(kind, id) }
  const item = isRecord(ref) ? idOf(ref.item) : null
  if (item === null) return { label: info.singular, href: null }
  return {
    label: `${info.singular.toLowerCase()} written offline (item ${item})`.replace(/^./, (c) =>
      c.toUpperCase(),
    ),
    href: kind === 'eln_entries' ? draftEntryHref(item) : null,
  }
}

/** The record an item changes or creates, and its page. */
export function targetOf(item: OutboxItemView): ItemTarget {
  const payload = item.payload
  if (item.operation === 'file.attach' && isRecord(payload.target)) {
    const kind = attachKinds[String(payload.target.kind)]
    if (kind) return refTarget(kind, payload.target.ref)
  }
  if (item.operation === 'slurp.create') {
    const project = payload.project
    return { label: `Project ${typeof project === 'string' ? project : `#${project}`}`, href: null }
  }
  const kind = recordKinds[item.record.kind]
  if (!kind) return { label: item.summary, href: null }
  if (item.record.id !== null) return refTarget(kind, { id: item.record.id })
  if (item.record.createdBy !== null) return refTarget(kind, { item: item.record.createdBy })
  return { label: browseKind(kind).singular, href: null }
}

/** Whether `value` names item `id` anywhere (`{item: id}`), as payloads of dependants do. */
function names(value: unknown, id: number): boolean {
  if (Array.isArray(value)) return value.some((part) => names(part, id))
  if (!isRecord(value)) return false
  if (Object.keys(value).length === 1 && idOf(value.item) === id) return true
  return Object.values(value).some((part) => names(part, id))
}

/**
 * The items that go with `item` when it is discarded: those that change the record it creates
 * or name it (an upload for an entry written offline, the append that shows that upload), and
 * theirs in turn.
 */
export function dependentsOf(
  item: OutboxItemView,
  items: readonly OutboxItemView[],
): OutboxItemView[] {
  const found = new Map<number, OutboxItemView>()
  const queue = [item.id]
  while (queue.length > 0) {
    const id = queue.shift()!
    for (const other of items) {
      if (other.id === item.id || found.has(other.id)) continue
      const creates = other.record.createdBy === id && other.id !== id
      if (creates || names(other.payload, id)) {
        found.set(other.id, other)
        queue.push(other.id)
      }
    }
  }
  return [...found.values()].sort((a, b) => a.id - b.id)
}

/** "Next try in 2 minutes", for a queued item waiting out a failure; null otherwise. */
export function nextAttemptText(item: OutboxItemView, now: Date): string | null {
  if (item.state !== 'queued' || item.nextAttemptAt === null) return null
  const due = new Date(item.nextAttemptAt)
  if (Number.isNaN(due.getTime())) return null
  const wait = due.getTime() - now.getTime()
  if (wait <= 1000) return 'Trying again now'
  if (wait < 60_000) return `Next try in ${Math.ceil(wait / 1000)} s`
  if (wait < 3_600_000) return `Next try in ${Math.round(wait / 60_000)} min`
  return `Next try ${due.toLocaleString()}`
}

/** "Sent 5 minutes ago" and the like, for the history. */
export function settledText(item: OutboxItemView, now: Date): string {
  const when = relativeTime(new Date(item.updatedAt), now)
  return item.state === 'cancelled' ? `Discarded ${when}` : `Sent ${when}`
}

/** Attempts, in words ("1 attempt"); nothing before the first. */
export function attemptsText(item: OutboxItemView): string | null {
  if (item.attempts === 0) return null
  return `${item.attempts} ${item.attempts === 1 ? 'attempt' : 'attempts'}`
}
