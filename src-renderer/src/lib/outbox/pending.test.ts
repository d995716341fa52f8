import { describe, expect, it } from 'vitest'
import { bytesToBase64 } from './base64.ts'
import { pendingLabel, pendingOf, rowKeyOf } from './pending.ts'

describe('pending marks', () => {
  it('reads the mark of a row, and keys rows made offline by their item', () => {
    const mark = { state: 'queued' as const, itemIds: [4], createdBy: 4 }
    expect(pendingOf({ pending: mark })).toEqual(mark)
    expect(pendingOf({})).toBeNull()
    expect(pendingOf(null)).toBeNull()
    expect(rowKeyOf({ id: null, pending: mark })).toBe('new-4')
    expect(rowKeyOf({ id: 12 })).toBe(12)
    expect(rowKeyOf({ id: null })).toBe(-1)
    expect(pendingLabel('needs_attention')).toBe('Needs attention')
  })

  it('encodes bytes as padded base64, also past the slices it works in', () => {
    expect(bytesToBase64(new TextEncoder().encode('ppm,i\n'))).toBe('cHBtLGkK')
    const large = new Uint8Array(100_000).map((_, index) => index % 251)
    expect(atob(bytesToBase64(large)).length).toBe(100_000)
    expect(atob(bytesToBase64(large)).charCodeAt(99_999)).toBe(99_999 % 251)
  })
})
