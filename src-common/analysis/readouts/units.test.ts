import { describe, expect, it } from 'vitest'
import { convertValue, isKnownUnit, parseUnit, sameUnit, type Unit } from './units.ts'

function unit(label: string): Unit {
  const parsed = parseUnit(label)
  if (parsed === null) throw new Error(`${label} reads as no unit`)
  return parsed
}

function convert(value: number, from: string | null, to: string | null): number {
  const result = convertValue(
    value,
    from === null ? null : unit(from),
    to === null ? null : unit(to),
  )
  if (!result.ok) throw new Error(result.message)
  return result.value
}

function refusal(value: number, from: string, to: string | null): string {
  const result = convertValue(value, unit(from), to === null ? null : unit(to))
  if (result.ok) throw new Error(`${from} converted to ${to}: ${result.value}`)
  return result.message
}

describe('reading unit labels', () => {
  it('reads every spelling of micromolar as one unit', () => {
    for (const label of ['uM', 'µM', 'μM', 'micromolar', 'Micromolar', 'umol/L', 'µmol/l']) {
      const read = unit(label)
      expect(read.dimension, label).toBe('molar concentration')
      expect(read.exponent, label).toBe(-6)
      expect(read.label, label).toBe(label)
      expect(sameUnit(read, unit('µM')), label).toBe(true)
    }
    expect(unit('uM').symbol).toBe('µM')
    expect(unit('nanomolar').symbol).toBe('nM')
    expect(unit('mol/L').exponent).toBe(0)
  })

  it('keeps symbols case-sensitive: nm is a length and MM no unit it knows', () => {
    expect(unit('nm').dimension).toBe('length')
    expect(unit('nM').dimension).toBe('molar concentration')
    expect(unit('MM').dimension).toBe('unknown')
    expect(unit('S').dimension).toBe('unknown')
    expect(unit('s').dimension).toBe('time')
    expect(unit('Kg').dimension).toBe('unknown')
  })

  it('reads masses, volumes, times, amounts, mass concentrations, percent and ratios', () => {
    expect([unit('kg'), unit('mcg'), unit('ug'), unit('pg')].map((read) => read.exponent)).toEqual([
      3, -6, -6, -12,
    ])
    expect(unit('mcg').symbol).toBe('µg')
    expect(unit('uL').symbol).toBe('µL')
    expect(unit('ml').dimension).toBe('volume')
    expect(unit('mmol').dimension).toBe('amount')
    expect(unit('hours')).toMatchObject({ dimension: 'time', symbol: 'h', mantissa: 3600 })
    expect(unit('min')).toMatchObject({ dimension: 'time', mantissa: 60 })
    expect(unit('ug/mL')).toMatchObject({ dimension: 'mass concentration', exponent: -3 })
    expect(unit('% inhibition').dimension).toBe('percent')
    expect(unit('fold').dimension).toBe('ratio')
    expect(unit('pIC50').dimension).toBe('negative log molar')
    expect(unit('-log(M)').dimension).toBe('negative log molar')
    expect(unit('RLU')).toMatchObject({ dimension: 'unknown', label: 'RLU', symbol: 'RLU' })
    expect(unit('mL/min/kg').dimension).toBe('unknown')
  })

  it('reads blank, dash, none and n/a as no unit', () => {
    for (const label of ['', '  ', '-', 'none', 'N/A', null, undefined]) {
      expect(parseUnit(label), String(label)).toBeNull()
    }
    expect(isKnownUnit('µM')).toBe(true)
    expect(isKnownUnit('RLU')).toBe(false)
  })
})

describe('converting values', () => {
  it('converts concentrations both ways, exactly at powers of ten', () => {
    expect(convert(1, 'uM', 'nM')).toBe(1000)
    expect(convert(1000, 'nM', 'uM')).toBe(1)
    expect(convert(300, 'nM', 'µM')).toBe(0.3)
    expect(convert(0.3, 'µM', 'nM')).toBe(300)
    expect(convert(3, 'nM', 'uM')).toBe(0.003)
    expect(convert(1, 'M', 'nM')).toBe(1e9)
    expect(convert(25, 'fM', 'pM')).toBe(0.025)
    expect(convert(2, 'millimolar', 'mol/L')).toBe(0.002)
  })

  it('converts masses, volumes, times and mass concentrations both ways', () => {
    expect(convert(1, 'kg', 'mg')).toBe(1e6)
    expect(convert(1e6, 'mg', 'kg')).toBe(1)
    expect(convert(250, 'uL', 'mL')).toBe(0.25)
    expect(convert(0.25, 'mL', 'µL')).toBe(250)
    expect(convert(90, 'min', 'h')).toBe(1.5)
    expect(convert(1.5, 'h', 'min')).toBe(90)
    expect(convert(2, 'd', 'h')).toBe(48)
    expect(convert(5, 'mg/mL', 'ug/mL')).toBe(5000)
    expect(convert(5000, 'µg/mL', 'g/L')).toBe(5)
    expect(convert(45, '%', '% inhibition')).toBe(45)
    expect(convert(7.2, 'pIC50', '-log(M)')).toBe(7.2)
    expect(convert(12, 'RLU', 'RLU')).toBe(12)
  })

  it('takes a value without a unit to be in the target unit', () => {
    expect(convert(5, null, 'nM')).toBe(5)
    expect(convert(5, null, null)).toBe(5)
  })

  it('round-trips any value through another unit of its dimension', () => {
    for (const value of [1.7e-9, 0.1, 0.3, 2.5, 1234.5678, 9.99e12]) {
      expect(convert(convert(value, 'nM', 'uM'), 'uM', 'nM')).toBeCloseTo(value, 10)
      expect(convert(convert(value, 'min', 'h'), 'h', 'min')).toBeCloseTo(value, 10)
    }
  })

  it('refuses other dimensions, naming both units', () => {
    expect(refusal(3, 'kg', 'uM')).toBe(
      'kg cannot be converted to uM: kg is a mass and uM a molar concentration',
    )
    expect(refusal(3, 'mL', 'h')).toBe('mL cannot be converted to h: mL is a volume and h a time')
  })

  it('refuses negative log units to molar ones, and molar to mass concentrations', () => {
    const logarithm = refusal(7, 'pIC50', 'nM')
    expect(logarithm).toContain('pIC50 is a negative logarithm of a molar concentration')
    expect(logarithm).toContain('does not convert between logarithmic and molar values')
    expect(refusal(5, 'mg/mL', 'uM')).toContain('needs the molecular weight')
  })

  it('refuses unknown units unless the labels are the same, and units to a readout without one', () => {
    expect(refusal(1, 'RLU', 'cps')).toBe(
      'RLU cannot be converted to cps: RLU and cps are units Vault Desk does not know, and the labels differ',
    )
    expect(refusal(1, 'RLU', 'nM')).toContain('RLU is a unit Vault Desk does not know')
    expect(refusal(1, 'uM', null)).toBe(
      'uM cannot be converted: the readout records no unit (give the value without a unit)',
    )
  })
})
