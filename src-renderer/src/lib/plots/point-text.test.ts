import { describe, expect, it } from 'vitest'
import { axisTitle, cellText, describePoint, leftOutSentences } from './point-text.ts'

describe('what a plot says', () => {
  const ic50 = {
    label: 'IC50',
    unit: 'nM',
    values: [30000, 12.345, null],
    modifiers: ['>', null, null],
  }
  const weight = { label: 'Molecular weight', unit: 'g/mol', values: [342.17, 180.16, 250] }

  it('writes values with their qualifiers and units', () => {
    expect(cellText(ic50, 0)).toBe('> 30,000')
    expect(cellText(ic50, 1)).toBe('12.35')
    expect(cellText(ic50, 2)).toBe('no value')
    expect(axisTitle(ic50, 'log')).toBe('IC50 (nM), log scale')
    expect(axisTitle({ label: 'cLogP', values: [] }, 'linear')).toBe('cLogP')
    expect(describePoint('VD-000001', [weight, ic50], 0)).toBe(
      'VD-000001: Molecular weight 342.2 g/mol, IC50 > 30,000 nM.',
    )
  })

  it('names what it leaves out and why', () => {
    expect(
      leftOutSentences(
        { missingX: 1, missingY: 0, nonPositiveX: 0, nonPositiveY: 1234 },
        weight,
        ic50,
        ['molecule', 'molecules'],
      ),
    ).toEqual([
      '1 molecule without a value for Molecular weight.',
      '1,234 molecules with IC50 at or below zero, which a log axis cannot show.',
    ])
    expect(
      leftOutSentences(
        { missingX: 0, missingY: 0, nonPositiveX: 0, nonPositiveY: 0 },
        weight,
        ic50,
      ),
    ).toEqual([])
  })
})
