import type { OutboxItemView, UploadProgressView } from '../../../src-common/outbox/item-view.ts'
import { summaryOf } from '../../../src-common/outbox/operations.ts'
import type { OutboxItem } from './outbox-item.ts'

const iso = (millis: number) => new Date(millis).toISOString()

export function itemView(item: OutboxItem, progress: UploadProgressView | null): OutboxItemView {
  return {
    id: item.id,
    connectionId: item.connectionId,
    vaultId: item.vaultId,
    operation: item.operation,
    state: item.state,
    summary: summaryOf(item, {
      id: item.id,
      recordId: item.recordId,
      recordItem: item.recordItem,
      fileName: item.attachment?.name ?? null,
    }),
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
