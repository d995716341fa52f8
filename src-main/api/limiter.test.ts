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
  it('shares limits per origin and token, and separates other users and servers', () => {
    const registry = new LimiterRegistry()
    const alice = registry.forConnection('https://vault.example', 'alice-token')
    expect(registry.forConnection('https://vault.example', 'alice-token')).toBe(alice)
    expect(registry.forConnection('https://vault.example', 'bob-token')).not.toBe(alice)
    expect(registry.forConnection('https://other.example', 'alice-token')).not.toBe(alice)
    expect(alice.requests.capacity).toBe(3)
    expect(alice.exports.capacity).toBe(3)
  })
})
