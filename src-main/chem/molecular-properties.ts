import type { MolecularProperties } from '../../src-common/chem/molecular-properties.ts'

/**
 * Maps RDKit's `get_descriptors()` answer to our properties. Acceptors and donors are RDKit's
 * pharmacophore counts (what a chemist reads as "H-bond acceptors"), while the rule of 5 counts
 * violations with Lipinski's own definitions (N+O atoms, NH+OH groups), as he published it.
 */
export function propertiesFromDescriptors(
  descriptors: Record<string, number>,
): MolecularProperties {
  const read = (key: string): number => {
    const value = descriptors[key]
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new Error(`RDKit descriptors lack a numeric "${key}".`)
    }
    return value
  }
  const molecularWeight = read('amw')
  const logP = read('CrippenClogP')
  const ruleOf5Violations = [
    molecularWeight > 500,
    logP > 5,
    read('lipinskiHBD') > 5,
    read('lipinskiHBA') > 10,
  ].filter(Boolean).length
  return {
    heavyAtomCount: read('NumHeavyAtoms'),
    aromaticRingCount: read('NumAromaticRings'),
    hBondAcceptorCount: read('NumHBA'),
    hBondDonorCount: read('NumHBD'),
    rotatableBondCount: read('NumRotatableBonds'),
    ruleOf5Violations,
    molecularWeight,
    exactMass: read('exactmw'),
    logP,
    topologicalPolarSurfaceArea: read('tpsa'),
  }
}
