import { describe, expect, it } from 'vitest'
import { seriesConstraintEdit } from '../../../../src-common/outbox/payloads/dose-response.ts'
import { checkedConstraints, constraintText, fitParametersOf, rowsOf } from './constraint-form.ts'

describe('the fit constraints form', () => {
  it('has a row per parameter the equation lets a person constrain, filled from the series', () => {
    const rows = rowsOf('Hill', {
      slope: { modifier: '=', value: -1 },
      max: { modifier: 'from', range: { min: 90, max: 110 } },
    })
    expect(rows).toEqual([
      { name: 'min', modifier: '', value: '', min: '', max: '' },
      { name: 'max', modifier: 'from', value: '', min: '90', max: '110' },
      { name: 'slope', modifier: '=', value: '-1', min: '', max: '' },
    ])
    expect(rowsOf('Michaelis-Menten', null).map((row) => row.name)).toEqual(['b_max', 'k_d'])
  })

  it('writes the rows as fit_parameters, and round-trips them', () => {
    const rows = rowsOf('Hill', {
      min: { modifier: 'best fit' },
      slope: { modifier: '<=', value: 0 },
    })
    const written = fitParametersOf(rows)
    expect(written).toEqual({
      min: { modifier: 'best fit' },
      slope: { modifier: '<=', value: '0' },
    })
    expect(rowsOf('Hill', written)).toEqual(rows)
  })

  it('refuses what the vault would, in the specification’s words, before anything is queued', () => {
    const rows = rowsOf('Hill', null)
    rows[0] = { ...rows[0]!, modifier: '>=', value: 'ten' }
    rows[1] = { ...rows[1]!, modifier: 'from', min: '110', max: '90' }
    rows[2] = { ...rows[2]!, modifier: '=', value: '' }
    expect(checkedConstraints('Hill', rows)).toEqual({
      ok: false,
      problems: [
        'min: value "ten" is not numeric',
        'max: range lower bound 110 is above upper bound 90',
        'slope: value is missing',
      ],
    })
    expect(checkedConstraints('Sigmoid', rows)).toMatchObject({ ok: false })
  })

  it('queues only what the outbox’s schema accepts', () => {
    const rows = rowsOf('Hill', null)
    rows[2] = { ...rows[2]!, modifier: '=', value: ' -1.5 ' }
    const checked = checkedConstraints('Hill', rows)
    expect(checked).toEqual({
      ok: true,
      fitParameters: { slope: { modifier: '=', value: '-1.5' } },
    })
    const payload = {
      protocol: 1,
      calculation: 2,
      series: 3,
      equation_type: 'Hill',
      fit_parameters: checked.ok ? checked.fitParameters : {},
    }
    expect(seriesConstraintEdit.safeParse(payload).success).toBe(true)
  })

  it('says a constraint in a few signs', () => {
    expect(constraintText(undefined)).toBe('free')
    expect(constraintText({ modifier: '=', value: 1 })).toBe('= 1')
    expect(constraintText({ modifier: '>=', value: 0 })).toBe('≥ 0')
    expect(constraintText({ modifier: 'from', range: { min: 90, max: 110 } })).toBe('90 to 110')
    expect(constraintText({ modifier: 'best fit' })).toBe('best fit')
  })
})
