import { describe, expect, it } from 'vitest'
import { mergeConstraints, rangeOf, readFitConstraints } from './constraints.ts'

describe('readFitConstraints', () => {
  it('reads every modifier of the specification, numbers given as strings too', () => {
    expect(
      readFitConstraints(
        'Hill',
        {
          min: { modifier: '=', value: 0 },
          max: { modifier: 'from', range: { min: '90', max: 110 } },
          slope: { modifier: '<', value: '0' },
        },
        'calculation',
      ),
    ).toEqual({
      ok: true,
      constraints: {
        min: { modifier: '=', value: 0 },
        max: { modifier: 'from', range: { min: 90, max: 110 } },
        slope: { modifier: '<', value: 0 },
      },
    })
    for (const modifier of ['>', '>=', '<=']) {
      expect(
        readFitConstraints('Linear', { slope: { modifier, value: 1 } }, 'calculation'),
      ).toEqual({
        ok: true,
        constraints: { slope: { modifier, value: 1 } },
      })
    }
  })

  it('reads a from range sent in value, as real vaults send it, but not in both members', () => {
    expect(
      readFitConstraints(
        'Hill',
        { max: { modifier: 'from', value: { min: 90, max: 110 } } },
        'calculation',
      ),
    ).toEqual({
      ok: true,
      constraints: { max: { modifier: 'from', range: { min: 90, max: 110 } } },
    })
    expect(
      readFitConstraints(
        'Hill',
        { max: { modifier: 'from', range: { min: 90, max: 110 }, value: 100 } },
        'calculation',
      ),
    ).toEqual({ ok: false, problems: ['max: from takes a range, not a value'] })
  })

  it('reports every problem in the words the specification uses', () => {
    const reading = readFitConstraints(
      'Hill',
      {
        ic50: { modifier: '=', value: 1 },
        min: { modifier: 'about', value: 1 },
        max: { modifier: 'from', range: { min: 10, max: 5 } },
        slope: { modifier: '=', value: 'steep' },
      },
      'calculation',
    )
    expect(reading).toEqual({
      ok: false,
      problems: [
        'unknown fit parameter "ic50" for Hill (known: min, max, slope)',
        'min: invalid modifier "about" (use one of =, from, >, >=, <, <=)',
        'max: range lower bound 10 is above upper bound 5',
        'slope: value "steep" is not numeric',
      ],
    })
  })

  it('allows best fit on a data series only, and without a value', () => {
    expect(readFitConstraints('Hill', { min: { modifier: 'best fit' } }, 'data series')).toEqual({
      ok: true,
      constraints: { min: { modifier: 'best fit' } },
    })
    expect(readFitConstraints('Hill', { min: { modifier: 'best fit' } }, 'calculation')).toEqual({
      ok: false,
      problems: ['min: invalid modifier "best fit" (use one of =, from, >, >=, <, <=)'],
    })
    expect(
      readFitConstraints('Hill', { min: { modifier: 'best fit', value: 1 } }, 'data series'),
    ).toEqual({ ok: false, problems: ['min: best fit takes no value or range'] })
  })

  it('refuses unrecognized parameters, missing values and shapes that are not objects', () => {
    expect(
      readFitConstraints(
        'Linear',
        { slope: { modifier: '=', value: 1, unit: 'mM' } },
        'calculation',
      ),
    ).toEqual({ ok: false, problems: ['slope: unrecognized parameters unit'] })
    expect(readFitConstraints('Linear', { slope: { modifier: '>' } }, 'calculation')).toEqual({
      ok: false,
      problems: ['slope: value is missing'],
    })
    expect(readFitConstraints('Linear', { slope: 3 }, 'calculation')).toEqual({
      ok: false,
      problems: ['slope: must be an object with a modifier'],
    })
    expect(readFitConstraints('Linear', [1], 'calculation')).toEqual({
      ok: false,
      problems: ['fit_parameters must be an object keyed by parameter name'],
    })
    expect(readFitConstraints('Linear', null, 'calculation')).toEqual({ ok: true, constraints: {} })
  })
})

describe('mergeConstraints', () => {
  it("lets a series override its calculation's constraints, and best fit lift them", () => {
    expect(
      mergeConstraints(
        { min: { modifier: '=', value: 0 }, max: { modifier: '<=', value: 100 } },
        { min: { modifier: 'best fit' }, slope: { modifier: '>', value: 0 } },
      ),
    ).toEqual({ max: { modifier: '<=', value: 100 }, slope: { modifier: '>', value: 0 } })
  })
})

describe('rangeOf', () => {
  it('turns each modifier into a fixed value or bounds, strict ones just inside', () => {
    expect(rangeOf({ modifier: '=', value: 2 })).toEqual({ fixed: 2 })
    expect(rangeOf({ modifier: 'from', range: { min: 1, max: 3 } })).toEqual({ lower: 1, upper: 3 })
    expect(rangeOf({ modifier: '>=', value: 5 })).toEqual({ lower: 5, upper: Infinity })
    expect(rangeOf({ modifier: '<=', value: 5 })).toEqual({ lower: -Infinity, upper: 5 })
    const above = rangeOf({ modifier: '>', value: 5 }) as { lower: number }
    expect(above.lower).toBeGreaterThan(5)
    expect(above.lower).toBeLessThan(5 + 1e-6)
    const below = rangeOf({ modifier: '<', value: 0 }) as { upper: number }
    expect(below.upper).toBeLessThan(0)
    expect(rangeOf({ modifier: 'best fit' })).toEqual({ lower: -Infinity, upper: Infinity })
  })
})
