import { describe, expect, it } from 'vitest'
import { EQUATION_TYPES, curveFrom, sampleCurve, type Curve } from './equations.ts'

function curve(equationType: string, parameters: Record<string, unknown>): Curve {
  const reading = curveFrom(equationType, parameters)
  if (!reading.ok) throw new Error(reading.reason)
  return reading.curve
}

describe('the six equations', () => {
  it('evaluates Hill, rising and falling, with its limits at zero concentration', () => {
    const rising = curve('Hill', { min: 0, max: 100, slope: 1, ic50: 1 })
    // 100 / (1 + (1 / 1)^1) = 50; at 3: 100 / (1 + 1/3) = 75.
    expect(rising.at(1)).toBeCloseTo(50, 12)
    expect(rising.at(3)).toBeCloseTo(75, 12)
    expect(rising.at(0)).toBe(0)
    const falling = curve('Hill', { min: 0, max: 100, slope: -1, ic50: 1 })
    // 100 / (1 + 3^-1... ) with (ic50 / x)^slope = (1/3)^-1 = 3: 100 / 4 = 25.
    expect(falling.at(3)).toBeCloseTo(25, 12)
    expect(falling.at(0)).toBe(100)
    expect(rising.at(-1)).toBeNull()
  })

  it('evaluates Biphasic and Bell Curve', () => {
    const parameters = { center1: 0.1, center2: 10, slope1: 1, slope2: 1 }
    // At x = 1: S1 = 1 / (1 + 0.1) = 0.909091, S2 = 1 / (1 + 10) = 0.090909.
    // Biphasic: 0 + 100 · (0.5 · 0.909091 + 0.5 · 0.090909) = 50.
    expect(
      curve('Biphasic', { ...parameters, frac: 0.5, plateau1: 0, plateau2: 100 }).at(1),
    ).toBeCloseTo(50, 10)
    // Bell: 0 + (100 - 0) · 0.909091 + (20 - 100) · 0.090909 = 90.9091 - 7.27273 = 83.6364.
    expect(
      curve('Bell Curve', { ...parameters, plateau1: 0, peak: 100, plateau2: 20 }).at(1),
    ).toBeCloseTo(83.63636, 4)
  })

  it('evaluates Linear, Exponential Decay and Michaelis-Menten', () => {
    expect(curve('Linear', { slope: 2, y_intercept: 1 }).at(3)).toBe(7)
    // 10 + (100 - 10) · e^(-0.5 · 2) = 10 + 90 / e = 43.1091.
    expect(curve('Exponential Decay', { c_0: 100, c_min: 10, k: 0.5 }).at(2)).toBeCloseTo(
      43.10915,
      4,
    )
    const binding = curve('Michaelis-Menten', { b_max: 10, k_d: 2 })
    // 10 · 2 / (2 + 2) = 5; 10 · 6 / 8 = 7.5; 0 at zero.
    expect(binding.at(2)).toBe(5)
    expect(binding.at(6)).toBe(7.5)
    expect(binding.at(0)).toBe(0)
  })

  it('knows all six types of the specification', () => {
    expect(EQUATION_TYPES).toEqual([
      'Hill',
      'Biphasic',
      'Bell Curve',
      'Linear',
      'Exponential Decay',
      'Michaelis-Menten',
    ])
  })
})

describe('curveFrom', () => {
  it('reads numeric strings, as the vault may send them', () => {
    expect(curve('Linear', { slope: '2', y_intercept: '1.5' }).at(1)).toBe(3.5)
  })

  it('names every missing or unusable parameter', () => {
    const reading = curveFrom('Hill', { min: 0, max: 'abc', ic50: -1 })
    expect(reading).toEqual({
      ok: false,
      reason:
        'cannot draw the Hill curve: "max" "abc" is not a finite number; "slope" is missing; ' +
        '"ic50" must be a positive concentration, not -1',
    })
    expect(
      curveFrom('Biphasic', {
        center1: 1,
        center2: 2,
        frac: 1.5,
        plateau1: 0,
        plateau2: 1,
        slope1: 1,
        slope2: 1,
      }),
    ).toMatchObject({
      ok: false,
      reason: expect.stringContaining('"frac" must lie between 0 and 1, not 1.5'),
    })
  })

  it('refuses unknown equation types and parameters that are not an object', () => {
    expect(curveFrom('Sigmoid', {})).toMatchObject({
      ok: false,
      reason: expect.stringContaining('unknown equation type "Sigmoid"'),
    })
    expect(curveFrom('Linear', null)).toEqual({
      ok: false,
      reason: 'Linear parameters must be an object keyed by name',
    })
  })

  it('never answers NaN: an overflowing response is null', () => {
    expect(curve('Exponential Decay', { c_0: 1, c_min: 0, k: -1000 }).at(1000)).toBeNull()
  })
})

describe('sampleCurve', () => {
  it('spaces sigmoid curves evenly in log concentration, including both ends', () => {
    const points = sampleCurve(curve('Hill', { min: 0, max: 100, slope: 1, ic50: 1 }), 0.01, 100, 5)
    expect(points.map((point) => point.x)).toEqual(
      [0.01, 0.1, 1, 10, 100].map((x) => expect.closeTo(x, 12)),
    )
    expect(points[2]!.y).toBeCloseTo(50, 10)
  })

  it('spaces the others linearly, and draws nothing on a log axis that reaches zero', () => {
    const line = curve('Linear', { slope: 1, y_intercept: 0 })
    expect(sampleCurve(line, 0, 10, 3).map((point) => point.x)).toEqual([0, 5, 10])
    expect(sampleCurve(curve('Hill', { min: 0, max: 1, slope: 1, ic50: 1 }), 0, 10)).toEqual([])
  })
})
