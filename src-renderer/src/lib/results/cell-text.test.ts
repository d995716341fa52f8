import { describe, expect, it } from 'vitest'
import type { ResultsCell } from '../../../../src-common/analysis/readouts/results-table.ts'
import { cellText, describeResult, exactText, formatResult } from './cell-text.ts'

const cell = (overrides: Partial<ResultsCell>): ResultsCell => ({
  kind: 'number',
  number: 0.123456,
  modifier: null,
  text: '0.123456',
  n: 3,
  source: 'computed',
  ...overrides,
})

describe('a results cell as shown', () => {
  it('keeps the modifier and rounds to three significant digits', () => {
    expect(cellText(cell({}))).toBe('0.123')
    expect(cellText(cell({ number: 30, modifier: '>', text: '30' }))).toBe('>30')
    expect(cellText(cell({ number: 0.0137, modifier: '<=' }))).toBe('≤0.0137')
    expect(cellText(cell({ number: 47.68 }))).toBe('47.7')
    expect(cellText(cell({ number: 123_456.7 }))).toBe('123,457')
    expect(formatResult(2.5e-9)).toBe('0.0000000025')
  })

  it('shows text as given, and nothing for no value', () => {
    expect(cellText(cell({ kind: 'text', number: null, text: 'ND; inactive' }))).toBe(
      'ND; inactive',
    )
    expect(cellText(cell({ kind: 'empty', number: null, text: null }))).toBe('')
    expect(cellText(null)).toBe('')
  })

  it('gives the vault’s own value as given, and one computed here to six digits', () => {
    expect(exactText(cell({ modifier: '>' }), 'uM')).toBe('>0.123456 uM')
    expect(exactText(cell({ number: 46.587500000000006 }), '%')).toBe('46.5875 %')
    expect(exactText(cell({ number: 120, text: '1.20E+2', source: 'vault' }), 'uM')).toBe(
      '1.20E+2 uM',
    )
    expect(exactText(cell({ kind: 'text', number: null, text: 'ND' }), 'uM')).toBe('ND')
  })

  it('reads the cell aloud with its n and where it comes from', () => {
    expect(describeResult(cell({ number: 30, modifier: '>' }), 'uM')).toBe(
      'above 30 uM, n 3, computed here from 3 rows',
    )
    expect(describeResult(cell({ n: 1, source: 'vault' }), null)).toBe(
      "0.123, n 1, the vault's own value",
    )
    expect(describeResult(null, 'uM')).toBe('no value')
  })
})
