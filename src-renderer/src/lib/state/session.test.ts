import { describe, expect, it } from 'vitest'
import { settle } from '../testing/bridge-double.ts'
import { quietBridge } from '../testing/quiet-bridge.ts'
import { Session } from './session.svelte.ts'

/** Just enough of a window for the router: an address and hash changes. */
const windowDouble = () =>
  Object.assign(new EventTarget(), { location: { hash: '#/plates' } }) as unknown as Window

describe('Session', () => {
  it('starts every state from main and follows the address', async () => {
    const bridge = quietBridge().answer('app.status', async () => ({
      ok: true,
      value: { online: false, syncing: false, lastSyncAt: null, outboxPending: 1 },
    }))
    const session = new Session(bridge)
    const stop = session.start(windowDouble())
    await settle()
    expect(session.appInfo?.version).toBe('0.1.0')
    expect(session.status.current?.outboxPending).toBe(1)
    expect(session.connections.loaded).toBe(true)
    expect(session.sync.settings).toEqual({ intervalMinutes: 15 })
    expect(session.router.route).toEqual({ kind: 'section', section: 'plates', list: 'plates' })
    stop()
    for (const event of [
      'status.changed',
      'connections.changed',
      'sync.changed',
      'sync.progress',
      'records.changed',
      'connections.needsToken',
      'outbox.changed',
    ] as const) {
      expect(bridge.listenerCount(event)).toBe(0)
    }
  })

  it('shows an error notice when main cannot answer', async () => {
    const session = new Session(
      quietBridge().answer('app.info', async () => ({
        ok: false,
        error: { code: 'internal', message: 'closed' },
      })),
    )
    session.start(windowDouble())
    await settle()
    expect(session.appInfo).toBeNull()
    expect(session.toasts.items.map((toast) => toast.title)).toEqual([
      "Could not read the app's version: closed",
    ])
  })

  it('tells the person when storage fails (a rebuilt cache is a notice: notices.svelte.ts)', async () => {
    const bridge = quietBridge()
    const session = new Session(bridge)
    session.start(windowDouble())
    await settle()
    bridge.emit('storage.failed', { message: 'The disk is full', details: 'SQLITE_FULL' })
    expect(session.toasts.items.map((toast) => [toast.kind, toast.title])).toEqual([
      ['error', 'The disk is full'],
    ])
  })
})
