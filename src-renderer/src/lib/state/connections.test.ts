import { describe, expect, it } from 'vitest'
import type { ConnectionSummary } from '../../../../src-main/shared/connection.ts'
import type { Result } from '../bridge.ts'
import { BridgeDouble, deferred, settle } from '../testing/bridge-double.ts'
import { ConnectionsState } from './connections.svelte.ts'

const lab: ConnectionSummary = {
  id: 'c1',
  name: 'Lab vault',
  baseUrl: 'https://vault.example.org',
  createdAt: '2026-01-01T00:00:00Z',
}

describe('ConnectionsState', () => {
  it('is not loaded until main answers, then lists the connections', async () => {
    const bridge = new BridgeDouble().answer('connections.list', async () => ({
      ok: true,
      value: [lab],
    }))
    const state = new ConnectionsState(bridge, () => {})
    expect(state.loaded).toBe(false)
    state.start()
    await settle()
    expect(state.loaded).toBe(true)
    expect(state.list).toEqual([lab])
  })

  it('reads the list again when main says it changed', async () => {
    let answer: ConnectionSummary[] = []
    const bridge = new BridgeDouble().answer('connections.list', async () => ({
      ok: true,
      value: answer,
    }))
    const state = new ConnectionsState(bridge, () => {})
    state.start()
    await settle()
    expect(state.list).toEqual([])
    answer = [lab]
    bridge.emit('connections.changed', { connectionIds: ['c1'] })
    await settle()
    expect(state.list).toEqual([lab])
    expect(bridge.calls).toHaveLength(2)
  })

  it('keeps the answer to the latest request when answers arrive out of order', async () => {
    const answers = [
      deferred<Result<ConnectionSummary[]>>(),
      deferred<Result<ConnectionSummary[]>>(),
    ]
    let asked = 0
    const bridge = new BridgeDouble().answer('connections.list', () => answers[asked++]!.promise)
    const state = new ConnectionsState(bridge, () => {})
    const first = state.refresh()
    const second = state.refresh()
    answers[1]!.resolve({ ok: true, value: [lab] })
    await second
    answers[0]!.resolve({ ok: true, value: [] })
    await first
    expect(state.list).toEqual([lab])
  })

  it('reports a failed read and keeps what it had', async () => {
    const errors: string[] = []
    let fail = false
    const bridge = new BridgeDouble().answer('connections.list', async () =>
      fail
        ? { ok: false, error: { code: 'storage', message: 'disk is full' } }
        : { ok: true, value: [lab] },
    )
    const state = new ConnectionsState(bridge, (message) => errors.push(message))
    await state.refresh()
    fail = true
    await state.refresh()
    expect(state.list).toEqual([lab])
    expect(errors).toEqual(['Could not read the connections: disk is full'])
  })
})
