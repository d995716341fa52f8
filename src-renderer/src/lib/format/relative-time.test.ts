import { describe, expect, it } from 'vitest'
import { describeLastSync, relativeTime } from './relative-time.ts'

const now = new Date('2026-03-10T12:00:00Z')
const ago = (milliseconds: number) => new Date(now.getTime() - milliseconds)

describe('relativeTime', () => {
  it('says just now for the last few seconds and for a clock slightly ahead', () => {
    expect(relativeTime(ago(10_000), now, 'en')).toBe('just now')
    expect(relativeTime(ago(-90_000), now, 'en')).toBe('just now')
  })

  it('counts minutes, hours and days', () => {
    expect(relativeTime(ago(5 * 60_000), now, 'en')).toBe('5 minutes ago')
    expect(relativeTime(ago(3 * 3_600_000), now, 'en')).toBe('3 hours ago')
    expect(relativeTime(ago(26 * 3_600_000), now, 'en')).toBe('yesterday')
    expect(relativeTime(ago(3 * 86_400_000), now, 'en')).toBe('3 days ago')
  })

  it('gives the date once it is more than a week ago', () => {
    expect(relativeTime(new Date('2026-02-01T09:00:00Z'), now, 'en')).toBe('Feb 1, 2026')
  })
})

describe('describeLastSync', () => {
  it('names never, unreadable and real sync times', () => {
    expect(describeLastSync(null, now, 'en')).toBe('Never synced')
    expect(describeLastSync('not a date', now, 'en')).toBe('Last sync time unknown')
    expect(describeLastSync('2026-03-10T11:58:00.000Z', now, 'en')).toBe('Synced 2 minutes ago')
    expect(describeLastSync('2026-03-10T13:58:00+02:00', now, 'en')).toBe('Synced 2 minutes ago')
  })
})
