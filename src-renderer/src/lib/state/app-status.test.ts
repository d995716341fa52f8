import { describe, expect, it } from 'vitest'
import type { AppStatus } from '../bridge.ts'
import type { Result } from '../bridge.ts'
import { BridgeDouble, deferred, settle } from '../testing/bridge-double.ts'
import { AppStatusState } from './app-status.svelte.ts'

const offline: AppStatus = { online: false, syncing: false, lastSyncAt: null, outboxPending: 0 }
const online: AppStatus = { ...offline, online: true, outboxPending: 4 }

describe('AppStatusState', () => {
  it('knows nothing until main answers, then shows the answer', async () => {
    const bridge = new BridgeDouble().answer('app.status', async () => ({
      ok: true,
      value: online,
    }))
    const state = new AppStatusState(bridge, () => {})
    expect(state.current).toBeNull()
    state.start()
    await settle()
    expect(state.current).toEqual(online)
  })

  it('follows pushed changes, and a push beats a slower answer to the first question', async () => {
    const answer = deferred<Result<AppStatus>>()
    const bridge = new BridgeDouble().answer('app.status', () => answer.promise)
    const state = new AppStatusState(bridge, () => {})
    state.start()
    bridge.emit('status.changed', online)
    answer.resolve({ ok: true, value: offline })
    await settle()
    expect(state.current).toEqual(online)
  })

  it('reports a failed read and stops listening when stopped', async () => {
    const errors: string[] = []
    const bridge = new BridgeDouble().answer('app.status', async () => ({
      ok: false,
      error: { code: 'internal', message: 'main is gone' },
    }))
    const state = new AppStatusState(bridge, (message) => errors.push(message))
    const stop = state.start()
    await settle()
    expect(errors).toEqual(['Could not read the sync status: main is gone'])
    expect(state.current).toBeNull()
    stop()
    expect(bridge.listenerCount('status.changed')).toBe(0)
  })
})
