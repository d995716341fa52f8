import { describe, expect, it } from 'vitest'
import { layoutPoints, noValue, type PlotColumn } from './point-layout.ts'

const column = (label: string, values: (number | null)[], extra: Partial<PlotColumn> = {}) => ({
  label,
  values,
  ...extra,
})

describe('point layout', () => {
  const ids = [11, 12, 13, 14, 15, 16, 17]
  const x = column('MW', [300, null, 250, -1, 400, 0, 350])
  const y = column('IC50', [10, 5, null, 3, 0, 20, 1], {
    modifiers: [null, null, null, '>', null, null, '<'],
  })

  it('counts the rows it leaves out by their first reason', () => {
    const linear = layoutPoints({ ids, x, y }, { x: 'linear', y: 'linear' })
    expect(linear.count).toBe(5)
    expect(linear.leftOut).toEqual({ missingX: 1, missingY: 1, nonPositiveX: 0, nonPositiveY: 0 })
    const log = layoutPoints({ ids, x, y }, { x: 'log', y: 'log' })
    // -1 and 0 on x first; then 0 on y (row 15, x = 400).
    expect(log.leftOut).toEqual({ missingX: 1, missingY: 1, nonPositiveX: 2, nonPositiveY: 1 })
    expect(log.count).toBe(2)
    expect([...log.rows].map((row) => ids[row]).sort()).toEqual([11, 17])
  })

  it('keeps rows, coordinates and flags of each point together in grid order', () => {
    const layout = layoutPoints({ ids, x, y }, { x: 'linear', y: 'linear' })
    for (let position = 0; position < layout.count; position += 1) {
      const row = layout.rows[position]!
      expect(layout.xScale!.fromUnit(layout.u[position]!)).toBeCloseTo(x.values[row]!, 9)
      expect(layout.yScale!.fromUnit(layout.v[position]!)).toBeCloseTo(y.values[row]!, 9)
      expect(layout.qualified[position]).toBe(y.modifiers![row] ? 1 : 0)
    }
    expect(layout.qualifiedCount).toBe(2)
    expect(layout.grid.order.length).toBe(layout.count)
  })

  it('places colour and size along their scales, with no value apart', () => {
    const colour = column('TPSA', [0, 50, 100, 100, null, 25, 75])
    const layout = layoutPoints(
      { ids, x, y, colour },
      { x: 'linear', y: 'linear', colour: 'linear' },
    )
    const byRow = new Map([...layout.rows].map((row, position) => [row, layout.colour![position]]))
    expect(byRow.get(0)).toBe(0)
    expect(byRow.get(6)).toBe(191)
    expect(byRow.get(4)).toBe(noValue)
    expect(layout.colourMissing).toBe(1)
    const logColour = layoutPoints(
      { ids, x, y, colour },
      { x: 'linear', y: 'linear', colour: 'log' },
    )
    // 0 has no place on a log colour scale: drawn as "no value".
    expect(logColour.colourMissing).toBe(2)
    expect(layout.size).toBeNull()
  })

  it('says which column does not fit, and plots nothing without values', () => {
    expect(() =>
      layoutPoints({ ids, x: column('MW', [1, 2]), y }, { x: 'linear', y: 'linear' }),
    ).toThrow('The x column "MW" has 2 values for 7 points.')
    const empty = layoutPoints(
      { ids: [1, 2], x: column('a', [null, null]), y: column('b', [1, 2]) },
      { x: 'linear', y: 'linear' },
    )
    expect(empty.count).toBe(0)
    expect(empty.xScale).toBeNull()
    expect(empty.leftOut.missingX).toBe(2)
  })
})
