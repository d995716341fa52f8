import { describe, expect, it } from 'vitest'
import { constraintsOf, seriesConstraintEdit } from './dose-response.ts'

const edit = (fitParameters: unknown, equationType = 'Hill') => ({
  protocol: 1,
  calculation: 2,
  series: 3,
  equation_type: equationType,
  fit_parameters: fitParameters,
})

/** The problems the schema names, as the outbox's refusal would list them. */
function problems(input: unknown): string[] {
  const parsed = seriesConstraintEdit.safeParse(input)
  return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message)
}

describe('an edit of a data series’ fit constraints', () => {
  it('keeps valid constraints, reading numeric text as numbers', () => {
    expect(
      constraintsOf(
        seriesConstraintEdit.parse(
          edit({
            slope: { modifier: '=', value: '-1' },
            max: { modifier: 'from', range: { min: 90, max: '110' } },
            min: { modifier: 'best fit' },
          }),
        ),
      ),
    ).toEqual({
      slope: { modifier: '=', value: -1 },
      max: { modifier: 'from', range: { min: 90, max: 110 } },
      min: { modifier: 'best fit' },
    })
    // An empty object clears the series' own constraints.
    expect(constraintsOf(seriesConstraintEdit.parse(edit({})))).toEqual({})
  })

  it('refuses what the specification rejects, in its words, every problem at once', () => {
    expect(
      problems(
        edit({
          ic50: { modifier: '=', value: 1 },
          slope: { modifier: '~', value: 1 },
          max: { modifier: 'from', range: { min: 110, max: 90 } },
          min: { modifier: '>=', value: 'ten' },
        }),
      ),
    ).toEqual([
      'unknown fit parameter "ic50" for Hill (known: min, max, slope)',
      'slope: invalid modifier "~" (use one of =, from, >, >=, <, <=, best fit)',
      'max: range lower bound 110 is above upper bound 90',
      'min: value "ten" is not numeric',
    ])
  })

  it('checks parameters against the equation the calculation uses', () => {
    expect(problems(edit({ k_d: { modifier: '>', value: 0 } }, 'Michaelis-Menten'))).toEqual([])
    expect(problems(edit({ k_d: { modifier: '>', value: 0 } }, 'Linear'))).toEqual([
      'unknown fit parameter "k_d" for Linear (known: slope, y_intercept)',
    ])
    expect(problems(edit({}, 'Sigmoid'))).toHaveLength(1)
    expect(problems({ ...edit({}), series: -1 })).toHaveLength(1)
  })
})
