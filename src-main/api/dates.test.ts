import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { formatDateParam } from './dates.ts'

describe('formatDateParam', () => {
  let timeZone: string | undefined
  beforeEach(() => {
    timeZone = process.env.TZ
    process.env.TZ = 'Europe/Berlin'
  })
  afterEach(() => {
    process.env.TZ = timeZone
  })

  it('sends a Date in UTC with an explicit offset', () => {
    expect(formatDateParam(new Date(Date.UTC(2024, 4, 1, 10, 0, 0)), 'created_after')).toBe(
      '2024-05-01T10:00:00+00:00',
    )
    expect(formatDateParam(new Date(Date.UTC(2024, 4, 1, 10, 0, 0, 250)), 'created_after')).toBe(
      '2024-05-01T10:00:00.250+00:00',
    )
  })

  it('keeps a string that has an offset, fractions included', () => {
    expect(formatDateParam('2024-05-01T10:00:00.123456Z', 'modified_after')).toBe(
      '2024-05-01T10:00:00.123456+00:00',
    )
    expect(formatDateParam('2024-05-01T10:00:00-0500', 'modified_after')).toBe(
      '2024-05-01T10:00:00-05:00',
    )
  })

  it("gives a string without an offset this machine's offset at that date", () => {
    expect(formatDateParam('2024-05-01', 'created_after')).toBe('2024-05-01T00:00:00+02:00')
    expect(formatDateParam('2024-01-15T08:30', 'created_after')).toBe('2024-01-15T08:30:00+01:00')
  })

  it.each(['yesterday', '2024-13-01', '2024-02-30', '2024-05-01T25:00:00Z'])(
    'refuses %s, naming the parameter',
    (value) => {
      expect(() => formatDateParam(value, 'created_after')).toThrow(`created_after: "${value}"`)
    },
  )
})
