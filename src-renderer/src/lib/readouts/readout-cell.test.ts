import { describe, expect, it } from 'vitest'
import { cellSortValue, describeCell, formatCellValue, readCell } from './readout-cell.ts'

describe('readCell', () => {
  it('reads a value with its qualifier, outlier flag and note', () => {
    expect(
      readCell({ value: '0.123', modifier: '<', outlier: 'true', note: 'pipetting error' }),
    ).toEqual({ value: 0.123, qualifier: '<', outlier: true, note: 'pipetting error' })
  })

  it('keeps a note without a value, and text values as text', () => {
    expect(readCell({ note: 'compound precipitated' })).toEqual({
      value: null,
      qualifier: null,
      outlier: false,
      note: 'compound precipitated',
    })
    expect(readCell({ value: 'inactive' })?.value).toBe('inactive')
    expect(readCell(42)?.value).toBe(42)
  })

  it('gives null for an empty cell and ignores unknown qualifiers', () => {
    expect(readCell({})).toBeNull()
    expect(readCell(null)).toBeNull()
    expect(readCell({ value: 3, modifier: '~' })?.qualifier).toBeNull()
    expect(readCell({ value: 3, modifier: '≥' })?.qualifier).toBe('>')
  })
})

describe('showing a cell', () => {
  it('writes the qualifier before the value at the protocol precision', () => {
    const cell = readCell({ value: 0.12345, modifier: '>' })!
    expect(formatCellValue(cell, { precision: 3 })).toBe('> 0.123')
    expect(formatCellValue(readCell({ value: 47.66 })!, {})).toBe('47.66')
    expect(formatCellValue(readCell({ note: 'n/a' })!)).toBe('')
  })

  it('describes the marks in words for screen readers', () => {
    const cell = readCell({ value: 47.7, outlier: true, note: 'pipetting error' })!
    expect(describeCell(cell, { precision: 1, unit: '%' })).toBe(
      '47.7 %, outlier, note: pipetting error',
    )
    expect(describeCell(readCell({ note: 'precipitated' })!)).toBe('no value, note: precipitated')
  })

  it('sorts by the value', () => {
    expect(cellSortValue(readCell({ value: 5, modifier: '<' }))).toBe(5)
    expect(cellSortValue(null)).toBeNull()
  })
})
