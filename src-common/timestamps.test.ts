import { describe, expect, it } from 'vitest'
import { normalizeTimestamp } from './timestamps.ts'

describe('normalizeTimestamp', () => {
  it('gives one sortable UTC form for the variants servers send', () => {
    expect(normalizeTimestamp('2024-03-02T10:00:00Z')).toBe('2024-03-02T10:00:00.000000Z')
    expect(normalizeTimestamp('2024-03-02T10:00:00.123Z')).toBe('2024-03-02T10:00:00.123000Z')
    expect(normalizeTimestamp('2024-03-02T11:00:00+01:00')).toBe('2024-03-02T10:00:00.000000Z')
    expect(normalizeTimestamp('2024-03-02T05:30:00-0430')).toBe('2024-03-02T10:00:00.000000Z')
    expect(normalizeTimestamp('2024-03-02 10:00')).toBe('2024-03-02T10:00:00.000000Z')
    expect(normalizeTimestamp('2024-03-01T00:30:00+01:00')).toBe('2024-02-29T23:30:00.000000Z')
  })

  it('keeps microseconds (inventory samples have them) and plain dates', () => {
    expect(normalizeTimestamp('2024-03-01T10:00:00.123456Z')).toBe('2024-03-01T10:00:00.123456Z')
    expect(normalizeTimestamp('2024-03-01T10:00:00.1234567Z')).toBe('2024-03-01T10:00:00.123456Z')
    expect(normalizeTimestamp('2024-03-05')).toBe('2024-03-05')
  })

  it('sorts as text in time order across formats', () => {
    const sent = ['2024-03-02T11:00:00.5+01:00', '2024-03-02T10:00:00Z', '2024-03-02T10:00:00.250Z']
    const sorted = sent.map(normalizeTimestamp).sort()
    expect(sorted).toEqual([
      '2024-03-02T10:00:00.000000Z',
      '2024-03-02T10:00:00.250000Z',
      '2024-03-02T10:00:00.500000Z',
    ])
  })

  it('answers each value for itself when values repeat and alternate', () => {
    const sent = ['2024-03-02T10:00:00Z', '2024-03-02T10:00:00Z', 'soon', 'soon', '']
    sent.push('2024-03-02T11:00:00+01:00', '2024-03-02T10:00:00Z', '2024-03-05')
    expect(sent.map(normalizeTimestamp)).toEqual([
      '2024-03-02T10:00:00.000000Z',
      '2024-03-02T10:00:00.000000Z',
      null,
      null,
      null,
      '2024-03-02T10:00:00.000000Z',
      '2024-03-02T10:00:00.000000Z',
      '2024-03-05',
    ])
  })

  it('answers null for anything that is not a timestamp', () => {
    for (const value of [
      'yesterday',
      '2024-13-01',
      '2024-02-30T25:00:00Z',
      '',
      17,
      null,
      undefined,
    ]) {
      expect(normalizeTimestamp(value), String(value)).toBeNull()
    }
  })
})
