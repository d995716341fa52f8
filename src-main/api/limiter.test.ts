import { describe, expect, it } from 'vitest'
import { LimiterRegistry } from './limiter-registry.ts'
import { Limiter, type Slot } from './limiter.ts'

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('Limiter', () => {
  it('grants up to its capacity and queues the rest', async () => {
    const limiter = new Limiter(3)
    const slots = await Promise.all([limiter.acquire(), limiter.acquire(), limiter.acquire()])
    let fourth: Slot | undefined
    void limiter.acquire().then((slot) => (fourth = slot))
    await settle()
    expect(limiter.active).toBe(3)
    expect(limiter.waiting).toBe(1)
    expect(fourth).toBeUndefined()
    slots[0]!.release()
    await settle()
    expect(fourth).toBeDefined()
    expect(limiter.active).toBe(3)
  })

  it('serves interactive waiters before background ones, first come first served in each', async () => {
    const limiter = new Limiter(1)
    const first = await limiter.acquire()
    const order: string[] = []
    const wait = (name: string, priority: 'interactive' | 'background') =>
      limiter.acquire(priority).then((slot) => {
        order.push(name)
        slot.release()
      })
    const all = Promise.all([
      wait('sync 1', 'background'),
      wait('sync 2', 'background'),
      wait('click 1', 'interactive'),
      wait('click 2', 'interactive'),
    ])
    first.release()
    await all
    expect(order).toEqual(['click 1', 'click 2', 'sync 1', 'sync 2'])
  })

  it('drops an aborted waiter from the queue without ever giving it a slot', async () => {
    const limiter = new Limiter(1)
    const held = await limiter.acquire()
    const controller = new AbortController()
    const abandoned = limiter.acquire('interactive', controller.signal)
    const next = limiter.acquire('background')
    controller.abort(new Error('user closed the window'))
    await expect(abandoned).rejects.toThrow('user closed the window')
    expect(limiter.waiting).toBe(1)
    held.release()
    const slot = await next
    expect(limiter.active).toBe(1)
    slot.release()
    expect(limiter.active).toBe(0)
  })

  it('ignores a second release of the same slot', async () => {
    const limiter = new Limiter(2)
    const slot = await limiter.acquire()
    await limiter.acquire()
    slot.release()
    slot.release()
    expect(limiter.active).toBe(1)
  })

  it('refuses an already aborted signal at once', async () => {
    const limiter = new Limiter(1)
    await expect(limiter.acquire('interactive', AbortSignal.abort())).rejects.toThrow()
    expect(limiter.active).toBe(0)
  })
})

describe('LimiterRegistry', () => {
  it('shares limits per origin whatever the token, and separates servers', () => {
    const registry = new LimiterRegistry()
    const vault = registry.forOrigin('https://vault.example')
    expect(registry.forOrigin('https://vault.example')).toBe(vault)
    expect(registry.forOrigin('https://other.example')).not.toBe(vault)
    expect(vault.requests.capacity).toBe(3)
    expect(vault.exports.capacity).toBe(3)
  })
})

/** Slots "other processes" hold, as a test sets them: `free` of them are left. */
function fakeSharedSlots(free: number) {
  const wakes = new Set<() => void>()
  const shared = {
    free,
    taken: 0,
    watching: () => wakes.size,
    tryTake: () => {
      if (shared.free === 0) return null
      shared.free--
      shared.taken++
      return {
        release: () => {
          shared.free++
          shared.taken--
        },
      }
    },
    watch: (wake: () => void) => {
      wakes.add(wake)
      return () => wakes.delete(wake)
    },
    /** Another process gives one back. */
    giveBack: () => {
      shared.free++
      for (const wake of [...wakes]) wake()
    },
  }
  return shared
}

describe('Limiter with slots shared with other processes', () => {
  it('grants only with a shared slot, and waits for one to come free elsewhere', async () => {
    const shared = fakeSharedSlots(1)
    const limiter = new Limiter(3, shared)
    const first = await limiter.acquire()
    let second: Slot | undefined
    void limiter.acquire().then((slot) => (second = slot))
    await Promise.resolve()
    expect(second).toBeUndefined()
    expect(limiter.active).toBe(1)
    expect(shared.watching()).toBe(1)
    shared.giveBack()
    await Promise.resolve()
    expect(second).toBeDefined()
    expect(shared.watching()).toBe(0)
    first.release()
    second!.release()
    expect(shared.taken).toBe(0)
    expect(limiter.active).toBe(0)
  })

  it('keeps the lanes: an interactive request goes first when a shared slot comes free', async () => {
    const shared = fakeSharedSlots(0)
    const limiter = new Limiter(3, shared)
    const order: string[] = []
    void limiter.acquire('background').then(() => order.push('background'))
    void limiter.acquire('interactive').then(() => order.push('interactive'))
    shared.giveBack()
    await Promise.resolve()
    expect(order).toEqual(['interactive'])
  })

  it('stops watching when the last waiter gives up', async () => {
    const shared = fakeSharedSlots(0)
    const limiter = new Limiter(3, shared)
    const controller = new AbortController()
    const waiting = limiter.acquire('interactive', controller.signal)
    expect(shared.watching()).toBe(1)
    controller.abort()
    await expect(waiting).rejects.toBeDefined()
    expect(shared.watching()).toBe(0)
    shared.giveBack()
    expect(limiter.active).toBe(0)
    expect(shared.taken).toBe(0)
  })
})
