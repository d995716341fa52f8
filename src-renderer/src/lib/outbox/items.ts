/**
 * The Outbox view's reading of items: groups, what each item changes (and where that record's
 * page is), which items go with it when it is discarded, and when it is tried next.
 */
import { attachTargetKinds, isAttachTarget } from '../../../../src-common/outbox/attach-targets.ts'
import type { OutboxItemView } from '../../../../src-common/outbox/item-view.ts'
import { declarationOf } from '../../../../src-common/outbox/operations.ts'
import {
  byUrgency,
  isSettled,
  waitsForPerson,
  type OutboxState,
} from '../../../../src-common/outbox/states.ts'
import { toId, isObject } from '../../../../src-common/values.ts'
import { relativeTime } from '../format/relative-time.ts'
import { browseKind, isBrowseKind, recordHref, type BrowseKind } from '../records/browse-kinds.ts'

export type { OutboxItemView, OutboxState }

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

/**
 * What waits for the person first (refused, in conflict, uncertain), then what waits for the
 * network (sending first), then what was sent recently. Empty groups are left out.
 */
export function groupItems(
  items: readonly OutboxItemView[],
  recent: readonly OutboxItemView[],
): ItemGroup[] {
  const urgent = (a: OutboxItemView, b: OutboxItemView) =>
    byUrgency.indexOf(a.state) - byUrgency.indexOf(b.state) || a.id - b.id
  const attention = items.filter((item) => waitsForPerson(item.state)).sort(urgent)
  const waiting = items
    .filter((item) => !waitsForPerson(item.state) && !isSettled(item.state))
    .sort(urgent)
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

/** An operation as a person reads it ("File upload"). */
export function operationLabel(item: Pick<OutboxItemView, 'operation'>): string {
  return declarationOf(item.operation).label
}

export interface ItemTarget {
  /** The record's words: "Molecule 12", "a notebook entry written offline". */
  label: string
  /** Its page, where it has one. */
  href: string | null
}

/** The address of an entry written offline, until the vault gives it an id. */
export function draftEntryHref(itemId: number): string {
  return `#/entries/new/${itemId}`
}

/** A record named by server id or by the item creating it offline. */
function refTarget(kind: BrowseKind, ref: unknown): ItemTarget {
  const info = browseKind(kind)
  const id = isObject(ref) ? toId(ref.id) : null
  if (id !== null) return { label: `${info.singular} ${id}`, href: recordHref(kind, id) }
  const item = isObject(ref) ? toId(ref.item) : null
  if (item === null) return { label: info.singular, href: null }
  return {
    label: `${info.singular.toLowerCase()} written offline (item ${item})`.replace(/^./, (c) =>
      c.toUpperCase(),
    ),
    href: kind === 'eln_entries' ? draftEntryHref(item) : null,
  }
}

/** The record an upload goes to, as its payload names it. */
function uploadTarget(item: OutboxItemView): ItemTarget | null {
  const target = item.payload.target
  if (!isObject(target)) return null
  return isAttachTarget(target.kind) ? refTarget(attachTargetKinds[target.kind], target.ref) : null
}

/** The record an item changes or creates, and its page. */
export function targetOf(item: OutboxItemView): ItemTarget {
  if (declarationOf(item.operation).attachTarget) {
    return uploadTarget(item) ?? { label: item.summary, href: null }
  }
  if (item.operation === 'slurp.create') {
    const project = item.payload.project
    return { label: `Project ${typeof project === 'string' ? project : `#${project}`}`, href: null }
  }
  const kind = item.record.kind
  if (!isBrowseKind(kind)) return { label: item.summary, href: null }
  if (item.record.id !== null) return refTarget(kind, { id: item.record.id })
  if (item.record.createdBy !== null) return refTarget(kind, { item: item.record.createdBy })
  return { label: browseKind(kind).singular, href: null }
}

/** Whether `value` names item `id` anywhere (`{item: id}`), as payloads of dependants do. */
function names(value: unknown, id: number): boolean {
  if (Array.isArray(value)) return value.some((part) => names(part, id))
  if (!isObject(value)) return false
  if (Object.keys(value).length === 1 && toId(value.item) === id) return true
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
