import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  ConnectivityMonitor,
  type ConnectivityState,
} from '../../src-main/sync/connectivity-monitor.ts'

describe('ConnectivityMonitor', () => {
  let changes: ConnectivityState[]
  let answers: boolean[]
  let probes: number
  let monitor: ConnectivityMonitor
  beforeEach(() => {
    vi.useFakeTimers()
    changes = []
    answers = []
    probes = 0
    monitor = new ConnectivityMonitor({
      probe: async () => {
        probes++
        if (!answers.shift()) throw new Error('ECONNREFUSED')
      },
      onChange: (state) => changes.push(state),
      backoff: { baseDelayMs: 1000, maxDelayMs: 8000 },
      // The longest delay of each step, so that the test knows when probes run.
      random: () => 1,
    })
  })
  afterEach(() => {
    monitor.stop()
    vi.useRealTimers()
  })

  it('is online once the API answered, offline when the network fails', () => {
    expect(monitor.state.online).toBe(false)
    monitor.observe({ status: 200, kind: null })
    expect(monitor.state).toMatchObject({ online: true, nextProbeAt: null })
    monitor.observe({ status: null, kind: 'network' })
    expect(monitor.state).toMatchObject({ online: false, nextProbeAt: expect.any(String) })
    expect(changes.map((change) => change.online)).toEqual([true, false])
  })

  it('counts any status as an answer, and a body the network broke as silence', () => {
    monitor.observe({ status: 503, kind: 'server' })
    expect(monitor.state.online).toBe(true)
    monitor.observe({ status: 200, kind: 'network' })
    expect(monitor.state.online).toBe(false)
  })

  it('ignores a cancelled request: it says nothing about the network', () => {
    monitor.observe({ status: 200, kind: null })
    monitor.observe({ status: null, kind: 'cancelled' })
    expect(monitor.state.online).toBe(true)
  })

  it('probes with growing delays until the API answers, then is online again', async () => {
    answers = [false, false, true]
    monitor.unreachable()
    await vi.advanceTimersByTimeAsync(999)
    expect(probes).toBe(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(probes).toBe(1)
    await vi.advanceTimersByTimeAsync(2000)
    expect(probes).toBe(2)
    await vi.advanceTimersByTimeAsync(3999)
    expect(probes).toBe(2)
    await vi.advanceTimersByTimeAsync(1)
    expect(probes).toBe(3)
    expect(monitor.state).toMatchObject({ online: true, nextProbeAt: null })
    await vi.advanceTimersByTimeAsync(60_000)
    expect(probes).toBe(3)
  })

  it('keeps one probe scheduled however many requests fail meanwhile', async () => {
    monitor.unreachable()
    monitor.observe({ status: null, kind: 'network' })
    monitor.observe({ status: null, kind: 'network' })
    await vi.advanceTimersByTimeAsync(1000)
    expect(probes).toBe(1)
  })
})
