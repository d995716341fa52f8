import type { OutboxItemView } from '../bridge.ts'

let nextId = 1

/** An item as `outbox.list` answers it, with what a test sets. */
export function itemView(overrides: Partial<OutboxItemView> = {}): OutboxItemView {
  const id = overrides.id ?? nextId++
  return {
    id,
    connectionId: 'c1',
    vaultId: 1,
    operation: 'readout.update',
    state: 'queued',
    summary: `Item ${id}`,
    record: { kind: 'readout_rows', id: 44, createdBy: null },
    payload: {},
    file: null,
    progress: null,
    attempts: 0,
    nextAttemptAt: null,
    lastError: null,
    inDoubt: false,
    theirs: null,
    serverId: null,
    result: null,
    following: false,
    createdAt: '2026-07-24T10:00:00.000Z',
    updatedAt: '2026-07-24T10:00:00.000Z',
    ...overrides,
  }
}
