import { describe, expect, it } from 'vitest'
import { deferred } from '../testing/bridge-double.ts'
import { coalesced } from './coalesced.ts'

describe('coalesced', () => {
  it('runs once more after the current run however often it was asked meanwhile', async () => {
    const gates = [deferred<void>(), deferred<void>(), deferred<void>()]
    let runs = 0
    const refresh = coalesced(() => gates[runs++]!.promise)
    const first = refresh()
    refresh()
    refresh()
    const last = refresh()
    expect(runs).toBe(1)
    gates[0]!.resolve()
    await Promise.resolve()
    await Promise.resolve()
    expect(runs).toBe(2)
    gates[1]!.resolve()
    await Promise.all([first, last])
    expect(runs).toBe(2)
  })

  it('starts afresh after a run that failed', async () => {
    let runs = 0
    const refresh = coalesced(async () => {
      runs++
      if (runs === 1) throw new Error('disk is full')
    })
    await expect(refresh()).rejects.toThrow('disk is full')
    await refresh()
    expect(runs).toBe(2)
  })
})
