import { describe, expect, it } from 'vitest'
import {
  concentrationTitle,
  concentrationUnit,
  formatConcentration,
} from './concentration-units.ts'

describe('concentration units', () => {
  it('reads molar units in every spelling the vaults use', () => {
    expect(concentrationUnit('uM').molarExponent).toBe(-6)
    expect(concentrationUnit('µM').molarExponent).toBe(-6)
    expect(concentrationUnit('μM').molarExponent).toBe(-6)
    expect(concentrationUnit(' nM ').molarExponent).toBe(-9)
    expect(concentrationUnit('mM').molarExponent).toBe(-3)
    expect(concentrationUnit('M').molarExponent).toBe(0)
    expect(concentrationUnit('pM').molarExponent).toBe(-12)
    expect(concentrationUnit('umol/L').molarExponent).toBe(-6)
    expect(concentrationUnit('mg/mL')).toEqual({ given: 'mg/mL', molarExponent: null })
    expect(concentrationUnit('')).toEqual({ given: null, molarExponent: null })
    expect(concentrationUnit(null)).toEqual({ given: null, molarExponent: null })
  })

  it('writes a concentration in the prefix that keeps it between 1 and 1000', () => {
    const micromolar = concentrationUnit('uM')
    expect(formatConcentration(0.35, micromolar)).toBe('350 nM')
    expect(formatConcentration(0.001, micromolar)).toBe('1 nM')
    expect(formatConcentration(1, micromolar)).toBe('1 µM')
    expect(formatConcentration(12.5, micromolar)).toBe('12.5 µM')
    expect(formatConcentration(30, micromolar)).toBe('30 µM')
    expect(formatConcentration(2500, micromolar)).toBe('2.5 mM')
    expect(formatConcentration(0.0000123, micromolar)).toBe('12.3 pM')
    // Rounded to three digits, 999.96 nM is 1 µM, not "1,000 nM".
    expect(formatConcentration(0.99996, micromolar)).toBe('1 µM')
    expect(formatConcentration(1e-7, concentrationUnit('M'))).toBe('100 nM')
    expect(formatConcentration(0.123456, micromolar, 4)).toBe('123.5 nM')
  })

  it('keeps a unit that is not molar, and numbers without a unit', () => {
    expect(formatConcentration(0.5, concentrationUnit('mg/mL'))).toBe('0.5 mg/mL')
    expect(formatConcentration(12, concentrationUnit(null))).toBe('12')
    expect(formatConcentration(0, concentrationUnit('uM'))).toBe('0 uM')
    expect(formatConcentration(-1, concentrationUnit('uM'))).toBe('−1 uM')
  })

  it('titles the axis with the unit where ticks do not carry it', () => {
    expect(concentrationTitle('Concentration', concentrationUnit('uM'))).toBe(
      'Concentration (log scale)',
    )
    expect(concentrationTitle('Dose', concentrationUnit('mg/mL'))).toBe('Dose (mg/mL, log scale)')
    expect(concentrationTitle(null, concentrationUnit(null))).toBe('Concentration (log scale)')
  })
})
