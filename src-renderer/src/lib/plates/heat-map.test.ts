import { describe, expect, it } from 'vitest'
import type { PlateWellValue } from '../../../../src-common/plates/well-columns.ts'
import { wellColumns } from '../../../../src-common/plates/well-columns.ts'
import { heatGeometry, heatGrid, heatValue, scaledNumbers, targetAt } from './heat-map.ts'

function value(well: string | null, number: number | null = 1): PlateWellValue {
  return {
    rowId: 1,
    well,
    batchId: null,
    moleculeId: null,
    controlState: null,
    kind: number === null ? 'empty' : 'number',
    number,
    modifier: null,
    text: null,
    outlier: false,
    note: null,
    pending: null,
    group: 'samples',
    deviation: null,
    level: 0,
    excluded: null,
  }
}

describe('heat map grids', () => {
  it('lay values on the standard format of the plate’s size', () => {
    for (const [size, rows, columns, last] of [
      [96, 8, 12, 'H12'],
      [384, 16, 24, 'P24'],
      [1536, 32, 48, 'AF48'],
    ] as const) {
      const grid = heatGrid(size, wellColumns([value('A01', 5), value(last, 7)]))
      expect([grid.rows, grid.columns]).toEqual([rows, columns])
      expect(heatValue(grid, grid.wells[0]![0]!)?.number).toBe(5)
      expect(heatValue(grid, grid.wells[rows - 1]![columns - 1]!)?.number).toBe(7)
      expect(heatValue(grid, grid.wells[0]![1]!)).toBeNull()
    }
  })

  it('keeps a repeated well’s first value and counts the others; sets aside unreadable labels', () => {
    const grid = heatGrid(
      96,
      wellColumns([value('B02', 1), value('B2', 2), value('??'), value(null), value('ZZ999')]),
    )
    expect(grid.wells[1]![1]).toMatchObject({ position: 'B02', at: 0, repeats: 1 })
    expect(heatValue(grid, grid.wells[1]![1]!)?.number).toBe(1)
    expect(grid.unplaced).toEqual([2, 3, 4])
    expect([grid.rows, grid.columns]).toEqual([8, 12])
  })

  it('scale over the numbers the statistics use: no outliers, text or empty wells', () => {
    const values = wellColumns([
      value('A01', 5),
      { ...value('A02', 900), outlier: true },
      value('A03', null),
      { ...value('A04', null), kind: 'text', text: 'n/a' },
      { ...value('A05', 30), modifier: '>' },
    ])
    expect(scaledNumbers(values)).toEqual([5, 30])
  })

  it('find the well or mean strip under a point', () => {
    const geometry = heatGeometry(8, 12)
    const pitch = geometry.cell + geometry.gap
    expect(targetAt(geometry, 8, 12, geometry.axis + 1, geometry.axis + 1)).toEqual({
      kind: 'well',
      row: 1,
      column: 1,
    })
    expect(
      targetAt(geometry, 8, 12, geometry.axis + pitch * 11 + 2, geometry.axis + pitch * 7 + 2),
    ).toEqual({
      kind: 'well',
      row: 8,
      column: 12,
    })
    const stripX = geometry.axis + 12 * pitch + geometry.stripGap + 1
    expect(targetAt(geometry, 8, 12, stripX, geometry.axis + pitch * 2 + 1)).toEqual({
      kind: 'row mean',
      row: 3,
    })
    const stripY = geometry.axis + 8 * pitch + geometry.stripGap + 1
    expect(targetAt(geometry, 8, 12, geometry.axis + 1, stripY)).toEqual({
      kind: 'column mean',
      column: 1,
    })
    expect(targetAt(geometry, 8, 12, 1, 1)).toBeNull()
    expect(heatGeometry(32, 48, { thumbnail: true })).toMatchObject({ strips: false, axis: 0 })
  })
})
