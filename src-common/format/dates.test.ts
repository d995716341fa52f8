import { describe, expect, it } from 'vitest'
import { formatDay, formatTimestamp } from './dates.ts'

describe('dates', () => {
  it('shows a plain date as that day in every time zone', () => {
    expect(formatDay('2026-07-24', 'en-GB')).toBe('24 Jul 2026')
    expect(formatTimestamp('2026-07-24', 'en-GB')).toBe('24 Jul 2026')
  })

  it('shows timestamps locally and leaves unreadable text as it came', () => {
    expect(formatTimestamp('2026-07-24T17:00:00Z', 'en-GB')).toMatch(/2[45] Jul 2026, \d\d:\d\d/)
    expect(formatDay('soon', 'en-GB')).toBe('soon')
    expect(formatTimestamp(null)).toBe('')
  })
})
