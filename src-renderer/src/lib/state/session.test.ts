import { describe, expect, it } from 'vitest'
import type { AppInfo } from '../../../../src-main/shared/app-info.ts'
import { BridgeDouble, settle } from '../testing/bridge-double.ts'
import { Session } from './session.svelte.ts'

const info: AppInfo = {
  name: 'Vault Desk',
  version: '0.1.0',
  host: 'web',
  platform: 'linux',
  dataDir: '/tmp/vault-desk',
  logFile: '/tmp/vault-desk/logs/vault-desk.log',
}

/** Just enough of a window for the router: an address and hash changes. */
const windowDouble = () =>
  Object.assign(new EventTarget(), { location: { hash: '#/plates' } }) as unknown as Window

function bridgeAnswering(appInfo: Awaited<ReturnType<BridgeDouble['invoke']>>) {
  return new BridgeDouble()
    .answer('app.info', async () => appInfo as never)
    .answer('app.status', async () => ({
      ok: true,
      value: { online: false, syncing: false, lastSyncAt: null, outboxPending: 1 },
    }))
    .answer('connections.list', async () => ({ ok: true, value: [] }))
}

describe('Session', () => {
  it('starts every state from main and follows the address', async () => {
    const bridge = bridgeAnswering({ ok: true, value: info })
    const session = new Session(bridge)
    const stop = session.start(windowDouble())
    await settle()
    expect(session.appInfo).toEqual(info)
    expect(session.status.current?.outboxPending).toBe(1)
    expect(session.connections.loaded).toBe(true)
    expect(session.router.route).toEqual({ kind: 'section', section: 'plates' })
    stop()
    expect(bridge.listenerCount('status.changed')).toBe(0)
    expect(bridge.listenerCount('connections.changed')).toBe(0)
  })

  it('shows an error notice when main cannot answer', async () => {
    const session = new Session(
      bridgeAnswering({ ok: false, error: { code: 'internal', message: 'closed' } }),
    )
    session.start(windowDouble())
    await settle()
    expect(session.appInfo).toBeNull()
    expect(session.toasts.items.map((toast) => toast.title)).toEqual([
      "Could not read the app's version: closed",
    ])
  })
})
