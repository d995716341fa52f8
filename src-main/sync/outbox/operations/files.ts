import { isObject, toId, toNumber, type JsonObject } from '../../../../src-common/values.ts'
import type { VaultClient } from '../../../api/index.ts'
import type { Operation, SendContext } from './operation.ts'
import { queuedFile, uploadOptions } from './queued-file.ts'
import type { FileTarget } from '../../../../src-common/outbox/attach-targets.ts'
import {
  fileAttachment,
  type FileAttachmentPayload,
} from '../../../../src-common/outbox/payloads/files.ts'
import { offlineRefs, serverIdOf } from '../../../../src-common/outbox/record-ref.ts'
import { uploadLane } from '../lanes.ts'
import type { OutboxItem } from '../outbox-item.ts'
import { accountFor, snapshotIds, snapshotTime } from './new-records.ts'

/**
 * Kinds whose records this server was seen not to list their files on (the spec shows molecule
 * `source_files`; servers may not send it): no snapshot is read for them again in this process.
 */
const unlisted = new WeakMap<VaultClient, Set<FileTarget>>()

/**
 * A record's files as read for snapshots. A queue of uploads to one record reads it once, not
 * before each: a listing a few seconds old serves the uploads of other names (those of its own
 * name go one at a time, and each reads it again). What an upload sent since the listing was read
 * accounts for is known (`claimedByOthers`), so an older listing tells no less.
 */
interface Listing {
  /** When it was read (before the request: anything recorded since may be missing from it). */
  at: number
  files: JsonObject[]
  /** Names of the uploads whose snapshots it gave. */
  used: Set<string>
}
const listings = new WeakMap<VaultClient, Map<string, Listing>>()
const listingReuseMs = 5_000

/** What an upload's snapshot keeps: the files of its name before its first attempt. */
interface FileSnapshot {
  /** Null where the server does not list the target's files. */
  ids: number[] | null
  /** When the listing was read (absent in snapshots taken before it was kept). */
  at?: number
}

/** The files a target lists (`source_files`), or null when the server does not list them. */
async function listedFiles(
  context: SendContext,
  kind: FileTarget,
  id: number,
): Promise<JsonObject[] | null> {
  if (unlisted.get(context.client)?.has(kind)) return null
  let record: JsonObject
  switch (kind) {
    case 'molecule':
      record = await context.client.molecules.get(
        context.vaultId,
        id,
        { no_structures: true, only_batch_ids: true },
        context.options,
      )
      break
    case 'run':
      record = await context.client.runs.get(context.vaultId, id, context.options)
      break
    case 'protocol':
      record = await context.client.protocols.get(
        context.vaultId,
        id,
        { no_runs: true },
        context.options,
      )
      break
    case 'eln_entry':
      return null
  }
  const files = record.source_files
  if (!Array.isArray(files)) {
    const kinds = unlisted.get(context.client) ?? new Set()
    unlisted.set(context.client, kinds.add(kind))
    return null
  }
  return files.filter(isObject)
}

/** The listing a snapshot of an upload named `name` may use: a recent one, or a new one. */
async function listingFor(
  context: SendContext,
  kind: FileTarget,
  id: number,
  name: string,
): Promise<Listing | null> {
  let byRecord = listings.get(context.client)
  if (!byRecord) listings.set(context.client, (byRecord = new Map()))
  const key = `${context.vaultId}/${kind}/${id}`
  const now = context.now()
  let listing = byRecord.get(key)
  if (!listing || listing.used.has(name) || now < listing.at || now - listing.at > listingReuseMs) {
    const files = await listedFiles(context, kind, id)
    if (files === null) return null
    for (const [other, old] of byRecord) {
      if (now - old.at > listingReuseMs) byRecord.delete(other)
    }
    listing = { at: now, files, used: new Set() }
    byRecord.set(key, listing)
  }
  listing.used.add(name)
  return listing
}

function sameNamed(files: readonly JsonObject[], name: string): number[] {
  return files.flatMap((file) => {
    const id = toId(file.id)
    return id !== null && file.name === name ? [id] : []
  })
}

/**
 * Whether a listed file may be the upload of a file of this name and size: the name is the same,
 * and so is the size where the listing gives one. (The spec's listing, `source_files[{id,name}]`,
 * gives no size and no content hash.)
 */
function mayBe(file: JsonObject, attachment: { name: string; size: number }): boolean {
  if (file.name !== attachment.name) return false
  const size = toNumber(file.size)
  return size === null || size === attachment.size
}

/** The listed files that may be this item's upload and were not there before it, by age. */
function freshFor(
  files: readonly JsonObject[],
  item: Pick<OutboxItem, 'attachment' | 'snapshot'>,
): { id: number; size: number | null }[] | null {
  const before = snapshotIds(item)
  if (before === null || !item.attachment) return null
  const attachment = item.attachment
  return files
    .flatMap((file) => {
      const id = toId(file.id)
      return id !== null && !before.includes(id) && mayBe(file, attachment)
        ? [{ id, size: toNumber(file.size) }]
        : []
    })
    .sort((a, b) => a.id - b.id)
}

/**
 * A file attached to a molecule, run, protocol or ELN entry, streamed from the copy made when it
 * was queued. Where the target lists its files, the files of the same name are noted before the
 * first attempt, so that one more afterwards may be the one sent; elsewhere an attempt in doubt is
 * uncertain. One file never accounts for two uploads: uploads of one name to one record go one at
 * a time (their lane), a file another item accounts for is not this one's, and where more uploads
 * in doubt could be a file than there are such files, which arrived cannot be told (uncertain).
 */
export const fileAttach: Operation<FileAttachmentPayload> = {
  name: 'file.attach',
  schema: fileAttachment,
  refs: (payload) => offlineRefs(payload.target.ref),
  lane: (payload, attachmentName, ref) =>
    uploadLane(payload.target.kind, ref(payload.target.ref), attachmentName ?? ''),
  overlay: (payload, name) => ({
    create: {
      name,
      resource_class: payload.target.kind,
      resource_id: serverIdOf(payload.target.ref),
    },
  }),
  async snapshot(context, payload): Promise<FileSnapshot> {
    const { kind, ref } = payload.target
    const name = queuedFile(context).name
    const listing = await listingFor(context, kind, context.resolve(ref), name)
    return listing ? { ids: sameNamed(listing.files, name), at: listing.at } : { ids: null }
  },
  async send(context, payload) {
    const attachment = queuedFile(context)
    const resourceId = context.resolve(payload.target.ref)
    const answer = await context.client.files.attach(
      context.vaultId,
      {
        file: attachment.path,
        filename: attachment.name,
        resource_class: payload.target.kind,
        resource_id: resourceId,
      },
      uploadOptions(context, attachment.size),
    )
    return {
      serverId: answer.id,
      record: {
        id: answer.id,
        name: answer.name ?? attachment.name,
        resource_class: payload.target.kind,
        resource_id: resourceId,
        size: attachment.size,
      },
    }
  },
  async reconcile(context, payload) {
    const item = context.item
    if (item.snapshot === null) return { outcome: 'absent' }
    const { kind, ref } = payload.target
    const unlistable = {
      outcome: 'unknown' as const,
      reason: `the server does not list the files of a ${kind.replace('_', ' ')}, so whether the upload arrived cannot be told`,
    }
    if (snapshotIds(item) === null) return unlistable
    const resourceId = context.resolve(ref)
    const files = await listedFiles(context, kind, resourceId)
    if (files === null) return unlistable
    const attachment = queuedFile(context)
    // Claims recorded since the listing was read count (it may be older than the snapshot).
    const since = (item.snapshot.value as FileSnapshot).at ?? snapshotTime(item)
    const accounting = accountFor(context, freshFor(files, item) ?? [], since, (other, file) => {
      const before = snapshotIds(other)
      return (
        (before === null || !before.includes(file.id)) &&
        (file.size === null || file.size === other.attachment?.size)
      )
    })
    const where = `this ${kind.replace('_', ' ')}`
    switch (accounting.kind) {
      case 'none':
        return { outcome: 'absent' }
      case 'found':
        return {
          outcome: 'arrived',
          exclusive: { since },
          sent: {
            serverId: accounting.found.id,
            record: {
              id: accounting.found.id,
              name: attachment.name,
              resource_class: kind,
              resource_id: resourceId,
              size: attachment.size,
            },
          },
        }
      case 'several':
        return {
          outcome: 'unknown',
          reason: `${accounting.open.length} files named ${attachment.name} appeared on ${where} since`,
        }
      case 'contested':
        return {
          outcome: 'unknown',
          reason: `${accounting.items} uploads of ${attachment.name} to ${where} were in doubt and ${accounting.open.length} ${accounting.open.length === 1 ? 'file' : 'files'} of that name arrived, so which of them did cannot be told`,
        }
    }
  },
}
