import { ApiError, type ElnBodyItem, type ElnEntry } from '../../../api/index.ts'
import { isObject, toId, type JsonObject } from '../../../../src-common/values.ts'
import { newRecordOf, type IdsSnapshot } from './new-records.ts'
import type { ChangeCheck, Operation, SendContext, Sent } from './operation.ts'
import { sameValue } from './same-values.ts'
import {
  entryAppend,
  entryEdit,
  newEntry,
  statusChange,
  statusMoves,
  type ElnEntryAppend,
  type ElnEntryEdit,
  type ElnStatusChange,
  type NewElnEntry,
} from '../../../../src-common/outbox/payloads/eln-entries.ts'
import { offlineRefs } from '../../../../src-common/outbox/record-ref.ts'
import { likenessLane } from '../lanes.ts'

const administratorsOnly =
  'only vault administrators can list ELN entries, so whether it arrived cannot be told'

/**
 * Every entry of the vault, or null when the token may not list them (the entries query is for
 * vault administrators; the service answers 401 to others).
 */
async function listEntries(context: SendContext, body: object = {}): Promise<ElnEntry[] | null> {
  try {
    return await context.client.elnEntries.query(context.vaultId, body, context.options)
  } catch (error) {
    const refused =
      error instanceof ApiError &&
      (error.kind === 'forbidden' || error.kind === 'authentication') &&
      !context.client.needsNewToken
    if (refused) return null
    throw error
  }
}

const sentEntry = (entry: ElnEntry, id: number): Sent => ({
  serverId: id,
  record: entry,
  modifiedAt: entry.modified_at ?? null,
})

/**
 * An entry written offline. Only administrators can list entries; for them the entries of the
 * same title are noted before the first attempt, so that one more afterwards is the one sent.
 * For anyone else an attempt in doubt is uncertain.
 */
export const elnCreate: Operation<NewElnEntry> = {
  name: 'eln.create',
  schema: newEntry,
  refs: () => [],
  lane: (payload) => likenessLane('eln_entry', payload.title),
  overlay: (payload) => ({
    create: {
      name: payload.title,
      status: 'open',
      project:
        typeof payload.project === 'number' ? { id: payload.project } : { name: payload.project },
      eln_fields: payload.eln_fields ?? {},
    },
  }),
  async snapshot(context, payload): Promise<IdsSnapshot> {
    const entries = await listEntries(context)
    return { ids: entries ? titled(entries, payload.title).map((entry) => entry.id) : null }
  },
  async send(context, payload) {
    const entry = await context.client.elnEntries.create(context.vaultId, payload, context.options)
    return {
      serverId: entry.id,
      // The answer is a summary: what was sent completes the record until the next pull.
      record: {
        ...entry,
        project:
          typeof payload.project === 'number' ? { id: payload.project } : { name: payload.project },
        eln_fields: payload.eln_fields ?? {},
      },
    }
  },
  reconcile: (context, payload) =>
    newRecordOf(
      context,
      async () => titled((await listEntries(context)) ?? [], payload.title),
      administratorsOnly,
    ),
}

function titled(entries: readonly ElnEntry[], title: string): ElnEntry[] {
  return entries.filter((entry) => sameValue(title.trim(), entry.name?.trim()))
}

/**
 * A changed title or fields, checked before every send against whoever changed the entry since
 * the person saw it. Entry summaries carry no modified_at and only administrators may query
 * entries, so the check has two ways:
 * - anyone who may edit it: the entry as the server has it now, from a PUT that supplies no
 *   attribute (only supplied attributes change, so it changes nothing; the answer is the entry),
 *   compared member by member with what the person saw when queueing (the base values). A
 *   member that holds neither what the person saw nor what the edit sets is a conflict;
 * - administrators, when that cannot tell (an answer without the members): the entries query
 *   by modified_after, when a modified_at is known.
 * Setting the same title and fields again changes nothing, so a doubt is simply resent (after
 * the same check).
 */
export const elnUpdate: Operation<ElnEntryEdit> = {
  name: 'eln.update',
  schema: entryEdit,
  refs: (payload) => offlineRefs(payload.entry),
  overlay: (payload) => ({
    set: {
      ...(payload.title !== undefined ? { name: payload.title } : {}),
      ...(payload.eln_fields !== undefined ? { eln_fields: payload.eln_fields } : {}),
    },
  }),
  baseValues(payload, seen) {
    const values: JsonObject = {}
    if (payload.title !== undefined && typeof seen.name === 'string') values.name = seen.name
    if (payload.eln_fields !== undefined && isObject(seen.eln_fields)) {
      values.eln_fields = seen.eln_fields
    }
    return Object.keys(values).length > 0 ? values : null
  },
  async changedSince(context, payload, base): Promise<ChangeCheck> {
    if (base.values !== null) {
      const id = context.resolve(payload.entry)
      const now = await context.client.elnEntries.update(context.vaultId, id, {}, context.options)
      const compared = changedMembers(payload, base.values, now)
      if (compared.changed !== 'unknown') return compared
    }
    if (base.modifiedAt !== null) return changedByQuery(context, payload, base.modifiedAt)
    return { changed: 'unknown' }
  },
  async send(context, payload) {
    const id = context.resolve(payload.entry)
    const { entry: _entry, ...body } = payload
    return sentEntry(
      await context.client.elnEntries.update(context.vaultId, id, body, context.options),
      id,
    )
  },
  reconcile: async () => ({ outcome: 'absent' }),
}

/** The administrators' way: the entry among those the query finds modified after `base`. */
async function changedByQuery(
  context: SendContext,
  payload: ElnEntryEdit,
  base: string,
): Promise<ChangeCheck> {
  const after = new Date(Date.parse(base) + 1000)
  if (Number.isNaN(after.getTime())) return { changed: 'unknown' }
  const changed = await listEntries(context, { modified_after: after })
  if (changed === null) return { changed: 'unknown' }
  const id = context.resolve(payload.entry)
  const theirs = changed.find((entry) => entry.id === id)
  return theirs ? { changed: true, theirs } : { changed: false }
}

/**
 * Whether someone else changed a member the edit sets: the server holds neither what the person
 * saw (`base`) nor what the edit sets. Fields are compared one by one, those the edit sets (the
 * service changes only the fields supplied). An answer without a member cannot tell of it.
 */
function changedMembers(payload: ElnEntryEdit, base: JsonObject, theirs: ElnEntry): ChangeCheck {
  const record = theirs as JsonObject
  let compared = 0
  let changed = false
  const compare = (seen: unknown, now: unknown, mine: unknown) => {
    compared++
    if (!sameJson(now, seen) && !sameJson(now, mine)) changed = true
  }
  if (payload.title !== undefined && 'name' in base && typeof record.name === 'string') {
    compare(base.name, record.name, payload.title)
  }
  if (
    payload.eln_fields !== undefined &&
    isObject(base.eln_fields) &&
    isObject(record.eln_fields)
  ) {
    const seen = base.eln_fields
    const now = record.eln_fields
    for (const [field, mine] of Object.entries(payload.eln_fields)) {
      compare(seen[field], now[field], mine)
    }
  }
  if (compared === 0) return { changed: 'unknown' }
  return changed ? { changed: true, theirs: record } : { changed: false }
}

/** Equal as JSON, members in any order; an absent member equals an absent one. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((value, index) => sameJson(value, b[index]))
  }
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)])
    return [...keys].every((key) => sameJson(a[key], b[key]))
  }
  return false
}

/**
 * Text, links and files appended to an entry's body. An append repeated would append twice, and
 * the API cannot show an entry's body, so an attempt in doubt is uncertain.
 */
export const elnAppend: Operation<ElnEntryAppend> = {
  name: 'eln.append',
  schema: entryAppend,
  refs: (payload) =>
    offlineRefs(
      payload.entry,
      ...payload.body.flatMap((block) => (block.type === 'file' ? [block.file] : [])),
    ),
  overlay: (payload) => ({ append: { body: payload.body } }),
  async send(context, payload) {
    const id = context.resolve(payload.entry)
    const body: ElnBodyItem[] = payload.body.map((block) =>
      block.type === 'file' ? { type: 'file', file: context.resolve(block.file) } : block,
    )
    return sentEntry(
      await context.client.elnEntries.appendToBody(context.vaultId, id, body, context.options),
      id,
    )
  },
  reconcile: async () => ({
    outcome: 'unknown',
    reason: 'the API cannot show an entry body, so whether the append arrived cannot be told',
  }),
}

/**
 * A status action (vault administrators). An attempt in doubt is settled by the entry's status
 * in the administrators' entries query: the resulting status means it arrived, the starting one
 * that it did not.
 */
export const elnStatus: Operation<ElnStatusChange> = {
  name: 'eln.status',
  schema: statusChange,
  refs: (payload) => offlineRefs(payload.entry),
  overlay: (payload) => ({ set: { status: statusMoves[payload.status_action].to } }),
  async send(context, payload) {
    const id = context.resolve(payload.entry)
    const { entry: _entry, ...action } = payload
    const entry = await context.client.elnEntries.changeStatus(
      context.vaultId,
      id,
      action as Parameters<typeof context.client.elnEntries.changeStatus>[2],
      context.options,
    )
    return sentEntry(entry, id)
  },
  async reconcile(context, payload) {
    const id = context.resolve(payload.entry)
    const entries = await listEntries(context)
    const entry = entries?.find((candidate) => toId(candidate.id) === id)
    const move = statusMoves[payload.status_action]
    if (entry?.status === move.to) return { outcome: 'arrived', sent: sentEntry(entry, id) }
    if (entry?.status === move.from) return { outcome: 'absent' }
    return {
      outcome: 'unknown',
      reason: entry
        ? `the entry is ${entry.status ?? 'of unknown status'}, neither ${move.from} nor ${move.to}`
        : administratorsOnly,
    }
  },
}
