import { isObject, toId, type JsonObject } from '../../../store/record-values.ts'
import type { VaultClient } from '../../../api/index.ts'
import type { Operation, SendContext } from './operation.ts'
import { queuedFile, uploadOptions } from './queued-file.ts'
import {
  fileAttachment,
  type FileAttachmentPayload,
  type FileTargetKind,
} from '../payloads/files.ts'
import { idOf, offlineRefs } from '../payloads/common.ts'

/**
 * Kinds whose records this server was seen not to list their files on (the spec shows molecule
 * `source_files`; servers may not send it): no snapshot is read for them again in this process.
 */
const unlisted = new WeakMap<VaultClient, Set<FileTargetKind>>()

/** The files a target lists (`source_files`), or null when the server does not list them. */
async function listedFiles(
  context: SendContext,
  kind: FileTargetKind,
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

function sameNamed(files: readonly JsonObject[], name: string): number[] {
  return files.flatMap((file) => {
    const id = toId(file.id)
    return id !== null && file.name === name ? [id] : []
  })
}

/**
 * A file attached to a molecule, run, protocol or ELN entry, streamed from the copy made when it
 * was queued. Where the target lists its files, the files of the same name are noted before the
 * first attempt, so that one more afterwards is the one sent; elsewhere an attempt in doubt is
 * uncertain.
 */
export const fileAttach: Operation<FileAttachmentPayload> = {
  name: 'file.attach',
  schema: fileAttachment,
  attachment: 'file',
  record: () => ({ kind: 'files', creates: true }),
  refs: (payload) => offlineRefs(payload.target.ref),
  overlay: (payload, name) => ({
    create: {
      name,
      resource_class: payload.target.kind,
      resource_id: idOf(payload.target.ref),
    },
  }),
  async snapshot(context, payload) {
    const { kind, ref } = payload.target
    const files = await listedFiles(context, kind, context.resolve(ref))
    return { ids: files ? sameNamed(files, queuedFile(context).name) : null }
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
    const snapshot = context.item.snapshot
    if (snapshot === null) return { outcome: 'absent' }
    const before = (snapshot.value as { ids: number[] | null } | null)?.ids ?? null
    const { kind, ref } = payload.target
    const unlistable = {
      outcome: 'unknown' as const,
      reason: `the server does not list the files of a ${kind.replace('_', ' ')}, so whether the upload arrived cannot be told`,
    }
    if (before === null) return unlistable
    const resourceId = context.resolve(ref)
    const files = await listedFiles(context, kind, resourceId)
    if (files === null) return unlistable
    const name = queuedFile(context).name
    const fresh = sameNamed(files, name).filter((id) => !before.includes(id))
    if (fresh.length === 0) return { outcome: 'absent' }
    if (fresh.length > 1) {
      return { outcome: 'unknown', reason: `${fresh.length} files named ${name} appeared since` }
    }
    return {
      outcome: 'arrived',
      sent: {
        serverId: fresh[0]!,
        record: { id: fresh[0]!, name, resource_class: kind, resource_id: resourceId },
      },
    }
  },
}
