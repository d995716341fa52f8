import { describe, expect, it } from 'vitest'
import { ELN_ACTIONS, ELN_STATUSES, elnMove, isElnAction } from './eln-status.ts'

describe('elnMove', () => {
  it('follows the witnessed path: submit, reject or cancel, approve, reopen', () => {
    expect(elnMove('submit', 'open', true)).toEqual({
      ok: true,
      status: 'submitted',
      requires: 'witness',
    })
    expect(elnMove('reject', 'submitted', true)).toEqual({
      ok: true,
      status: 'open',
      requires: 'reason',
    })
    expect(elnMove('cancel', 'submitted', true)).toEqual({ ok: true, status: 'open' })
    expect(elnMove('approve', 'submitted', true)).toEqual({ ok: true, status: 'finalized' })
    expect(elnMove('reopen', 'finalized', true)).toEqual({
      ok: true,
      status: 'open',
      requires: 'reason',
    })
    expect(elnMove('discard', 'open', true)).toEqual({ ok: true, status: 'discarded' })
  })

  it('follows the unwitnessed path: finalize, reopen, discard', () => {
    expect(elnMove('finalize', 'open', false)).toEqual({ ok: true, status: 'finalized' })
    expect(elnMove('reopen', 'finalized', false)).toMatchObject({ ok: true, status: 'open' })
    expect(elnMove('discard', 'open', false)).toEqual({ ok: true, status: 'discarded' })
  })

  it('refuses actions of the other witnessing mode', () => {
    expect(elnMove('finalize', 'open', true)).toEqual({
      ok: false,
      reason: 'finalize is not available when witnessing is enabled for the vault',
    })
    expect(elnMove('submit', 'open', false)).toMatchObject({ ok: false })
    expect(elnMove('approve', 'submitted', false)).toMatchObject({ ok: false })
  })

  it('refuses every move that does not start from the current status', () => {
    let permitted = 0
    for (const status of ELN_STATUSES) {
      for (const action of ELN_ACTIONS) {
        for (const witnessing of [true, false]) {
          const outcome = elnMove(action, status, witnessing)
          if (outcome.ok) permitted += 1
        }
      }
    }
    // submit, approve, reject, cancel (witnessing on); finalize (off); reopen and discard (both).
    expect(permitted).toBe(4 + 1 + 2 + 2)
    expect(elnMove('approve', 'open', true)).toEqual({
      ok: false,
      reason: 'an entry that is open cannot be approved',
    })
    expect(elnMove('discard', 'discarded', false)).toMatchObject({ ok: false })
  })

  it('recognises action names', () => {
    expect(isElnAction('submit')).toBe(true)
    expect(isElnAction('Submit')).toBe(false)
    expect(isElnAction(undefined)).toBe(false)
  })
})
