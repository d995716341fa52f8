import { describe, expect, it } from 'vitest'
import type { Depiction, RequestArgs } from '../bridge.ts'
import { deferred, settle } from '../testing/bridge-double.ts'
import { quietBridge, svgOf } from '../testing/quiet-bridge.ts'
import { DepictionCache, depictManyLimit } from './depiction-cache.ts'

type ManyArgs = RequestArgs<'chem.depictMany'>

/** A vault whose molecule 13 cannot be parsed and whose molecules above `indexed` are not indexed. */
function drawingVault(options: { indexed?: number } = {}) {
  const asked: ManyArgs[] = []
  const timers: (() => void)[] = []
  let version = 1
  const bridge = quietBridge().answer('chem.depictMany', async () => {
    const args = bridge.calls.at(-1)!.args as ManyArgs
    asked.push(args)
    const value: Record<string, Depiction> = {}
    for (const id of args.moleculeIds) {
      if (id > (options.indexed ?? Infinity)) continue
      value[String(id)] =
        id === 13
          ? { kind: 'unparseable', reason: 'Explicit valence for N is greater than permitted' }
          : { kind: 'svg', svg: svgOf(`${id} v${version}`), highlighted: false }
    }
    return { ok: true, value }
  })
  const cache = new DepictionCache(bridge, {
    limit: 500,
    schedule: (work) => timers.push(work),
  })
  return {
    bridge,
    cache,
    asked,
    runTimers: () => timers.splice(0).forEach((work) => work()),
    change: () => version++,
    setIndexed: (count: number) => (options.indexed = count),
  }
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, index) => from + index)

describe('DepictionCache', () => {
  it('asks for the thumbnails in view together, and each only once', async () => {
    const { cache, asked } = drawingVault()
    cache.want('c1', 1, range(1, 20))
    cache.want('c1', 1, range(10, 30))
    await settle()
    expect(asked).toEqual([
      { connectionId: 'c1', vaultId: 1, moleculeIds: range(1, 30), size: 'thumbnail' },
    ])
    const first = cache.get('c1', 1, 1)
    expect(first?.kind).toBe('image')
    expect(first?.kind === 'image' && first.url).toMatch(/^data:image\/svg\+xml;charset=utf-8,/)
    expect(decodeURIComponent(first?.kind === 'image' ? first.url : '')).toContain('1 v1')
    expect(cache.get('c1', 1, 13)).toEqual({
      kind: 'unparseable',
      reason: 'Explicit valence for N is greater than permitted',
    })
    expect(cache.get('c1', 2, 1)).toBeUndefined()

    cache.want('c1', 1, range(5, 25))
    await settle()
    expect(asked).toHaveLength(1)
  })

  it('asks at most 200 at a time', async () => {
    const { cache, asked } = drawingVault()
    cache.want('c1', 1, range(1, 450))
    await settle()
    expect(asked.map((args) => args.moleculeIds.length)).toEqual([depictManyLimit, 200, 50])
  })

  it('does not ask again for thumbnails on their way', async () => {
    const gate = deferred<void>()
    const { bridge, cache } = drawingVault()
    let calls = 0
    bridge.answer('chem.depictMany', async () => {
      calls++
      await gate.promise
      return { ok: true, value: {} }
    })
    cache.want('c1', 1, [1, 2])
    await settle()
    cache.want('c1', 1, [1, 2])
    await settle()
    expect(calls).toBe(1)
    gate.resolve()
  })

  it('draws the thumbnails in view again when sync changes molecules, keeping the old ones meanwhile', async () => {
    const { bridge, cache, asked, runTimers, change } = drawingVault()
    const stop = cache.start()
    cache.want('c1', 1, range(1, 10))
    await settle()
    change()
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 1, kinds: ['batches'] })
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 1, kinds: ['molecules'] })
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 1, kinds: ['molecules'] })
    const before = cache.get('c1', 1, 2)
    expect(before?.kind === 'image' && decodeURIComponent(before.url)).toContain('2 v1')
    runTimers()
    await settle()
    expect(asked).toHaveLength(2)
    expect(asked[1]!.moleculeIds).toEqual(range(1, 10))
    const after = cache.get('c1', 1, 2)
    expect(after?.kind === 'image' && decodeURIComponent(after.url)).toContain('2 v2')
    stop()
    expect(bridge.listenerCount('records.changed')).toBe(0)
  })

  it('asks again for the molecules not indexed yet as the index grows', async () => {
    const { bridge, cache, asked, runTimers, setIndexed } = drawingVault({ indexed: 5 })
    cache.start()
    cache.want('c1', 1, range(1, 8))
    await settle()
    expect(cache.get('c1', 1, 6)).toBeUndefined()
    // Scrolling does not ask for them again...
    cache.want('c1', 1, range(1, 8))
    await settle()
    expect(asked).toHaveLength(1)
    // ...the index reaching them does.
    setIndexed(100)
    bridge.emit('chem.indexProgress', {
      connectionId: 'c1',
      vaultId: 1,
      indexed: 100,
      total: 100,
      detailsPending: 0,
    })
    runTimers()
    await settle()
    expect(asked.at(-1)!.moleculeIds).toEqual([6, 7, 8])
    expect(cache.get('c1', 1, 8)?.kind).toBe('image')
  })

  it('keeps a bounded number, and forgets connections that are gone', async () => {
    const { cache } = drawingVault()
    cache.want('c1', 1, range(1, 200))
    await settle()
    cache.want('c1', 1, range(201, 400))
    cache.want('c2', 1, range(1, 200))
    await settle()
    expect(cache.size).toBe(500)
    expect(cache.get('c1', 1, 1)).toBeUndefined()
    expect(cache.get('c1', 1, 400)).toBeDefined()
    cache.retainConnections(['c2'])
    expect(cache.size).toBe(200)
    expect(cache.get('c2', 1, 200)).toBeDefined()
  })
})
