import { describe, expect, it } from 'vitest'
import { FitParametersError, mergeConstraints, parseFitParameters } from './fit-parameters.ts'

function problemsOf(run: () => unknown): string[] {
  try {
    run()
  } catch (error) {
    if (error instanceof FitParametersError) return error.problems
    throw error
  }
  throw new Error('expected a FitParametersError')
}

describe('parseFitParameters', () => {
  it('accepts every modifier, numbers sent as strings, and an empty object', () => {
    expect(
      parseFitParameters(
        'Hill',
        {
          min: { modifier: '=', value: '0' },
          max: { modifier: 'from', range: { min: 90, max: '110' } },
          slope: { modifier: '<=', value: -0.5 },
        },
        'calculation',
      ),
    ).toEqual({
      min: { modifier: '=', value: 0 },
      max: { modifier: 'from', range: { min: 90, max: 110 } },
      slope: { modifier: '<=', value: -0.5 },
    })
    expect(parseFitParameters('Linear', {}, 'calculation')).toEqual({})
  })

  it('allows best fit on data series only', () => {
    expect(parseFitParameters('Hill', { slope: { modifier: 'best fit' } }, 'data series')).toEqual({
      slope: { modifier: 'best fit' },
    })
    expect(
      problemsOf(() =>
        parseFitParameters('Hill', { slope: { modifier: 'best fit' } }, 'calculation'),
      ),
    ).toEqual(['slope: invalid modifier "best fit" (use one of =, from, >, >=, <, <=)'])
  })

  it('reports each 422 cause the spec names', () => {
    expect(
      problemsOf(() =>
        parseFitParameters('Hill', { ic90: { modifier: '=', value: 1 } }, 'calculation'),
      ),
    ).toEqual(['unknown fit parameter "ic90" for Hill (known: min, max, slope)'])
    expect(
      problemsOf(() =>
        parseFitParameters('Hill', { min: { modifier: '~', value: 1 } }, 'calculation'),
      ),
    ).toEqual(['min: invalid modifier "~" (use one of =, from, >, >=, <, <=)'])
    expect(
      problemsOf(() =>
        parseFitParameters(
          'Hill',
          { max: { modifier: 'from', range: { min: 5, max: 1 } } },
          'calculation',
        ),
      ),
    ).toEqual(['max: range lower bound 5 is above upper bound 1'])
    expect(
      problemsOf(() =>
        parseFitParameters('Linear', { slope: { modifier: '>', value: 'steep' } }, 'calculation'),
      ),
    ).toEqual(['slope: value "steep" is not numeric'])
    expect(
      problemsOf(() =>
        parseFitParameters(
          'Linear',
          { slope: { modifier: '=', value: 1, weight: 2 } },
          'calculation',
        ),
      ),
    ).toEqual(['slope: unrecognized parameters weight'])
  })

  it('reports every problem at once, including missing values and mixed-up members', () => {
    const problems = problemsOf(() =>
      parseFitParameters(
        'Michaelis-Menten',
        {
          b_max: { modifier: '=' },
          k_d: { modifier: 'from', value: 3, range: { min: 1, max: 2, step: 1 } },
          tau: {},
        },
        'data series',
      ),
    )
    expect(problems).toEqual([
      'b_max: value is missing',
      'k_d: from takes a range, not a value',
      'k_d: unrecognized parameters step in range',
      'unknown fit parameter "tau" for Michaelis-Menten (known: b_max, k_d)',
    ])
  })

  it('rejects a body that is not an object of objects', () => {
    expect(problemsOf(() => parseFitParameters('Hill', [1], 'calculation'))).toEqual([
      'fit_parameters must be an object keyed by parameter name',
    ])
    expect(problemsOf(() => parseFitParameters('Hill', { min: 3 }, 'calculation'))).toEqual([
      'min: must be an object with a modifier',
    ])
  })

  it('does not let the fitted-only ic50 be constrained', () => {
    expect(
      problemsOf(() =>
        parseFitParameters('Hill', { ic50: { modifier: '=', value: 1 } }, 'calculation'),
      ),
    ).toHaveLength(1)
  })
})

describe('mergeConstraints', () => {
  it('lets the series override per parameter and best fit lift a constraint', () => {
    expect(
      mergeConstraints(
        { min: { modifier: '=', value: 0 }, max: { modifier: '=', value: 100 } },
        { max: { modifier: 'best fit' }, slope: { modifier: '>', value: 0 } },
      ),
    ).toEqual({ min: { modifier: '=', value: 0 }, slope: { modifier: '>', value: 0 } })
  })
})
