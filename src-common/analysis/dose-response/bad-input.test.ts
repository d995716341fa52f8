/**
 * Every kind of bad input gets a result value with a reason: never a throw, never a NaN, never a
 * point dropped without saying so.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { fitDoseResponse, type DoseResponseFit } from './fit.ts'
import type { DoseResponsePointInput } from './points.ts'

const concentrations = [0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30]
const wobble = [
  0.8, -1.1, 0.3, 1.4, -0.6, -0.2, 0.9, -1.3, 0.5, -0.4, 1.1, -0.9, 0.2, 0.7, -0.5, -1,
]
/** A falling Hill curve (min 0, max 100, slope -1, IC50 1) in duplicate, with small errors. */
const goodPoints: DoseResponsePointInput[] = concentrations
  .flatMap((x) => [x, x])
  .map((x, index) => ({
    concentration: x,
    response: 100 / (1 + x) + wobble[index]!,
    key: `row ${index}`,
  }))

const results: DoseResponseFit[] = []
function fit(...args: Parameters<typeof fitDoseResponse>): DoseResponseFit {
  const result = fitDoseResponse(...args)
  results.push(result)
  return result
}

/** No number anywhere in a result is NaN (JSON would turn it into null unnoticed). */
function expectNoNaN(value: unknown, path = 'result'): void {
  if (typeof value === 'number') expect(Number.isNaN(value), path).toBe(false)
  else if (Array.isArray(value))
    value.forEach((item, index) => expectNoNaN(item, `${path}[${index}]`))
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) expectNoNaN(item, `${path}.${key}`)
  }
}

afterEach(() => {
  for (const result of results.splice(0)) {
    expectNoNaN(result)
    if (!result.converged) {
      expect(result.reason).toEqual(expect.any(String))
      expect(result.parameters).toBeNull()
    }
  }
})

describe('a good series, as the baseline the bad ones are compared with', () => {
  it('fits with every point used', () => {
    const result = fit('Hill', goodPoints)
    expect(result).toMatchObject({ fitted: true, converged: true, outcome: 'fitted', reason: null })
    expect(result.points).toMatchObject({ total: 16, used: 16, excluded: [] })
    expect(result.potency!.value).toBeGreaterThan(0.8)
    expect(result.potency!.value).toBeLessThan(1.25)
  })
})

describe('too little to fit', () => {
  it('refuses fewer usable points than free parameters, counting what was left out', () => {
    const points = [
      ...goodPoints.slice(0, 3),
      { concentration: 5, response: 50, outlier: true },
      { concentration: 5, response: 'n.d.' },
    ]
    const result = fit('Hill', points)
    expect(result).toMatchObject({ fitted: false, converged: false, outcome: 'too few points' })
    expect(result.reason).toBe(
      'Hill has 4 free parameters and needs at least 4 usable points; 3 are usable (left out: 1 outlier, 1 text)',
    )
  })

  it('counts only free parameters: fixing two lets three points fit', () => {
    const points = [0.1, 1, 10].map((x) => ({ concentration: x, response: 100 / (1 + x) }))
    const constraints = { min: { modifier: '=', value: 0 }, max: { modifier: '=', value: 100 } }
    const result = fit('Hill', points, { constraints })
    expect(result.converged).toBe(true)
    expect(result.statistics!.degreesOfFreedom).toBe(1)
    expect(result.potency!.value).toBeCloseTo(1, 6)
  })

  it('refuses fewer different concentrations than free parameters', () => {
    const points = [1, 1, 1, 10, 10, 10, 100, 100].map((x, index) => ({
      concentration: x,
      response: 100 / (1 + x / 10) + wobble[index]!,
    }))
    const result = fit('Hill', points)
    expect(result).toMatchObject({ outcome: 'too few concentrations', fitted: false })
    expect(result.reason).toContain(
      'needs at least 4 different concentrations; the usable points have 3',
    )
  })

  it('fits exactly as many points as parameters, with no standard errors or interval', () => {
    const points = [0.1, 1, 10, 100].map((x) => ({ concentration: x, response: 10 + 80 / (1 + x) }))
    const result = fit('Hill', points)
    expect(result.converged).toBe(true)
    expect(result.statistics).toMatchObject({
      n: 4,
      degreesOfFreedom: 0,
      residualStandardError: null,
      versusFlatLine: null,
    })
    expect(result.potency).toMatchObject({ confidenceInterval95: null, log10StandardError: null })
    expect(result.potency!.value).toBeCloseTo(1, 5)
    expect(
      Object.values(result.parameters!).every((estimate) => estimate.standardError === null),
    ).toBe(true)
  })
})

describe('responses that do not vary', () => {
  it('gives no Hill curve when all responses are equal', () => {
    const points = concentrations.map((x) => ({ concentration: x, response: 42 }))
    const result = fit('Hill', points)
    expect(result).toMatchObject({ outcome: 'all responses equal', fitted: false })
    expect(result.reason).toBe(
      'all 8 usable responses are equal (42): a flat line has no Hill curve',
    )
  })

  it('fits them with a flat Linear line whose R² is undefined', () => {
    const result = fit(
      'Linear',
      concentrations.map((x) => ({ concentration: x, response: 42 })),
    )
    expect(result.converged).toBe(true)
    expect(result.parameters!.slope!.value).toBeCloseTo(0, 12)
    expect(result.parameters!.y_intercept!.value).toBeCloseTo(42, 10)
    expect(result.statistics!.rSquared).toBeNull()
  })

  it("calls a series inactive within the calculation's minimum activity bounds", () => {
    const points = concentrations.map((x, index) => ({
      concentration: x,
      response: wobble[index]! * 5,
    }))
    const result = fit('Hill', points, { minimumActivity: { min: -15, max: 15 } })
    expect(result).toMatchObject({ outcome: 'inactive', fitted: false })
    expect(result.reason).toBe(
      'inactive: all 8 usable responses lie within the minimum activity bounds (-15 to 15)',
    )
    expect(fit('Hill', goodPoints, { minimumActivity: { min: -15, max: 15 } }).converged).toBe(true)
  })
})

describe('concentrations a log axis cannot show', () => {
  const withControls = [
    { concentration: 0, response: 101, key: 'control 1' },
    { concentration: 0, response: 99, key: 'control 2' },
    { concentration: -1, response: 50, key: 'typo' },
    ...goodPoints,
  ]

  it('leaves zero and negative concentrations out of a Hill fit, and says which', () => {
    const result = fit('Hill', withControls)
    expect(result.converged).toBe(true)
    expect(result.points.excluded).toEqual([
      { index: 0, key: 'control 1', reason: 'zero concentration' },
      { index: 1, key: 'control 2', reason: 'zero concentration' },
      { index: 2, key: 'typo', reason: 'negative concentration' },
    ])
    expect(result.points.excludedByReason).toEqual({
      'zero concentration': 2,
      'negative concentration': 1,
    })
    // Left out means left out: the same fit as without them.
    expect(result.potency!.value).toBeCloseTo(fit('Hill', goodPoints).potency!.value, 10)
  })

  it('uses dose-0 controls as the zero-concentration plateau when asked', () => {
    const result = fit('Hill', withControls, { zeroConcentration: 'plateau' })
    expect(result.points.zeroConcentrationUsed).toBe(2)
    expect(result.points.excludedByReason).toEqual({ 'negative concentration': 1 })
    expect(result.statistics!.n).toBe(18)
    // The controls at 100 pull the upper plateau towards them.
    expect(result.parameters!.max!.value).toBeGreaterThan(99)
  })

  it('keeps zero on a linear axis but never a negative concentration', () => {
    const result = fit('Linear', withControls)
    expect(result.points.excludedByReason).toEqual({ 'negative concentration': 1 })
    expect(result.points.used).toBe(18)
  })
})

describe('values that are not measurements', () => {
  const odd: DoseResponsePointInput[] = [
    { concentration: 1, response: Number.NaN, key: 'nan' },
    { concentration: Number.POSITIVE_INFINITY, response: 5, key: 'infinite' },
    { concentration: 1, response: 'Infinity', key: 'infinite text' },
    { concentration: 1, response: 'n.d.', key: 'text' },
    { concentration: 'high', response: 5, key: 'text concentration' },
    { concentration: 1, response: null, key: 'missing' },
    { concentration: undefined, response: 5, key: 'missing concentration' },
    { concentration: 1, response: '  ', key: 'blank' },
    { concentration: 30, response: '>30', key: 'qualified text' },
    { concentration: 30, response: 30, modifier: '>', key: 'qualified' },
    { concentration: 0.01, response: '<0.1', key: 'qualified below' },
    { concentration: 1, response: 50, outlier: true, key: 'outlier' },
    { concentration: 1, response: 50, outlier: 'true', key: 'outlier text' },
  ]

  it('leaves each out with its reason and fits the rest', () => {
    const result = fit('Hill', [...goodPoints, ...odd])
    expect(result.converged).toBe(true)
    expect(result.points.used).toBe(16)
    expect(
      Object.fromEntries(result.points.excluded.map((point) => [point.key, point.reason])),
    ).toEqual({
      nan: 'non-finite',
      infinite: 'non-finite',
      'infinite text': 'non-finite',
      text: 'text',
      'text concentration': 'text',
      missing: 'missing',
      'missing concentration': 'missing',
      blank: 'missing',
      'qualified text': 'qualified',
      qualified: 'qualified',
      'qualified below': 'qualified',
      outlier: 'outlier',
      'outlier text': 'outlier',
    })
    expect(result.points.excludedByReason).toEqual({
      'non-finite': 3,
      text: 2,
      missing: 3,
      qualified: 3,
      outlier: 2,
    })
    expect(result.potency!.value).toBeCloseTo(fit('Hill', goodPoints).potency!.value, 10)
  })

  it('reads numeric strings and an "=" modifier as measurements', () => {
    const points = goodPoints.map((point) => ({
      ...point,
      concentration: String(point.concentration),
      response: String(point.response),
      modifier: '=',
    }))
    expect(fit('Hill', points).potency!.value).toBeCloseTo(
      fit('Hill', goodPoints).potency!.value,
      10,
    )
  })

  it('excludes an outlier so that the curve moves, as a pending correction expects', () => {
    const wild = { concentration: 1, response: 5, key: 'wild' }
    const withWild = fit('Hill', [...goodPoints, wild])
    const marked = fit('Hill', [...goodPoints, { ...wild, outlier: true }])
    expect(withWild.potency!.value).not.toBeCloseTo(marked.potency!.value, 3)
    expect(marked.potency!.value).toBeCloseTo(fit('Hill', goodPoints).potency!.value, 10)
    expect(marked.points.excluded).toEqual([{ index: 16, key: 'wild', reason: 'outlier' }])
  })

  it('survives input that is not a list of points', () => {
    expect(fit('Hill', null as unknown as DoseResponsePointInput[])).toMatchObject({
      outcome: 'too few points',
      points: { total: 0 },
    })
    const result = fit('Hill', [null, 7, ...goodPoints] as unknown as DoseResponsePointInput[])
    expect(result.points.excludedByReason).toEqual({ missing: 2 })
    expect(result.converged).toBe(true)
  })
})

describe('fits that cannot give a curve', () => {
  it('says when the fit does not converge, and where it ran', () => {
    // A power law: the Hill curve's limit as its centre and top run to infinity together.
    const points = concentrations.map((x) => ({ concentration: x, response: 5 + 3 * x }))
    const result = fit('Hill', points)
    expect(result).toMatchObject({ fitted: true, converged: false, outcome: 'not converged' })
    expect(result.reason).toMatch(
      /^the Hill fit did not converge within its iteration limit: its centre ran to .+, far outside the tested concentrations \(0\.01 to 30\)/,
    )
    expect(result.search.lastEstimate!.ic50).toBeGreaterThan(3000)
  })

  it('says when the data do not determine the curve', () => {
    const points = concentrations.flatMap((x, index) => [
      { concentration: x, response: (x < 0.5 ? 100 : 0) + wobble[index]! },
      { concentration: x, response: (x < 0.5 ? 100 : 0) - wobble[index]! },
    ])
    const result = fit('Hill', points)
    expect(result).toMatchObject({ fitted: true, converged: false, outcome: 'not determined' })
    expect(result.reason).toContain('no tested concentration lies on its transition')
    expect(result.reason).toContain('the IC50 lies somewhere between 0.3 and 1')
  })
})

describe('constraints and equation types', () => {
  it('refuses constraints the specification rejects, with its words', () => {
    const result = fit('Hill', goodPoints, {
      constraints: {
        ic50: { modifier: '=', value: 1 },
        max: { modifier: 'from', range: { min: 5, max: 1 } },
      },
    })
    expect(result).toMatchObject({ outcome: 'invalid constraints', fitted: false })
    expect(result.reason).toBe(
      'unknown fit parameter "ic50" for Hill (known: min, max, slope); max: range lower bound 5 is above upper bound 1',
    )
  })

  it('refuses constraints that leave a concentration no allowed value', () => {
    const points = [0.1, 0.3, 1, 3, 10].map((x) => ({
      concentration: x,
      response: (10 * x) / (2 + x),
    }))
    expect(
      fit('Michaelis-Menten', points, { constraints: { k_d: { modifier: '=', value: 0 } } }).reason,
    ).toBe('k_d cannot be fixed at 0: it must lie in (0, ∞)')
    expect(
      fit('Michaelis-Menten', points, { constraints: { k_d: { modifier: '<', value: -1 } } })
        .reason,
    ).toBe('the constraint on k_d leaves no allowed value (it must lie in (0, ∞))')
  })

  it('says that Biphasic and Bell Curve are drawn, not fitted, here', () => {
    for (const equationType of ['Biphasic', 'Bell Curve']) {
      const result = fit(equationType, goodPoints)
      expect(result).toMatchObject({ fitted: false, converged: false, outcome: 'not implemented' })
      expect(result.reason).toBe(
        `local fitting of ${equationType} is not implemented: its curve is drawn from the vault's parameters only`,
      )
      expect(result.points.used).toBe(16)
    }
  })

  it('refuses an unknown equation type', () => {
    expect(fit('Gompertz', goodPoints)).toMatchObject({
      outcome: 'unknown equation type',
      reason: expect.stringContaining('unknown equation type "Gompertz"'),
    })
  })
})
