/**
 * The molecular properties Vault Desk computes itself where the vault gave none, declared once:
 * their names (as the vault API's structure criterion uses them), how a person reads them, and
 * the fields the vault's molecules and its criterion carry them in.
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

export interface MolecularPropertyDeclaration {
  label: string
  /** The molecule record's own field (and the structure index's column) for it. */
  moleculeField: string
  /** The field of the vault API's structure criterion. */
  criterionField: string
  /** Decimals shown; 0 for counts. */
  decimals: number
  unit?: string
}

/** A molecule's own fields and the structure criterion name some properties differently. */
export const molecularProperties: Record<MolecularPropertyName, MolecularPropertyDeclaration> = {
  molecularWeight: {
    label: 'Molecular weight',
    moleculeField: 'molecular_weight',
    criterionField: 'cd_molweight',
    decimals: 3,
    unit: 'g/mol',
  },
  exactMass: {
    label: 'Exact mass',
    moleculeField: 'exact_mass',
    criterionField: 'exact_mass',
    decimals: 4,
  },
  logP: { label: 'cLogP', moleculeField: 'log_p', criterionField: 'log_p', decimals: 2 },
  topologicalPolarSurfaceArea: {
    label: 'TPSA',
    moleculeField: 'topological_polar_surface_area',
    criterionField: 'topological_polar_surface_area',
    decimals: 1,
    unit: 'Å²',
  },
  hBondDonorCount: {
    label: 'H-bond donors',
    moleculeField: 'num_h_bond_donors',
    criterionField: 'num_h_bond_donors',
    decimals: 0,
  },
  hBondAcceptorCount: {
    label: 'H-bond acceptors',
    moleculeField: 'num_h_bond_acceptors',
    criterionField: 'num_h_bond_acceptors',
    decimals: 0,
  },
  rotatableBondCount: {
    label: 'Rotatable bonds',
    moleculeField: 'num_rotatable_bonds',
    criterionField: 'num_rotatable_bonds',
    decimals: 0,
  },
  aromaticRingCount: {
    label: 'Aromatic rings',
    moleculeField: 'num_aromatic_rings',
    criterionField: 'num_aromatic_rings',
    decimals: 0,
  },
  heavyAtomCount: {
    label: 'Heavy atoms',
    moleculeField: 'heavy_atom_count',
    criterionField: 'heavy_atom_count',
    decimals: 0,
  },
  ruleOf5Violations: {
    label: 'Rule-of-5 violations',
    moleculeField: 'num_rule_of_5_violations',
    criterionField: 'num_rule_of_5_violations',
    decimals: 0,
  },
}

/** The fields of each property (`moleculeField`, `criterionField`). */
export const vaultPropertyFields = molecularProperties

export function isMolecularPropertyName(name: string): name is MolecularPropertyName {
  return (molecularPropertyNames as readonly string[]).includes(name)
}
