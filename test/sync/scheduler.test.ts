import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { SyncScheduler, type SyncReason } from '../../src-main/sync/sync-scheduler.ts'

const minute = 60_000

describe('SyncScheduler', () => {
  let runs: [string, SyncReason][]
  let scheduler: SyncScheduler
  beforeEach(() => {
    vi.useFakeTimers()
    runs = []
    scheduler = new SyncScheduler({
      intervalMs: 15 * minute,
      run: (id, reason) => runs.push([id, reason]),
    })
  })
  afterEach(() => {
    scheduler.stop()
    vi.useRealTimers()
  })

  it('syncs at start, then one interval after each sync ends', () => {
    scheduler.add('lab')
    expect(runs).toEqual([['lab', 'start']])
    scheduler.finished('lab')
    expect(scheduler.nextSyncAt('lab')?.getTime()).toBe(Date.now() + 15 * minute)
    vi.advanceTimersByTime(15 * minute - 1)
    expect(runs).toHaveLength(1)
    vi.advanceTimersByTime(1)
    expect(runs).toEqual([
      ['lab', 'start'],
      ['lab', 'interval'],
    ])
  })

  it('syncs on demand and on reconnect at once, replacing the scheduled sync', () => {
    scheduler.finished('lab')
    scheduler.syncNow('lab')
    scheduler.reconnected('lab')
    expect(runs).toEqual([
      ['lab', 'demand'],
      ['lab', 'reconnect'],
    ])
    expect(scheduler.nextSyncAt('lab')).toBeNull()
    vi.advanceTimersByTime(60 * minute)
    expect(runs).toHaveLength(2)
  })

  it('moves the next syncs when the interval changes', () => {
    scheduler.finished('lab')
    vi.advanceTimersByTime(5 * minute)
    scheduler.setInterval(10 * minute)
    vi.advanceTimersByTime(5 * minute - 1)
    expect(runs).toEqual([])
    vi.advanceTimersByTime(1)
    expect(runs).toEqual([['lab', 'interval']])
  })

  it('forgets a removed connection and runs nothing once stopped', () => {
    scheduler.finished('lab')
    scheduler.finished('archive')
    scheduler.remove('lab')
    vi.advanceTimersByTime(15 * minute)
    expect(runs).toEqual([['archive', 'interval']])
    scheduler.stop()
    scheduler.add('lab')
    scheduler.finished('lab')
    vi.advanceTimersByTime(60 * minute)
    expect(runs).toEqual([['archive', 'interval']])
  })
})
