import { describe, expect, it } from 'vitest'
import { fitDoseResponse, FitError } from './dose-response-fit.ts'
import { DOSE_RESPONSE_MODELS, type CurvePoint, type EquationType } from './dose-response-models.ts'
import { Random } from '../core/random.ts'

/** Eight half-log concentrations from 1 nM to 3 µM (in molar), in triplicate. */
const concentrations = Array.from({ length: 8 }, (_, i) => 1e-9 * Math.pow(10, i / 2))

function simulate(
  equationType: EquationType,
  parameters: Record<string, number>,
  noise: number,
  xs: readonly number[] = concentrations,
): CurvePoint[] {
  const random = new Random(2024)
  const model = DOSE_RESPONSE_MODELS[equationType]
  return xs.flatMap((x) =>
    [0, 1, 2].map(() => ({ x, y: model.evaluate(x, parameters) + random.gaussian(0, noise) })),
  )
}

describe('fitDoseResponse: Hill', () => {
  const truth = { min: 5, max: 95, slope: -1.2, ic50: 5e-8 }

  it('recovers the parameters of a noisy inhibition curve', () => {
    const fit = fitDoseResponse('Hill', simulate('Hill', truth, 2))
    expect(fit.parameters['ic50']! / truth.ic50).toBeGreaterThan(0.8)
    expect(fit.parameters['ic50']! / truth.ic50).toBeLessThan(1.25)
    expect(fit.parameters['slope']).toBeCloseTo(-1.2, 0)
    expect(fit.parameters['min']).toBeCloseTo(5, -1)
    expect(fit.parameters['max']).toBeCloseTo(95, -1)
    expect(fit.rSquared).toBeGreaterThan(0.98)
    expect(fit.pointsUsed).toBe(24)
    expect(fit.converged).toBe(true)
  })

  it('keeps a fixed parameter exactly and fits the rest', () => {
    const fit = fitDoseResponse('Hill', simulate('Hill', truth, 2), {
      slope: { modifier: '=', value: -1 },
    })
    expect(fit.parameters['slope']).toBe(-1)
    expect(fit.parameters['ic50']! / truth.ic50).toBeGreaterThan(0.6)
    expect(fit.parameters['ic50']! / truth.ic50).toBeLessThan(1.6)
  })

  it('holds parameters inside ranges and one-sided bounds that bind', () => {
    const fit = fitDoseResponse('Hill', simulate('Hill', truth, 2), {
      max: { modifier: 'from', range: { min: 80, max: 85 } },
      min: { modifier: '>=', value: 10 },
    })
    expect(fit.parameters['max']).toBeCloseTo(85, 6)
    expect(fit.parameters['min']).toBeCloseTo(10, 6)
    const strict = fitDoseResponse('Hill', simulate('Hill', truth, 2), {
      slope: { modifier: '<', value: -1.5 },
    })
    expect(strict.parameters['slope']).toBeLessThan(-1.5)
    expect(strict.parameters['slope']).toBeCloseTo(-1.5, 6)
  })

  it('keeps the swapped plateaus when a constraint forbids the conventional min below max', () => {
    const fit = fitDoseResponse('Hill', simulate('Hill', truth, 2), {
      max: { modifier: '<', value: 50 },
    })
    expect(fit.parameters['max']).toBeLessThan(50)
    expect(fit.parameters['min']).toBeCloseTo(95, -1)
    expect(fit.parameters['slope']).toBeGreaterThan(0)
    expect(fit.rSquared).toBeGreaterThan(0.98)
  })

  it('leaves flagged outliers out of the fit', () => {
    const points = simulate('Hill', truth, 1)
    const wild = points.map((point, index) =>
      index % 7 === 3 ? { ...point, y: point.y + 400, outlier: true } : point,
    )
    const withFlag = fitDoseResponse('Hill', wild)
    expect(withFlag.pointsUsed).toBe(points.length - 3)
    expect(withFlag.parameters['max']).toBeCloseTo(95, -1)
    const withoutFlag = fitDoseResponse(
      'Hill',
      wild.map(({ x, y }) => ({ x, y })),
    )
    expect(withoutFlag.sumOfSquares).toBeGreaterThan(withFlag.sumOfSquares * 100)
  })

  it('copes with a zero-concentration control point', () => {
    const points = [{ x: 0, y: 96 }, ...simulate('Hill', truth, 1)]
    const fit = fitDoseResponse('Hill', points)
    expect(fit.parameters['ic50']! / truth.ic50).toBeGreaterThan(0.8)
    expect(fit.parameters['ic50']! / truth.ic50).toBeLessThan(1.25)
  })
})

describe('fitDoseResponse: the other equations', () => {
  it('Linear is exact on a straight line', () => {
    const points = [1, 2, 3, 4].map((x) => ({ x, y: 3 * x - 2 }))
    const fit = fitDoseResponse('Linear', points)
    expect(fit.parameters['slope']).toBeCloseTo(3, 6)
    expect(fit.parameters['y_intercept']).toBeCloseTo(-2, 6)
    expect(fit.rSquared).toBeCloseTo(1, 9)
  })

  it('Michaelis-Menten recovers b_max and k_d', () => {
    const xs = [0.1, 0.3, 1, 3, 10, 30, 100]
    const fit = fitDoseResponse(
      'Michaelis-Menten',
      simulate('Michaelis-Menten', { b_max: 120, k_d: 4 }, 0.5, xs),
    )
    expect(fit.parameters['b_max']).toBeCloseTo(120, -1)
    expect(fit.parameters['k_d']).toBeCloseTo(4, 0)
  })

  it('Exponential Decay recovers its rate', () => {
    const xs = [0, 1, 2, 4, 8, 16, 32]
    const fit = fitDoseResponse(
      'Exponential Decay',
      simulate('Exponential Decay', { c_0: 100, c_min: 10, k: 0.2 }, 0.5, xs),
    )
    expect(fit.parameters['k']).toBeCloseTo(0.2, 1)
    expect(fit.parameters['c_min']).toBeCloseTo(10, -1)
  })

  it('Biphasic and Bell Curve fit their own shapes closely', () => {
    const wide = Array.from({ length: 13 }, (_, i) => 1e-10 * Math.pow(10, i / 2))
    const biphasic = {
      center1: 1e-9,
      center2: 1e-6,
      frac: 0.4,
      plateau1: 0,
      plateau2: 100,
      slope1: 1.5,
      slope2: 1.5,
    }
    const bell = {
      plateau1: 0,
      center1: 1e-8,
      slope1: 1.5,
      peak: 100,
      center2: 1e-6,
      slope2: 1.5,
      plateau2: 10,
    }
    for (const [type, truth] of [
      ['Biphasic', biphasic],
      ['Bell Curve', bell],
    ] as const) {
      const fit = fitDoseResponse(type, simulate(type, truth, 1, wide))
      expect(fit.rSquared, type).toBeGreaterThan(0.99)
    }
  })
})

describe('fitDoseResponse: errors', () => {
  it('needs at least as many usable points as free parameters', () => {
    const points = [
      { x: 1e-9, y: 90 },
      { x: 1e-8, y: 50 },
      { x: 1e-7, y: 10, outlier: true },
    ]
    expect(() => fitDoseResponse('Hill', points)).toThrow(
      new FitError(
        'Hill needs at least 4 points that are not outliers to fit 4 free parameters; 2 available',
      ),
    )
    const fit = fitDoseResponse('Hill', points, {
      min: { modifier: '=', value: 0 },
      max: { modifier: '=', value: 100 },
    })
    expect(fit.parameters['ic50']).toBeGreaterThan(1e-9)
    expect(fit.parameters['ic50']).toBeLessThan(1e-7)
  })

  it('reports constraints that leave no allowed value', () => {
    expect(() =>
      fitDoseResponse(
        'Michaelis-Menten',
        [
          { x: 1, y: 1 },
          { x: 2, y: 2 },
        ],
        {
          k_d: { modifier: '<', value: -1 },
        },
      ),
    ).toThrow('the constraints leave no allowed value for k_d')
  })
})
