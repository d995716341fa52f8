import { describe, expect, it } from 'vitest'
import { curveFrom, EQUATION_TYPES } from '../../../../src-common/analysis/dose-response/index.ts'
import { concentrationUnit } from './concentration-units.ts'
import {
  concentrationTicks,
  largePanel,
  logDomainOf,
  panelGeometry,
  potencyOf,
  responseDomainOf,
  sampleAlongAxis,
  smallPanel,
  type PanelPoint,
} from './curve-plot.ts'
import { seriesOf } from './series-fixture.ts'

const micromolar = concentrationUnit('uM')

/** Example parameters for each equation type, inside its domain. */
const examples: Record<string, Record<string, number>> = {
  Hill: { min: 2, max: 98, slope: -1.2, ic50: 0.35 },
  Biphasic: {
    center1: 0.05,
    center2: 5,
    frac: 0.4,
    plateau1: 0,
    plateau2: 100,
    slope1: 1,
    slope2: 1.5,
  },
  'Bell Curve': {
    plateau1: 0,
    center1: 0.1,
    slope1: 1,
    peak: 90,
    center2: 10,
    slope2: 1,
    plateau2: 10,
  },
  Linear: { slope: 3, y_intercept: 1 },
  'Exponential Decay': { c_0: 100, c_min: 5, k: 0.4 },
  'Michaelis-Menten': { b_max: 120, k_d: 2 },
}

/** The panel's pixels back in data units: x as log10 concentration, y as response. */
function dataOf(geometry: ReturnType<typeof panelGeometry>, x: number, y: number) {
  const { plot, logDomain, responseDomain } = geometry
  return {
    log:
      logDomain[0] + ((x - plot.left) / (plot.right - plot.left)) * (logDomain[1] - logDomain[0]),
    response:
      responseDomain[0] +
      ((plot.bottom - y) / (plot.bottom - plot.top)) * (responseDomain[1] - responseDomain[0]),
  }
}

describe('sampling a curve along the log axis', () => {
  it.each(EQUATION_TYPES)('gives the evaluator’s value at every sample (%s)', (equationType) => {
    const reading = curveFrom(equationType, examples[equationType])
    expect(reading.ok).toBe(true)
    if (!reading.ok) return
    const segments = sampleAlongAxis(reading.curve, -3, 2, 60)
    expect(segments).toHaveLength(1)
    const samples = segments[0]!
    expect(samples).toHaveLength(60)
    expect(samples[0]!.x).toBeCloseTo(1e-3, 15)
    expect(samples.at(-1)!.x).toBeCloseTo(100, 9)
    for (const [index, sample] of samples.entries()) {
      // Evenly spaced in log10 concentration, whatever the equation.
      expect(Math.log10(sample.x)).toBeCloseTo(-3 + (5 * index) / 59, 12)
      expect(sample.y).toBe(reading.curve.at(sample.x))
    }
  })

  it('agrees with the Hill equation written out by hand', () => {
    const { min, max, slope, ic50 } = examples.Hill as Record<string, number>
    const reading = curveFrom('Hill', examples.Hill)
    if (!reading.ok) throw new Error(reading.reason)
    for (const sample of sampleAlongAxis(reading.curve, -4, 3, 40)[0]!) {
      const expected = min! + (max! - min!) / (1 + (ic50! / sample.x) ** slope!)
      expect(sample.y).toBeCloseTo(expected, 9)
    }
  })

  it('breaks the curve where it is undefined instead of joining across', () => {
    const reading = curveFrom('Exponential Decay', { c_0: 1, c_min: 0, k: -800 })
    if (!reading.ok) throw new Error(reading.reason)
    // exp(800 x) overflows beyond x ≈ 0.89: the samples past it are left out.
    const segments = sampleAlongAxis(reading.curve, -2, 1, 31)
    expect(segments).toHaveLength(1)
    expect(segments[0]!.at(-1)!.x).toBeLessThan(1)
    expect(segments[0]!.every((sample) => Number.isFinite(sample.y))).toBe(true)
  })
})

describe('the axes', () => {
  it('spans the tested concentrations padded by a quarter decade', () => {
    expect(logDomainOf([0.01, 0.1, 1, 10], null, micromolar)).toEqual([-2.25, 1.25])
    // Zero and negative concentrations have no place on the axis.
    expect(logDomainOf([0, -1, 0.1, 1], null, micromolar)).toEqual([-1.25, 0.25])
    expect(logDomainOf([3, 3], null, micromolar)).toEqual([Math.log10(3) - 1, Math.log10(3) + 1])
    // Without any: 1 nM to 100 µM in the readout's unit.
    expect(logDomainOf([], null, micromolar)).toEqual([-3, 2])
    expect(logDomainOf([], null, concentrationUnit('nM'))).toEqual([0, 5])
  })

  it('takes in a potency interval near the tested range, not one far from it', () => {
    const [low, high] = logDomainOf([0.1, 1], { value: 0.05, low: 0.02, high: 0.2 }, micromolar)
    expect(low).toBeCloseTo(Math.log10(0.02) - 0.25, 12)
    expect(high).toBeCloseTo(0.25, 12)
    expect(logDomainOf([0.1, 1], { value: 1e-6, low: 1e-8, high: 1e-4 }, micromolar)).toEqual([
      -1.25, 0.25,
    ])
  })

  it('labels concentration ticks in readable molar units', () => {
    const ticks = concentrationTicks([-3.25, 1.5], micromolar, 6)
    expect(ticks.map((tick) => tick.label)).toEqual(['1 nM', '10 nM', '100 nM', '1 µM', '10 µM'])
    expect(ticks.map((tick) => tick.value)).toEqual([0.001, 0.01, 0.1, 1, 10])
    const other = concentrationTicks([-1.1, 1.1], concentrationUnit('mg/mL'), 6)
    expect(other.map((tick) => tick.label)).toEqual(['0.1', '1', '10'])
  })

  it('keeps the response axis on the points when the curve’s plateau runs far away', () => {
    expect(responseDomainOf([0, 100], [])).toEqual([-6, 106])
    const [low, high] = responseDomainOf([0, 100], [-20, 50, 110, 5000])
    expect(low).toBeCloseTo(-20 - 130 * 0.06, 9)
    expect(high).toBeCloseTo(110 + 130 * 0.06, 9)
    // Equal responses still get a range.
    const [flatLow, flatHigh] = responseDomainOf([5, 5], [])
    expect(flatLow).toBeLessThan(5)
    expect(flatHigh).toBeGreaterThan(5)
    expect(responseDomainOf([], [])).toEqual([0, 1])
  })
})

describe('a panel’s geometry', () => {
  it('places the points and the curve where their values are', () => {
    const series = seriesOf()
    const geometry = panelGeometry(series, micromolar, largePanel)
    const reading = curveFrom('Hill', series.drawn!.parameters)
    if (!reading.ok) throw new Error(reading.reason)
    for (const placed of geometry.points) {
      const back = dataOf(geometry, placed.x, placed.y)
      expect(back.log).toBeCloseTo(Math.log10(placed.point.concentration!), 9)
      expect(back.response).toBeCloseTo(placed.point.response!, 9)
    }
    // Every vertex of the path lies on the curve (to the path's 0.01 px rounding).
    const vertices = [...geometry.path!.matchAll(/[ML]([-\d.]+),([-\d.]+)/g)]
    expect(vertices).toHaveLength(120)
    const pixelsPerUnit =
      (geometry.plot.bottom - geometry.plot.top) /
      (geometry.responseDomain[1] - geometry.responseDomain[0])
    for (const [, x, y] of vertices) {
      const back = dataOf(geometry, Number(x), Number(y))
      expect(Math.abs(back.response - reading.curve.at(10 ** back.log)!)).toBeLessThan(
        0.02 / pixelsPerUnit + 0.05,
      )
    }
  })

  it('draws outliers and left-out points apart, and pending marks as pending', () => {
    const series = seriesOf()
    const styles = panelGeometry(series, micromolar, smallPanel).points.map((placed) => [
      placed.point.rowId,
      placed.style,
      placed.pending,
    ])
    expect(styles).toContainEqual([3, 'outlier', false])
    expect(styles).toContainEqual([4, 'outlier', true])
    expect(styles).toContainEqual([5, 'excluded', false])
    expect(styles).toContainEqual([1, 'used', false])
  })

  it('counts points the log axis cannot place instead of dropping them silently', () => {
    const geometry = panelGeometry(seriesOf(), micromolar, largePanel)
    expect(geometry.unplaced.map((point: PanelPoint) => point.rowId)).toEqual([9])
  })

  it('marks the potency on the curve with its interval', () => {
    const series = seriesOf()
    const geometry = panelGeometry(series, micromolar, largePanel)
    const mark = geometry.potency!
    expect(dataOf(geometry, mark.x, mark.y).log).toBeCloseTo(Math.log10(0.35), 9)
    expect(dataOf(geometry, mark.x, mark.y).response).toBeCloseTo(50, 9)
    expect(dataOf(geometry, mark.low!, 0).log).toBeCloseTo(Math.log10(0.2), 9)
    expect(dataOf(geometry, mark.high!, 0).log).toBeCloseTo(Math.log10(0.6), 9)
    expect(potencyOf({ ...series, drawn: null })).toBeNull()
  })

  it('draws the points alone when there is no curve', () => {
    const geometry = panelGeometry({ ...seriesOf(), drawn: null }, micromolar, smallPanel)
    expect(geometry.path).toBeNull()
    expect(geometry.potency).toBeNull()
    expect(geometry.points.length).toBeGreaterThan(0)
  })
})
