import { describe, expect, it } from 'vitest'
import {
  parseWellPosition,
  plateDimensions,
  plateWells,
  rowLabel,
  wellPosition,
  wellState,
} from './plate-layout.ts'

describe('well labels', () => {
  it('labels rows A to Z and then AA, AB …', () => {
    expect([1, 16, 26, 27, 32].map(rowLabel)).toEqual(['A', 'P', 'Z', 'AA', 'AF'])
    expect(wellPosition(1, 3)).toBe('A03')
    expect(wellPosition(32, 48)).toBe('AF48')
  })

  it('reads positions back, leniently, and refuses what is not one', () => {
    expect(parseWellPosition('A01')).toEqual({ row: 1, column: 1 })
    expect(parseWellPosition('p24')).toEqual({ row: 16, column: 24 })
    expect(parseWellPosition('AF48')).toEqual({ row: 32, column: 48 })
    expect(parseWellPosition('B7')).toEqual({ row: 2, column: 7 })
    expect(parseWellPosition('A00')).toBeNull()
    expect(parseWellPosition('12')).toBeNull()
    expect(parseWellPosition('')).toBeNull()
  })
})

describe('plateDimensions', () => {
  it('uses the standard format of a known size', () => {
    expect(plateDimensions(96, [])).toEqual({ rows: 8, columns: 12 })
    expect(plateDimensions(384, [])).toEqual({ rows: 16, columns: 24 })
    expect(plateDimensions(1536, [])).toEqual({ rows: 32, columns: 48 })
  })

  it('grows to fit wells beyond the size, and fits the wells when the size is unknown', () => {
    expect(plateDimensions(96, [{ row: 10, column: 2 }])).toEqual({ rows: 10, columns: 12 })
    expect(plateDimensions(null, [{ row: 3, column: 5 }])).toEqual({ rows: 3, columns: 5 })
    expect(plateDimensions(null, [])).toEqual({ rows: 8, columns: 12 })
  })
})

describe('plateWells', () => {
  it('lays out every well and merges what each holds', () => {
    const grid = plateWells(96, [
      { row: 1, column: 3, batchId: 1992 },
      { row: 1, column: 1, control: '-' },
      { row: 1, column: 3, control: null, sampleId: 7 },
      { row: 2, column: 2, control: '#' },
    ])
    expect(grid).toHaveLength(8)
    expect(grid[0]).toHaveLength(12)
    expect(grid[0]![2]).toEqual({
      row: 1,
      column: 3,
      position: 'A03',
      batchId: 1992,
      sampleId: 7,
      control: null,
    })
    expect(wellState(grid[0]![0]!)).toBe('negative')
    expect(wellState(grid[1]![1]!)).toBe('reference')
    expect(wellState(grid[0]![2]!)).toBe('sample')
    expect(wellState(grid[7]![11]!)).toBe('empty')
  })

  it('ignores wells with impossible coordinates', () => {
    const grid = plateWells(6, [
      { row: 0, column: 1, batchId: 1 },
      { row: 1.5, column: 1, batchId: 2 },
    ])
    expect(grid.flat().every((well) => well.batchId === null)).toBe(true)
  })

  it('refuses a grid too large to be a plate', () => {
    expect(() => plateWells(null, [{ row: 999, column: 999 }])).toThrow(/larger than Vault Desk/)
  })
})
