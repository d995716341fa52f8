import { describe, expect, it } from 'vitest'
import type { ConnectionStatus, ConnectionSummary, Result } from '../bridge.ts'
import { deferred, settle } from '../testing/bridge-double.ts'
import { lab, labStatus, quietBridge } from '../testing/quiet-bridge.ts'
import { ConnectionsState } from './connections.svelte.ts'

describe('ConnectionsState', () => {
  it('is not loaded until main answers, then lists the connections and their state', async () => {
    const bridge = quietBridge()
      .answer('connections.list', async () => ({ ok: true, value: [lab] }))
      .answer('connections.status', async () => ({ ok: true, value: [labStatus] }))
    const state = new ConnectionsState(bridge, () => {})
    expect(state.loaded).toBe(false)
    state.start()
    await settle()
    expect(state.loaded).toBe(true)
    expect(state.list).toEqual([lab])
    expect(state.statuses.c1?.tokenPlace).toBe('keychain')
    expect(state.byId('c1')).toEqual(lab)
    expect(state.tokenRequests).toEqual([])
  })

  it('reads the list again when main says it changed, and tells its followers', async () => {
    let answer: ConnectionSummary[] = []
    const bridge = quietBridge().answer('connections.list', async () => ({
      ok: true,
      value: answer,
    }))
    const state = new ConnectionsState(bridge, () => {})
    let followed = 0
    state.onChange(() => followed++)
    state.start()
    await settle()
    expect(state.list).toEqual([])
    answer = [lab]
    bridge.emit('connections.changed', { connectionIds: ['c1'] })
    await settle()
    expect(state.list).toEqual([lab])
    expect(followed).toBe(2)
  })

  it('keeps the answer to the latest request when answers arrive out of order', async () => {
    const answers = [
      deferred<Result<ConnectionSummary[]>>(),
      deferred<Result<ConnectionSummary[]>>(),
    ]
    let asked = 0
    const bridge = quietBridge().answer('connections.list', () => answers[asked++]!.promise)
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
    const bridge = quietBridge().answer('connections.list', async () =>
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

  it('follows connectivity and asks for a token the vault refused', async () => {
    let status: ConnectionStatus = labStatus
    const bridge = quietBridge()
      .answer('connections.list', async () => ({ ok: true, value: [lab] }))
      .answer('connections.status', async () => ({ ok: true, value: [status] }))
    const state = new ConnectionsState(bridge, () => {})
    state.start()
    await settle()

    bridge.emit('connectivity.changed', {
      connectionId: 'c1',
      online: false,
      lastContactAt: '2026-01-02T00:00:00Z',
      nextProbeAt: null,
    })
    expect(state.statuses.c1).toMatchObject({
      online: false,
      lastContactAt: '2026-01-02T00:00:00Z',
    })

    status = { ...labStatus, needsNewToken: true }
    bridge.emit('connections.needsToken', {
      connectionId: 'c1',
      name: 'Lab vault',
      message: 'The key is not authorized for access to the vault.',
    })
    await settle()
    expect(state.tokenRequests).toEqual([
      {
        connection: lab,
        reason: 'refused',
        message: 'The key is not authorized for access to the vault.',
      },
    ])

    status = { ...labStatus, tokenPlace: null }
    await state.refresh()
    expect(state.tokenRequests).toEqual([{ connection: lab, reason: 'forgotten', message: null }])

    // Giving a token would not help when this version cannot open the connection's local copy.
    status = {
      ...labStatus,
      tokenPlace: null,
      localCopy: { reason: 'newer_version', schema: 14, known: 11 },
    }
    await state.refresh()
    expect(state.tokenRequests).toEqual([])
  })

  it('reads the list again after a change it made, and passes refusals back', async () => {
    const bridge = quietBridge()
      .answer('connections.add', async () => ({
        ok: false,
        error: { code: 'authentication', message: 'The vault refused this token.' },
      }))
      .answer('connections.remove', async () => ({
        ok: true,
        value: { connectionId: 'c1', deletedFiles: [] },
      }))
    const state = new ConnectionsState(bridge, () => {})
    const added = await state.add({ name: 'Lab', baseUrl: lab.baseUrl, token: 'secret' }, false)
    expect(added.ok).toBe(false)
    const removed = await state.remove('c1', true)
    expect(removed.ok).toBe(true)
    expect(bridge.calls.map((call) => call.channel)).toEqual([
      'connections.add',
      'connections.remove',
      'connections.list',
      'connections.status',
    ])
    expect(bridge.calls[0]?.args).toEqual({
      name: 'Lab',
      baseUrl: lab.baseUrl,
      token: 'secret',
      sessionOnly: false,
    })
    expect(bridge.calls[1]?.args).toEqual({ connectionId: 'c1', deleteCache: true })
  })
})
