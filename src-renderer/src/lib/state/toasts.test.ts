import { describe, expect, it } from 'vitest'
import { Toasts, type Timers } from './toasts.svelte.ts'

/** Timers the test fires by hand. */
class ManualTimers implements Timers {
  readonly pending = new Map<number, () => void>()
  #next = 1

  set(callback: () => void): number {
    const handle = this.#next++
    this.pending.set(handle, callback)
    return handle
  }

  clear(handle: unknown): void {
    this.pending.delete(handle as number)
  }

  fireAll(): void {
    for (const [handle, callback] of [...this.pending]) {
      this.pending.delete(handle)
      callback()
    }
  }
}

const titles = (toasts: Toasts) => toasts.items.map((toast) => toast.title)

describe('Toasts', () => {
  it('lets information expire but keeps errors until dismissed', () => {
    const timers = new ManualTimers()
    const toasts = new Toasts({ timers })
    toasts.info('Saved')
    const error = toasts.error('Upload failed', 'The file is empty.')
    timers.fireAll()
    expect(titles(toasts)).toEqual(['Upload failed'])
    expect(toasts.items[0]).toMatchObject({ kind: 'error', detail: 'The file is empty.' })
    toasts.dismiss(error)
    expect(toasts.items).toEqual([])
  })

  it('shows the same notice once, restarting its time', () => {
    const timers = new ManualTimers()
    const toasts = new Toasts({ timers })
    const first = toasts.info('Not available yet')
    const second = toasts.info('Not available yet')
    expect(second).toBe(first)
    expect(toasts.items).toHaveLength(1)
    expect(timers.pending.size).toBe(1)
  })

  it('keeps only the newest notices', () => {
    const toasts = new Toasts({ timers: new ManualTimers(), limit: 2 })
    toasts.error('one')
    toasts.error('two')
    toasts.error('three')
    expect(titles(toasts)).toEqual(['two', 'three'])
  })

  it('forgets the timer of a notice dismissed by hand', () => {
    const timers = new ManualTimers()
    const toasts = new Toasts({ timers })
    toasts.dismiss(toasts.success('Copied'))
    expect(timers.pending.size).toBe(0)
  })
})
