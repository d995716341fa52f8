import { describe, expect, it } from 'vitest'
import { concentrationUnit } from '../../lib/curves/concentration-units.ts'
import { seriesOf } from '../../lib/curves/series-fixture.ts'
import { sparklineGeometry, sparklineSize } from './sparkline.ts'

const micromolar = concentrationUnit('uM')

describe('a results row’s sparkline', () => {
  it('places a series’ points and curve inside the sparkline, the IC50 on its curve', () => {
    const geometry = sparklineGeometry([seriesOf()], micromolar)
    const [only] = geometry.series
    // The points a log axis can place: not the one at zero, nor the text response.
    expect(only!.points).toHaveLength(6)
    const inside = ([x, y]: [number, number]) =>
      x >= 0 && x <= sparklineSize.width && y >= 0 && y <= sparklineSize.height
    for (const point of only!.points) expect(inside([point.x, point.y])).toBe(true)
    expect(only!.points.map((point) => point.style)).toEqual([
      'used',
      'used',
      'outlier',
      'outlier',
      'excluded',
      'used',
    ])
    expect(only!.curve.flat().every(inside)).toBe(true)
    // A falling curve: higher responses at low concentrations are nearer the top.
    const curve = only!.curve.flat()
    expect(curve[0]![1]).toBeLessThan(curve.at(-1)![1])
    // Left to right by log concentration: 0.01 and 10 µM are three decades apart.
    const x = only!.points.map((point) => point.x)
    const perDecade = (x[5]! - x[0]!) / 3
    expect(x[1]! - x[0]!).toBeCloseTo(perDecade, 6)
    // The IC50 (0.35 µM) sits on the curve, half way between its plateaus.
    const mark = geometry.potency!
    expect(mark.x - x[0]!).toBeCloseTo(perDecade * Math.log10(0.35 / 0.01), 6)
  })

  it('overlays several series on one axis, the main one drawn last and in full', () => {
    const wide = seriesOf({
      id: 8,
      points: seriesOf().points.map((point) =>
        point.concentration === null
          ? point
          : { ...point, concentration: point.concentration * 100 },
      ),
    })
    const geometry = sparklineGeometry([seriesOf(), wide], micromolar)
    expect(geometry.series.map((series) => [series.id, series.main])).toEqual([
      [8, false],
      [7, true],
    ])
    // The axis takes in both: the other series' highest concentration is at the right.
    const right = Math.max(...geometry.series.flatMap((series) => series.points.map((p) => p.x)))
    expect(right).toBeGreaterThan(sparklineSize.width * 0.8)
    expect(geometry.series[0]!.points.every((point) => point.x <= sparklineSize.width)).toBe(true)
  })

  it('draws the points alone when no curve is drawn', () => {
    const geometry = sparklineGeometry([seriesOf({ drawn: null })], micromolar)
    expect(geometry.series[0]!.curve).toEqual([])
    expect(geometry.potency).toBeNull()
    expect(geometry.series[0]!.points.length).toBeGreaterThan(0)
  })
})
