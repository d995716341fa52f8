import { averageMass, hillFormula, monoisotopicMass } from './elements.ts'
import type { ElementCounts } from './elements.ts'

/**
 * The additive part of a structure's properties: counts and atom contributions that add up when
 * fragments are joined. The bulk seeds sum fragment profiles instead of running RDKit per
 * molecule; `deriveProperties` turns a profile into the stored properties either way.
 */
export interface StructureProfile {
  elements: ElementCounts
  heavyAtomCount: number
  numAromaticRings: number
  numHBondDonors: number
  numHBondAcceptors: number
  lipinskiDonors: number
  lipinskiAcceptors: number
  numRotatableBonds: number
  topologicalPolarSurfaceArea: number
  logP: number
  acidGroups: number
  basicGroups: number
  aromaticAtoms: number
  sp3Carbons: number
}

export interface DerivedProperties {
  formula: string
  molecularWeight: number
  exactMass: number
  heavyAtomCount: number
  numAromaticRings: number
  numHBondDonors: number
  numHBondAcceptors: number
  numRotatableBonds: number
  numRuleOf5Violations: number
  topologicalPolarSurfaceArea: number
  logP: number
  logD: number
  logS: number
  fsp3: number
}

export function deriveProperties(profile: StructureProfile): DerivedProperties {
  const molecularWeight = averageMass(profile.elements)
  const carbons = profile.elements.C ?? 0
  return {
    formula: hillFormula(profile.elements),
    molecularWeight: round(molecularWeight, 3),
    exactMass: round(monoisotopicMass(profile.elements), 4),
    heavyAtomCount: profile.heavyAtomCount,
    numAromaticRings: profile.numAromaticRings,
    numHBondDonors: profile.numHBondDonors,
    numHBondAcceptors: profile.numHBondAcceptors,
    numRotatableBonds: profile.numRotatableBonds,
    numRuleOf5Violations:
      Number(molecularWeight > 500) +
      Number(profile.logP > 5) +
      Number(profile.lipinskiDonors > 5) +
      Number(profile.lipinskiAcceptors > 10),
    topologicalPolarSurfaceArea: round(profile.topologicalPolarSurfaceArea, 2),
    logP: round(profile.logP, 3),
    // logD at pH 7.4 from logP: ionised acids and bases partition less into octanol.
    logD: round(
      profile.logP - 1.5 * Math.min(profile.acidGroups, 2) - Math.min(profile.basicGroups, 2),
      3,
    ),
    // Delaney's ESOL equation (J. Chem. Inf. Comput. Sci. 2004, 44, 1000).
    logS: round(
      0.16 -
        0.63 * profile.logP -
        0.0062 * molecularWeight +
        0.066 * profile.numRotatableBonds -
        0.74 * (profile.heavyAtomCount === 0 ? 0 : profile.aromaticAtoms / profile.heavyAtomCount),
      3,
    ),
    fsp3: carbons === 0 ? 0 : round(profile.sp3Carbons / carbons, 3),
  }
}

/** `a + sign × b`, member by member. */
export function combineProfiles(
  a: StructureProfile,
  b: StructureProfile,
  sign: 1 | -1 = 1,
): StructureProfile {
  const elements: ElementCounts = { ...a.elements }
  for (const [symbol, count] of Object.entries(b.elements))
    elements[symbol] = (elements[symbol] ?? 0) + sign * count
  const add = (key: Exclude<keyof StructureProfile, 'elements'>) => a[key] + sign * b[key]
  return {
    elements,
    heavyAtomCount: add('heavyAtomCount'),
    numAromaticRings: add('numAromaticRings'),
    numHBondDonors: add('numHBondDonors'),
    numHBondAcceptors: add('numHBondAcceptors'),
    lipinskiDonors: add('lipinskiDonors'),
    lipinskiAcceptors: add('lipinskiAcceptors'),
    numRotatableBonds: add('numRotatableBonds'),
    topologicalPolarSurfaceArea: add('topologicalPolarSurfaceArea'),
    logP: add('logP'),
    acidGroups: add('acidGroups'),
    basicGroups: add('basicGroups'),
    aromaticAtoms: add('aromaticAtoms'),
    sp3Carbons: add('sp3Carbons'),
  }
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits
  return Math.round(value * factor) / factor
}
