import { describe, expect, it } from 'vitest'
import { EventLoopDelay } from '../../bench/event-loop-delay.ts'

const holdThread = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until);
}
const turns = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('EventLoopDelay', () => {
  it('records how long the thread was held while started', async () => {
    const delay = new EventLoopDelay()
    delay.start()
    await turns(10)
    holdThread(60)
    await turns(10)
    delay.stop()
    expect(delay.maxMs()).toBeGreaterThanOrEqual(55)
    expect(delay.percentileMs(50)).toBeLessThan(55)
  })

  it('counts nothing of the time between a stop and the next start', async () => {
    const delay = new EventLoopDelay()
    delay.start()
    await turns(20)
    delay.stop()
    holdThread(300)
    delay.start()
    await turns(20)
    delay.stop()
    expect(delay.maxMs()).toBeLessThan(250)
    expect(delay.percentileMs(99)).toBeLessThan(250)
  })

  it('answers zero before any sample', () => {
    const delay = new EventLoopDelay()
    expect(delay.maxMs()).toBe(0)
    expect(delay.percentileMs(99)).toBe(0)
  })
})
