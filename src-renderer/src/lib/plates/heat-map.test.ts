import { describe, expect, it } from 'vitest'
import type { PlateWellValue } from '../../../../src-common/plates/well-columns.ts'
import { wellColumns } from '../../../../src-common/plates/well-columns.ts'
import { pixelColour } from '../plots/colours.ts'
import {
  heatGeometry,
  heatGrid,
  heatValue,
  scaledNumbers,
  targetAt,
  wellPixels,
} from './heat-map.ts'
import { heatScale } from './heat-scale.ts'

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

  it('write each coloured well as a block of whole device pixels, gaps and empty wells clear', () => {
    // A 1536-well plate: every well has a number but F07 (empty) and B02 (text).
    const values = []
    for (let row = 1; row <= 32; row += 1) {
      for (let column = 1; column <= 48; column += 1) {
        const label = `${row > 26 ? 'A' + String.fromCharCode(64 + row - 26) : String.fromCharCode(64 + row)}${String(column).padStart(2, '0')}`
        if (label === 'F07') values.push(value(label, null))
        else if (label === 'B02')
          values.push({ ...value(label, null), kind: 'text' as const, text: 'ND' })
        else values.push(value(label, row * 100 + column))
      }
    }
    const grid = heatGrid(1536, wellColumns(values))
    const scale = heatScale(scaledNumbers(grid.values), 'sequential')!
    const geometry = heatGeometry(32, 48)
    const { cell, gap, axis } = geometry
    const pitch = cell + gap
    for (const ratio of [1, 2, 1.5]) {
      const wells = wellPixels(grid, scale, geometry, ratio)
      const words = new Uint32Array(wells.data.buffer)
      const word = (x: number, y: number) => words[(y - wells.top) * wells.width + x - wells.left]!
      const at = (cssX: number, cssY: number) =>
        word(Math.floor(cssX * ratio), Math.floor(cssY * ratio))
      expect([wells.left, wells.top]).toEqual([Math.round(axis * ratio), Math.round(axis * ratio)])
      expect(wells.width).toBe(Math.round((axis + 48 * pitch) * ratio) - wells.left)
      let coloured = 0
      for (const word of words) if (word !== 0) coloured += 1
      // Each well spans its rounded device edges: at ratio 1.5 the 12-pixel wells are 18 wide.
      expect(coloured).toBe((32 * 48 - 2) * Math.round(cell * ratio) ** 2)
      for (const [row, column] of [
        [1, 1],
        [17, 30],
        [32, 48],
      ] as const) {
        const x = axis + (column - 1) * pitch
        const y = axis + (row - 1) * pitch
        const expected = scale.rgb(row * 100 + column)
        expect(pixelColour(at(x + cell / 2, y + cell / 2))).toEqual(expected)
        // Its first and last device pixels: its CSS edges rounded.
        const [first, last] = [Math.round(x * ratio), Math.round((x + cell) * ratio) - 1]
        const [top, bottom] = [Math.round(y * ratio), Math.round((y + cell) * ratio) - 1]
        expect(pixelColour(word(first, top))).toEqual(expected)
        expect(pixelColour(word(last, bottom))).toEqual(expected)
        if (column < 48) expect(word(last + 1, bottom)).toBe(0)
        // The gap after the well.
        if (column < 48) expect(at(x + cell + gap / 2, y + cell / 2)).toBe(0)
      }
      expect(at(axis + 6 * pitch + cell / 2, axis + 5 * pitch + cell / 2)).toBe(0)
      expect(at(axis + pitch + cell / 2, axis + pitch + cell / 2)).toBe(0)
    }
  })
})
