import { describe, expect, it } from 'vitest'
import { propertiesFromDescriptors } from './molecular-properties.ts'

const aspirin = {
  amw: 180.159,
  exactmw: 180.042,
  CrippenClogP: 1.31,
  tpsa: 63.6,
  lipinskiHBA: 4,
  lipinskiHBD: 1,
  NumHBA: 3,
  NumHBD: 1,
  NumHeavyAtoms: 13,
  NumAromaticRings: 1,
  NumRotatableBonds: 2,
}

describe('propertiesFromDescriptors', () => {
  it('maps RDKit descriptors to the vault properties', () => {
    expect(propertiesFromDescriptors(aspirin)).toEqual({
      heavyAtomCount: 13,
      aromaticRingCount: 1,
      hBondAcceptorCount: 3,
      hBondDonorCount: 1,
      rotatableBondCount: 2,
      ruleOf5Violations: 0,
      molecularWeight: 180.159,
      exactMass: 180.042,
      logP: 1.31,
      topologicalPolarSurfaceArea: 63.6,
    })
  })

  it("counts each of Lipinski's rules broken, with his definitions of donors and acceptors", () => {
    const count = (changes: Record<string, number>) =>
      propertiesFromDescriptors({ ...aspirin, ...changes }).ruleOf5Violations
    expect(count({ amw: 500.1 })).toBe(1)
    expect(count({ amw: 500 })).toBe(0)
    expect(count({ CrippenClogP: 5.2, lipinskiHBD: 6 })).toBe(2)
    expect(count({ lipinskiHBA: 11, NumHBA: 3 })).toBe(1)
    expect(count({ NumHBA: 11, NumHBD: 6 })).toBe(0)
    expect(count({ amw: 900, CrippenClogP: 9, lipinskiHBD: 9, lipinskiHBA: 19 })).toBe(4)
  })

  it('names a descriptor RDKit did not give', () => {
    const { tpsa: _, ...withoutTpsa } = aspirin
    expect(() => propertiesFromDescriptors(withoutTpsa)).toThrow(
      'RDKit descriptors lack a numeric "tpsa".',
    )
  })
})
