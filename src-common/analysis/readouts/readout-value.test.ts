import { describe, expect, it } from 'vitest'
import {
  compareReadoutValues,
  givenText,
  inDefinitionUnit,
  modifierRank,
  readDate,
  readReadoutCell,
  searchText,
  valueTypeOf,
  type CellContext,
  type ReadoutValue,
} from './readout-value.ts'

const numeric: CellContext = { valueType: 'number', unit: 'uM' }

function value(raw: unknown, context: CellContext = numeric): ReadoutValue {
  return readReadoutCell(raw, context).value
}

function number(
  amount: number,
  text: string,
  modifier: string | null = null,
  unit: string | null = null,
) {
  return { kind: 'number', value: amount, modifier, unit, text }
}

describe('reading a readout cell in every form vaults send', () => {
  it('reads numbers, numeric strings and bare scalars as numbers', () => {
    expect(value(12)).toEqual(number(12, '12'))
    expect(value({ value: 12 })).toEqual(number(12, '12'))
    expect(value('1.20E+2')).toEqual(number(120, '1.20E+2'))
    expect(value({ value: ' 0.5 ' })).toEqual(number(0.5, '0.5'))
    expect(value('.5')).toEqual(number(0.5, '.5'))
    expect(value('-3')).toEqual(number(-3, '-3'))
    expect(value('−3')).toEqual(number(-3, '−3'))
    expect(value('+4e-3')).toEqual(number(0.004, '+4e-3'))
  })

  it('reads modifiers given beside the value or inside the string', () => {
    expect(value({ value: 30000, modifier: '>' })).toEqual(number(30000, '30000', '>'))
    expect(value('>30000')).toEqual(number(30000, '30000', '>'))
    expect(value('> 30000')).toEqual(number(30000, '30000', '>'))
    expect(value({ value: '>30', modifier: '>' })).toEqual(number(30, '30', '>'))
    expect(value({ value: '30', modifier: '<' })).toEqual(number(30, '30', '<'))
    expect(value('≤ 1.5')).toEqual(number(1.5, '1.5', '<='))
    expect(value('=>2')).toEqual(number(2, '2', '>='))
    expect(value('~3')).toEqual(number(3, '3', '~'))
    expect(value({ value: 3, modifier: '≈' })).toEqual(number(3, '3', '~'))
    expect(value({ value: 3, modifier: '=' })).toEqual(number(3, '3'))
    expect(value({ value: 3, modifier: '' })).toEqual(number(3, '3'))
  })

  it('keeps a modifier it cannot read, or one that contradicts the string, as text', () => {
    expect(value({ value: 30, modifier: 'ca.' })).toEqual({ kind: 'text', text: 'ca. 30' })
    expect(value({ value: '<30', modifier: '>' })).toEqual({ kind: 'text', text: '><30' })
  })

  it('reads a unit after the number when it is a unit it knows or the readout’s own', () => {
    expect(value('<= 1.5 uM')).toEqual(number(1.5, '1.5', '<=', 'uM'))
    expect(value('300 nM')).toEqual(number(300, '300', null, 'nM'))
    expect(value('45%')).toEqual(number(45, '45', null, '%'))
    expect(value({ value: 300, unit: 'nM' })).toEqual(number(300, '300', null, 'nM'))
    expect(value('12000 RLU', { valueType: 'number', unit: 'RLU' })).toEqual(
      number(12000, '12000', null, 'RLU'),
    )
    expect(value('3 replicates failed')).toEqual({ kind: 'text', text: '3 replicates failed' })
  })

  it('keeps words, ambiguous separators and non-numbers as text, as given', () => {
    for (const text of [
      'ND',
      'n.d.',
      'inactive',
      '<LOQ',
      '1,200',
      '1 200',
      '0x10',
      'Infinity',
      'NaN',
      '12 ± 3',
    ]) {
      expect(value(text), text).toEqual({ kind: 'text', text })
    }
    expect(value({ value: [1, 2] })).toEqual({ kind: 'text', text: '[1,2]' })
    expect(value({ value: { min: 1 } })).toEqual({ kind: 'text', text: '{"min":1}' })
  })

  it('reads notes without values, outlier flags in their forms, and nothing as empty', () => {
    expect(readReadoutCell({ note: ' no fit: too few points ' }, numeric)).toEqual({
      value: { kind: 'empty' },
      outlier: false,
      note: 'no fit: too few points',
    })
    for (const flag of [true, 'true', 'TRUE', 1, '1', 'yes']) {
      expect(readReadoutCell({ value: 5, outlier: flag }).outlier, String(flag)).toBe(true)
    }
    for (const flag of [false, 'false', 0, 'no', null]) {
      expect(readReadoutCell({ value: 5, outlier: flag }).outlier, String(flag)).toBe(false)
    }
    for (const raw of [null, undefined, '', '   ', {}, { value: null }]) {
      expect(value(raw), JSON.stringify(raw)).toEqual({ kind: 'empty' })
    }
  })

  it('reads by the definition’s data type: text stays text, dates and booleans where declared', () => {
    const text: CellContext = { valueType: 'text' }
    expect(value('12', text)).toEqual({ kind: 'text', text: '12' })
    expect(value(12, text)).toEqual({ kind: 'text', text: '12' })
    expect(value({ value: 30, modifier: '>' }, text)).toEqual({ kind: 'text', text: '>30' })
    expect(value('2024-03-05')).toEqual({ kind: 'text', text: '2024-03-05' })
    expect(value('2024-03-05', { valueType: 'date' })).toEqual({
      kind: 'date',
      epochMs: Date.UTC(2024, 2, 5),
      text: '2024-03-05',
    })
    expect(value('2024-03-05', {})).toMatchObject({ kind: 'date' })
    expect(value('yes', { valueType: 'boolean' })).toEqual({
      kind: 'boolean',
      value: true,
      text: 'Yes',
    })
    expect(value(false)).toEqual({ kind: 'boolean', value: false, text: 'No' })
    expect(value('yes', {})).toEqual({ kind: 'text', text: 'yes' })
    expect(value('maybe', { valueType: 'boolean' })).toEqual({ kind: 'text', text: 'maybe' })
    expect(value('soon', { valueType: 'date' })).toEqual({ kind: 'text', text: 'soon' })
  })

  it('reads ISO dates and timestamps, with offsets, and refuses impossible ones', () => {
    expect(readDate('2024-03-05T10:00:00Z')?.epochMs).toBe(Date.UTC(2024, 2, 5, 10))
    expect(readDate('2024-03-05T10:00:00+02:00')?.epochMs).toBe(Date.UTC(2024, 2, 5, 8))
    expect(readDate('2024-03-05 10:00')?.epochMs).toBe(Date.UTC(2024, 2, 5, 10))
    expect(readDate('2024-03-05T10:00:00.250-0130')?.epochMs).toBe(
      Date.UTC(2024, 2, 5, 11, 30, 0, 250),
    )
    for (const text of [
      '2024-02-30',
      '2023-02-29',
      '2024-13-01',
      '2024-03-05T24:00',
      '05/03/2024',
    ]) {
      expect(readDate(text), text).toBeNull()
    }
    expect(readDate('2024-02-29')?.epochMs).toBe(Date.UTC(2024, 1, 29))
  })

  it('reads data type names', () => {
    expect(
      ['Number', 'numeric', 'Text', 'Pick List', 'Date', 'Boolean', 'File', 'Other', null].map(
        valueTypeOf,
      ),
    ).toEqual(['number', 'number', 'text', 'text', 'date', 'boolean', 'text', 'any', 'any'])
  })
})

describe('values in the definition’s unit', () => {
  it('converts a number with its own unit, and keeps one that cannot convert as text', () => {
    expect(inDefinitionUnit(value('300 nM'), 'uM')).toEqual({
      value: number(0.3, '300'),
      unconvertible: null,
    })
    expect(inDefinitionUnit(value('>300 nM'), 'uM').value).toEqual(number(0.3, '300', '>'))
    const kilograms = inDefinitionUnit(value('5 kg'), 'uM')
    expect(kilograms.value).toEqual({ kind: 'text', text: '5 kg' })
    expect(kilograms.unconvertible).toBe(
      'kg cannot be converted to uM: kg is a mass and uM a molar concentration',
    )
    expect(inDefinitionUnit(value(5), 'uM').value).toEqual(number(5, '5'))
  })

  it('shows and searches values as given', () => {
    expect(givenText(value('>300 nM'))).toBe('>300 nM')
    expect(givenText(value('1.20E+2'))).toBe('1.20E+2')
    expect(givenText(value(null))).toBe('')
    expect(searchText(value('>30000'))).toBe('30000')
    expect(searchText(value('ND'))).toBe('ND')
    expect(searchText(value(true))).toBe('Yes')
    expect(searchText(value(null))).toBeNull()
  })
})

describe('sorting values by the documented rule', () => {
  const cells = ['>30', 1, '<1', 'ND', null, 0.5, '<=1', '>=1', 'abc', '30', '~1', 'Zeta']
  const shown = (values: ReadoutValue[]) => values.map(givenText)

  it('sorts qualified values beside their number, then text, then empty', () => {
    const sorted = cells.map((cell) => value(cell)).sort((a, b) => compareReadoutValues(a, b))
    expect(shown(sorted)).toEqual([
      '0.5',
      '<1',
      '<=1',
      '1',
      '~1',
      '>=1',
      '30',
      '>30',
      'abc',
      'ND',
      'Zeta',
      '',
    ])
  })

  it('keeps text and empty cells last when sorting descending', () => {
    const sorted = cells
      .map((cell) => value(cell))
      .sort((a, b) => compareReadoutValues(a, b, 'descending'))
    expect(shown(sorted)).toEqual([
      '>30',
      '30',
      '>=1',
      '1',
      '~1',
      '<=1',
      '<1',
      '0.5',
      'Zeta',
      'ND',
      'abc',
      '',
    ])
  })

  it('ranks modifiers for ORDER BY', () => {
    expect(['<', '<=', null, '~', '>=', '>'].map((mark) => modifierRank(mark as never))).toEqual([
      -2, -1, 0, 0, 1, 2,
    ])
  })
})
