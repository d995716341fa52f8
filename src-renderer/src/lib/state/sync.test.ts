import { describe, expect, it } from 'vitest'
import type { ConnectionSyncState } from '../bridge.ts'
import { settle } from '../testing/bridge-double.ts'
import { quietBridge } from '../testing/quiet-bridge.ts'
import { SyncActivity } from './sync.svelte.ts'

const idle: ConnectionSyncState = {
  connectionId: 'c1',
  running: false,
  startedAt: null,
  finishedAt: null,
  progress: null,
  lastOutcome: null,
  lastError: null,
  nextSyncAt: null,
}

describe('SyncActivity', () => {
  it('follows a run kind by kind, and starts afresh with the next run', async () => {
    const bridge = quietBridge()
    const sync = new SyncActivity(bridge, () => {})
    sync.start()
    await settle()

    bridge.emit('sync.changed', { ...idle, running: true, startedAt: '2026-01-01T10:00:00Z' })
    bridge.emit('sync.progress', {
      connectionId: 'c1',
      vaultId: 1,
      kind: 'molecules',
      done: 100,
      total: 2000,
    })
    bridge.emit('sync.progress', {
      connectionId: 'c1',
      vaultId: 1,
      kind: 'molecules',
      done: 900,
      total: 2000,
    })
    bridge.emit('sync.progress', {
      connectionId: 'c1',
      vaultId: 1,
      kind: 'plates',
      done: 0,
      total: null,
    })
    expect(sync.anyRunning).toBe(true)
    expect(sync.progressOf('c1')).toEqual([
      { vaultId: 1, kind: 'molecules', done: 900, total: 2000 },
      { vaultId: 1, kind: 'plates', done: 0, total: null },
    ])

    bridge.emit('sync.changed', {
      ...idle,
      lastOutcome: 'completed',
      startedAt: '2026-01-01T10:00:00Z',
    })
    expect(sync.of('c1')?.lastOutcome).toBe('completed')
    expect(sync.progressOf('c1')).toHaveLength(2)

    bridge.emit('sync.changed', {
      ...idle,
      running: true,
      startedAt: '2026-01-01T11:00:00Z',
      progress: { connectionId: 'c1', vaultId: 1, kind: 'vaults', done: 1, total: 1 },
    })
    expect(sync.progressOf('c1')).toEqual([{ vaultId: 1, kind: 'vaults', done: 1, total: 1 }])
  })

  it('does not let the answer to its first question undo a pushed change', async () => {
    const bridge = quietBridge().answer('sync.state', async () => ({ ok: true, value: [idle] }))
    const sync = new SyncActivity(bridge, () => {})
    sync.start()
    bridge.emit('sync.changed', { ...idle, running: true, startedAt: '2026-01-01T10:00:00Z' })
    await settle()
    expect(sync.of('c1')?.running).toBe(true)
  })

  it('starts, stops and schedules syncs, and reports refusals', async () => {
    const errors: string[] = []
    const bridge = quietBridge()
      .answer('sync.start', async () => ({ ok: true, value: { connectionIds: ['c1'] } }))
      .answer('sync.cancel', async () => ({
        ok: false,
        error: { code: 'not_found', message: 'No connection c1.' },
      }))
      .answer('sync.configure', async () => ({ ok: true, value: { intervalMinutes: 60 } }))
    const sync = new SyncActivity(bridge, (message) => errors.push(message))
    await sync.syncNow('c1')
    await sync.cancel('c1')
    await sync.configure(60)
    expect(sync.settings).toEqual({ intervalMinutes: 60 })
    expect(errors).toEqual(['Could not stop the sync: No connection c1.'])
    expect(bridge.calls.map((call) => [call.channel, call.args])).toEqual([
      ['sync.start', { connectionId: 'c1' }],
      ['sync.cancel', { connectionId: 'c1' }],
      ['sync.configure', { intervalMinutes: 60 }],
    ])
  })
})
