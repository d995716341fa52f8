import { describe, expect, it } from 'vitest'
import type { AppNotice, Result } from '../bridge.ts'
import { BridgeDouble, deferred, settle } from '../testing/bridge-double.ts'
import { NoticesState } from './notices.svelte.ts'

const repaired: AppNotice = {
  id: 'outbox-repaired:1',
  kind: 'outbox-repaired',
  severity: 'warning',
  title: 'The outbox was damaged and has been repaired',
  details: '12 items were recovered (12 still to send or decide).',
  advice: 'Nothing queued was lost.',
  path: '/data/outbox.damaged-2026-11-29T09-00-00-000Z.db',
  at: '2026-11-29T09:00:00.000Z',
}
const held: AppNotice = {
  ...repaired,
  id: 'data-folder-held:42@lab/2026-11-29T09:01:00.000Z',
  kind: 'data-folder-held',
  title: 'Another Vault Desk is syncing this data folder',
  path: '/data/vault-desk.lock',
}

describe('NoticesState', () => {
  it('shows what main kept from before the window started, then follows pushed lists', async () => {
    const bridge = new BridgeDouble().answer('app.notices', async () => ({
      ok: true,
      value: [repaired],
    }))
    const state = new NoticesState(bridge, () => {})
    state.start()
    await settle()
    expect(state.list).toEqual([repaired])
    bridge.emit('notices.changed', { notices: [repaired, held] })
    expect(state.list).toEqual([repaired, held])
  })

  it('lets a push beat a slower answer to the first question', async () => {
    const answer = deferred<Result<AppNotice[]>>()
    const bridge = new BridgeDouble().answer('app.notices', () => answer.promise)
    const state = new NoticesState(bridge, () => {})
    state.start()
    bridge.emit('notices.changed', { notices: [held] })
    answer.resolve({ ok: true, value: [] })
    await settle()
    expect(state.list).toEqual([held])
  })

  it('dismisses once however often it is pressed, and says why when main refuses', async () => {
    const errors: string[] = []
    let refuse = false
    const bridge = new BridgeDouble()
      .answer('app.notices', async () => ({ ok: true, value: [repaired, held] }))
      .answer('app.dismissNotice', async () =>
        refuse
          ? { ok: false, error: { code: 'storage', message: 'the disk is full' } }
          : { ok: true, value: { dismissed: true } },
      )
    const state = new NoticesState(bridge, (message) => errors.push(message))
    state.start()
    await settle()
    const first = state.dismiss(repaired.id)
    expect(state.dismissing.has(repaired.id)).toBe(true)
    await Promise.all([first, state.dismiss(repaired.id)])
    expect(bridge.calls.filter((call) => call.channel === 'app.dismissNotice')).toEqual([
      { channel: 'app.dismissNotice', args: { id: repaired.id } },
    ])
    expect(state.list).toEqual([held])
    expect(state.dismissing.size).toBe(0)

    refuse = true
    await state.dismiss(held.id)
    expect(state.list).toEqual([held])
    expect(errors).toEqual(['Could not dismiss the notice: the disk is full'])
  })
})
