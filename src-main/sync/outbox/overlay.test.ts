import { describe, expect, it } from 'vitest'
import { applyOverlays } from './overlay.ts'

describe('pending overlays', () => {
  it('merges corrections member by member over the cached record, in the order queued', () => {
    const cached = {
      id: 7,
      readouts: { '3': { value: 12, modifier: '<', note: 'plate edge' }, '4': { value: 1 } },
    }
    const merged = applyOverlays(cached, [
      { set: { readouts: { '3': { value: 40, modifier: null } } } },
      { set: { readouts: { '3': { outlier: true } } } },
    ])
    expect(merged).toEqual({
      id: 7,
      readouts: { '3': { value: 40, note: 'plate edge', outlier: true }, '4': { value: 1 } },
    })
    expect(cached.readouts['3']).toEqual({ value: 12, modifier: '<', note: 'plate edge' })
  })

  it('shows a record created offline, with what was appended to it since', () => {
    const merged = applyOverlays(null, [
      { create: { name: 'Notes', status: 'open', body: [] } },
      { append: { body: [{ type: 'text', text: 'Yield 80 %' }] } },
      { set: { status: 'submitted' } },
    ])
    expect(merged).toEqual({
      name: 'Notes',
      status: 'submitted',
      body: [{ type: 'text', text: 'Yield 80 %' }],
    })
  })

  it('adds molecules to a collection once', () => {
    expect(applyOverlays({ molecules: [1, 2] }, [{ append: { molecules: [2, 3] } }])).toEqual({
      molecules: [1, 2, 3],
    })
  })
})
