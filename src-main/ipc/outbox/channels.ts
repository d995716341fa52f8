export const outboxChannels = [
  'outbox.list',
  'outbox.counts',
  'outbox.queue',
  'outbox.retry',
  'outbox.discard',
  'outbox.edit',
  'outbox.resolveConflict',
  'outbox.resolveUncertain',
  'outbox.pending',
  'outbox.pendingList',
  'outbox.history',
  'outbox.stageFile',
  'outbox.stageChunk',
  'outbox.unstageFile',
  'outbox.queueStaged',
] as const
export type OutboxChannel = (typeof outboxChannels)[number]
