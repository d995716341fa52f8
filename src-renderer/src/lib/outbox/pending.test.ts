import { describe, expect, it } from 'vitest'
import { bytesToBase64 } from './base64.ts'
import { needsPerson, pendingLabel, pendingOf, rowKeyOf } from './pending.ts'

describe('pending marks', () => {
  it('reads the mark browse answers add, and keys rows made offline by their item', () => {
    const mark = { state: 'queued', itemIds: [4, 'x'], createdBy: 4 }
    expect(pendingOf({ id: null, _pending: mark })).toEqual({
      state: 'queued',
      itemIds: [4],
      createdBy: 4,
    })
    expect(pendingOf({ id: 3 })).toBeNull()
    expect(pendingOf({ _pending: { state: 'lost' } })).toBeNull()
    expect(rowKeyOf({ id: null, _pending: mark })).toBe('new-4')
    expect(rowKeyOf({ id: '12' })).toBe(12)
    expect(pendingLabel('needs_attention')).toBe('Needs attention')
    expect(needsPerson('conflict')).toBe(true)
    expect(needsPerson('sending')).toBe(false)
  })

  it('encodes bytes as padded base64, also past the slices it works in', () => {
    expect(bytesToBase64(new TextEncoder().encode('ppm,i\n'))).toBe('cHBtLGkK')
    const large = new Uint8Array(100_000).map((_, index) => index % 251)
    expect(atob(bytesToBase64(large)).length).toBe(100_000)
    expect(atob(bytesToBase64(large)).charCodeAt(99_999)).toBe(99_999 % 251)
  })
})
