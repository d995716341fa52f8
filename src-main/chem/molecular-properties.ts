/**
 * The properties of the spec's structure criterion that Vault Desk computes itself when the server
 * gave none, under the names the vault API uses for them.
 */
export const molecularPropertyNames = [
  'heavyAtomCount',
  'aromaticRingCount',
  'hBondAcceptorCount',
  'hBondDonorCount',
  'rotatableBondCount',
  'ruleOf5Violations',
  'molecularWeight',
  'exactMass',
  'logP',
  'topologicalPolarSurfaceArea',
] as const

export type MolecularPropertyName = (typeof molecularPropertyNames)[number]

export type MolecularProperties = Record<MolecularPropertyName, number>

/** A molecule's own fields and the structure criterion name some properties differently. */
export const vaultPropertyFields: Record<
  MolecularPropertyName,
  { moleculeField: string; criterionField: string }
> = {
  heavyAtomCount: { moleculeField: 'heavy_atom_count', criterionField: 'heavy_atom_count' },
  aromaticRingCount: { moleculeField: 'num_aromatic_rings', criterionField: 'num_aromatic_rings' },
  hBondAcceptorCount: {
    moleculeField: 'num_h_bond_acceptors',
    criterionField: 'num_h_bond_acceptors',
  },
  hBondDonorCount: { moleculeField: 'num_h_bond_donors', criterionField: 'num_h_bond_donors' },
  rotatableBondCount: {
    moleculeField: 'num_rotatable_bonds',
    criterionField: 'num_rotatable_bonds',
  },
  ruleOf5Violations: {
    moleculeField: 'num_rule_of_5_violations',
    criterionField: 'num_rule_of_5_violations',
  },
  molecularWeight: { moleculeField: 'molecular_weight', criterionField: 'cd_molweight' },
  exactMass: { moleculeField: 'exact_mass', criterionField: 'exact_mass' },
  logP: { moleculeField: 'log_p', criterionField: 'log_p' },
  topologicalPolarSurfaceArea: {
    moleculeField: 'topological_polar_surface_area',
    criterionField: 'topological_polar_surface_area',
  },
}

export function isMolecularPropertyName(name: string): name is MolecularPropertyName {
  return (molecularPropertyNames as readonly string[]).includes(name)
}

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
