import { z } from 'zod'
import type { OutboxChange } from '../../shared/events.ts'
import type { OutboxItemView } from '../../../src-common/outbox/item-view.ts'
import { recordRef } from '../../../src-common/outbox/payloads/common.ts'
import { outboxStates } from '../../../src-common/outbox/states.ts'
import type { PendingRecord } from '../../sync/outbox/pending-records.ts'
import { queueRequest } from '../../sync/outbox/queue-request.ts'
import type { OutboxChannel } from './channels.ts'
import { maxChunkBytes, maxStagedBytes, type StagedFileView } from '../../services/outbox-desk.ts'

const itemId = z.int().positive()
const connectionId = z.string().min(1)
const vaultId = z.int().positive()
/** A cached record kind, such as readout_rows or eln_entries. */
const kind = z.string().min(1).max(60)
const stagedId = z.uuid()

export const outboxSchemas = {
  /** Items, oldest first; by default those not yet sent nor discarded. */
  'outbox.list': z
    .object({
      connectionId: connectionId.optional(),
      states: z.array(z.enum(outboxStates)).optional(),
      limit: z.int().min(1).max(10_000).optional(),
    })
    .strict(),
  'outbox.counts': z.object({}).strict(),
  /**
   * Queues a change (see `queueRequest`): a file by its local path (in Electron,
   * `window.vaultDesk.pathForFile(file)`) for a molecule, run, protocol, ELN entry or readout row
   * (its run), an import, ELN entries (create, edit, append, status actions), corrections.
   */
  'outbox.queue': queueRequest,
  /** Sends again now: a refused item after a fix, one waiting out its backoff, or by choice. */
  'outbox.retry': z.object({ id: itemId }).strict(),
  /** Discards an item and the items that depend on it. */
  'outbox.discard': z.object({ id: itemId }).strict(),
  /** Replaces an unsent item's payload (same record); it is queued again. */
  'outbox.edit': z.object({ id: itemId, payload: z.unknown() }).strict(),
  'outbox.resolveConflict': z.object({ id: itemId, choice: z.enum(['mine', 'theirs']) }).strict(),
  /** An uncertain item: send it again, or mark it done (with the server id, when the person knows it). */
  'outbox.resolveUncertain': z
    .object({ id: itemId, choice: z.enum(['resend', 'done']), serverId: itemId.optional() })
    .strict(),
  /** One record's pending changes merged over its cached copy, or null. */
  'outbox.pending': z.object({ connectionId, vaultId, kind, ref: recordRef }).strict(),
  /** Every record of a kind with pending changes (those created offline included). */
  'outbox.pendingList': z.object({ connectionId, vaultId, kind }).strict(),
  /** Sent and discarded items, newest first (the Outbox view's "recently sent"). */
  'outbox.history': z
    .object({ connectionId: connectionId.optional(), limit: z.int().min(1).max(500).optional() })
    .strict(),
  /**
   * Where the host gives no local path for a file (`pathForFile` is null: the browser harness, a
   * file pasted in Electron), the window hands the file over as bytes: `stageFile` announces it,
   * `stageChunk` sends it in order (base64, at most 1 MiB a chunk), and `queueStaged` queues a
   * request naming each file as `staged:<stagedId>`.
   */
  'outbox.stageFile': z
    .object({
      name: z.string().min(1).max(255),
      size: z.int().min(0).max(maxStagedBytes),
    })
    .strict(),
  'outbox.stageChunk': z
    .object({
      stagedId,
      offset: z.int().min(0),
      data: z.string().max(Math.ceil(maxChunkBytes / 3) * 4),
    })
    .strict(),
  /** Drops a staged file that will not be queued. */
  'outbox.unstageFile': z.object({ stagedId }).strict(),
  /** `outbox.queue` with staged files (`staged:<stagedId>`) in place of local paths. */
  'outbox.queueStaged': z.object({ request: queueRequest }).strict(),
} satisfies Record<OutboxChannel, z.ZodType>

export interface OutboxResults {
  'outbox.list': OutboxItemView[]
  'outbox.counts': OutboxChange['counts']
  'outbox.queue': OutboxItemView[]
  'outbox.retry': OutboxItemView
  'outbox.discard': { discarded: number[] }
  'outbox.edit': OutboxItemView
  'outbox.resolveConflict': OutboxItemView
  'outbox.resolveUncertain': OutboxItemView
  'outbox.pending': PendingRecord | null
  'outbox.pendingList': PendingRecord[]
  'outbox.history': OutboxItemView[]
  'outbox.stageFile': StagedFileView
  'outbox.stageChunk': StagedFileView
  'outbox.unstageFile': { discarded: boolean }
  'outbox.queueStaged': OutboxItemView[]
}

export type { OutboxItemView, PendingRecord, StagedFileView }
