import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { OutboxChannel } from './channels.ts'

export function outboxHandlers(services: Services): DomainHandlers<OutboxChannel> {
  const outbox = services.outbox
  return {
    'outbox.list': (filter) => outbox.list(filter),
    'outbox.counts': () => outbox.counts(),
    'outbox.queue': (request) => outbox.queue(request),
    'outbox.retry': ({ id }) => outbox.retry(id),
    'outbox.discard': ({ id }) => outbox.discard(id),
    'outbox.edit': ({ id, payload }) => outbox.edit(id, payload),
    'outbox.resolveConflict': ({ id, choice }) => outbox.resolveConflict(id, choice),
    'outbox.resolveUncertain': ({ id, choice, serverId }) =>
      outbox.resolveUncertain(id, choice, serverId),
    'outbox.pending': ({ connectionId, vaultId, kind, ref }) =>
      outbox.pendingFor(connectionId, vaultId, kind, ref),
    'outbox.pendingList': ({ connectionId, vaultId, kind }) =>
      outbox.pendingList(connectionId, vaultId, kind),
    'outbox.history': (filter) => services.outboxDesk.history(filter),
    'outbox.stageFile': ({ name, size }) => services.outboxDesk.stage(name, size),
    'outbox.stageChunk': ({ stagedId, offset, data }) =>
      services.outboxDesk.chunk(stagedId, offset, data),
    'outbox.unstageFile': ({ stagedId }) => services.outboxDesk.unstage(stagedId),
    'outbox.queueStaged': ({ request }) => services.outboxDesk.queueStaged(request),
  }
}
