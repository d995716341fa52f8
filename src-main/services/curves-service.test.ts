import { describe, expect, it } from 'vitest'
import type { CurveSeries } from '../store/curve-fits.ts'
import { rowCurves } from './curves-service.ts'

/** A series drawing a Hill curve of this IC50 (null: no curve). */
function series(id: number, ic50: number | null): CurveSeries {
  return {
    id,
    drawn:
      ic50 === null
        ? null
        : {
            source: 'local',
            equationType: 'Hill',
            parameters: { min: 0, max: 100, ic50, slope: 1 },
            stale: false,
          },
  } as CurveSeries
}

describe('a results row’s curves', () => {
  it('draws the series of the median IC50 first; of an even count the median is the geometric mean', () => {
    const odd = rowCurves(7, 1, [series(1, 9), series(2, 1), series(3, null), series(4, 3)])
    expect(odd.potency).toEqual({ median: 3, count: 3 })
    expect(odd.series.map((entry) => entry.id)).toEqual([4, 2, 1, 3])
    expect(odd.total).toBe(4)
    const even = rowCurves(7, 1, [series(1, 1), series(2, 4), series(3, 16), series(4, 64)])
    expect(even.potency!.median).toBeCloseTo(8, 12)
    expect(even.series[0]!.id).toBe(2)
  })

  it('sends a spread of many series, the extremes included, never more than the limit', () => {
    const many = Array.from({ length: 101 }, (_, index) => series(index + 1, 10 ** (index / 20)))
    const row = rowCurves(1, 1, many, 5)
    expect(row.total).toBe(101)
    expect(row.potency!.count).toBe(101)
    expect(row.series.map((entry) => entry.id)).toEqual([51, 1, 34, 68, 101])
  })

  it('without any IC50 draws the first series, and says there is no median', () => {
    const row = rowCurves(1, 1, [series(5, null), series(6, null)])
    expect(row.potency).toBeNull()
    expect(row.series.map((entry) => entry.id)).toEqual([5, 6])
  })
})
