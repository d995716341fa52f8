import { describe, expect, it } from 'vitest'
import { formulaWeight, hillFormula, sampleCompounds } from './sample-compounds.ts'

describe('sample compounds', () => {
  it('are the same on every run and numbered in order', () => {
    const first = sampleCompounds(500)
    expect(sampleCompounds(500)).toEqual(first)
    expect(first.map((compound) => compound.id).slice(0, 2)).toEqual(['VD-000001', 'VD-000002'])
    expect(new Set(first.map((compound) => compound.id)).size).toBe(500)
  })

  it('have weights that match their formulas and leave some logP unmeasured', () => {
    const compounds = sampleCompounds(2000)
    expect(compounds.some((compound) => compound.logP === null)).toBe(true)
    for (const compound of compounds.slice(0, 50)) {
      expect(compound.formula).toMatch(/^C\d+H\d+/)
      expect(compound.molecularWeight).toBeGreaterThan(100)
    }
  })

  it('write formulas in Hill order and weigh them', () => {
    expect(hillFormula({ O: 2, C: 9, H: 8, N: 1, Cl: 1 })).toBe('C9H8ClNO2')
    expect(formulaWeight({ C: 9, H: 8, O: 4 })).toBe(180.16)
  })
})
