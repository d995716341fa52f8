import rdkitPackage from '@rdkit/rdkit'
import type { MainModule as RDKitModule, Mol as JSMol } from '@rdkit/rdkit'
import { elementSymbol } from './elements.ts'
import type { ElementCounts } from './elements.ts'
import { deriveProperties } from './properties.ts'
import type { DerivedProperties, StructureProfile } from './properties.ts'

/** A structure the toolkit cannot read. The message names the input. */
export class ChemistryError extends Error {}

/** Everything the simulator stores about a structure. */
export interface StructureProperties extends DerivedProperties {
  smiles: string
  cxsmiles: string
  inchi: string
  inchiKey: string
  fingerprint: Uint8Array
  pickle: Uint8Array
}

/**
 * A structure as SMILES, CXSMILES or a molfile, or as an RDKit pickle (a molecule already read
 * and perceived, which RDKit loads several times faster than it parses text).
 */
export type StructureInput = string | Uint8Array

const fingerprintDetails = JSON.stringify({ radius: 2, nBits: 1024 })

/**
 * The simulator's chemistry, on RDKit (WASM). RDKit molecules live in WASM memory, so every one is
 * deleted right after use; nothing keeps molecules around between calls.
 */
export class Chemistry {
  readonly rdkit: RDKitModule
  readonly #acid: JSMol
  readonly #base: JSMol

  constructor(rdkit: RDKitModule) {
    this.rdkit = rdkit
    this.#acid = this.#query('[CX3](=O)[OX2H1,OX1-]')
    this.#base = this.#query('[NX3;!$(N-C=[O,N,S]);!$(N-a);!$(N-S);!$(N#*);!$(N=*)]')
  }

  /** Runs `use` on a molecule read from SMILES, CXSMILES, a molfile or a pickle, then frees it. */
  withMol<T>(structure: StructureInput, use: (mol: JSMol) => T): T {
    const mol = this.#read(structure)
    try {
      return use(mol)
    } finally {
      mol.delete()
    }
  }

  /** Reads a substructure query (SMARTS or SMILES) and returns a matcher to dispose of. */
  substructureMatcher(query: string): {
    matches(structure: StructureInput): boolean
    dispose(): void
  } {
    const queryMol = this.#query(query)
    return {
      matches: (structure) => {
        const mol =
          typeof structure === 'string'
            ? this.rdkit.get_mol(structure)
            : this.rdkit.get_mol_from_uint8array(structure)
        if (!mol) return false
        try {
          return mol.get_substruct_match(queryMol) !== '{}'
        } finally {
          mol.delete()
        }
      },
      dispose: () => queryMol.delete(),
    }
  }

  canonicalSmiles(structure: string): string {
    return this.withMol(structure, (mol) => mol.get_smiles())
  }

  fingerprint(structure: StructureInput): Uint8Array {
    return this.withMol(
      structure,
      (mol) => mol.get_morgan_fp_as_uint8array(fingerprintDetails) as Uint8Array,
    )
  }

  /** The pickle and the fingerprint of a structure, from one reading of it. */
  searchForms(structure: StructureInput): { pickle: Uint8Array; fingerprint: Uint8Array } {
    return this.withMol(structure, (mol) => ({
      pickle: mol.get_as_uint8array() as Uint8Array,
      fingerprint: mol.get_morgan_fp_as_uint8array(fingerprintDetails) as Uint8Array,
    }))
  }

  /** InChI and InChIKey. */
  inchi(structure: StructureInput): { inchi: string; inchiKey: string } {
    return this.withMol(structure, (mol) => {
      const inchi = mol.get_inchi()
      return { inchi, inchiKey: this.rdkit.get_inchikey_for_inchi(inchi) }
    })
  }

  molblock(structure: string): string {
    return this.withMol(structure, (mol) => mol.get_molblock())
  }

  inchiKey(structure: string): string {
    return this.inchi(structure).inchiKey
  }

  svg(structure: string, width: number, height: number): string {
    return this.withMol(structure, (mol) => mol.get_svg(width, height))
  }

  /** Element counts including implicit hydrogens. */
  elementCounts(structure: string): ElementCounts {
    return this.withMol(structure, (mol) => countElements(JSON.parse(mol.get_json()) as MolJson))
  }

  /** The additive counts of a structure (see properties.ts). */
  profile(structure: string): StructureProfile {
    return this.withMol(structure, (mol) => this.#profile(mol))
  }

  /** The full property set; several milliseconds a molecule, so not for bulk seeding. */
  describe(structure: string): StructureProperties {
    return this.withMol(structure, (mol) => {
      const inchi = mol.get_inchi()
      return {
        ...deriveProperties(this.#profile(mol)),
        smiles: mol.get_smiles(),
        cxsmiles: mol.get_cxsmiles(),
        inchi,
        inchiKey: this.rdkit.get_inchikey_for_inchi(inchi),
        fingerprint: mol.get_morgan_fp_as_uint8array(fingerprintDetails) as Uint8Array,
        pickle: mol.get_as_uint8array() as Uint8Array,
      }
    })
  }

  #profile(mol: JSMol): StructureProfile {
    const descriptors = JSON.parse(mol.get_descriptors()) as Record<string, number>
    const json = JSON.parse(mol.get_json()) as MolJson
    const elements = countElements(json)
    const heavyAtomCount = descriptors.NumHeavyAtoms ?? 0
    return {
      elements,
      heavyAtomCount,
      numAromaticRings: descriptors.NumAromaticRings ?? 0,
      numHBondDonors: descriptors.NumHBD ?? 0,
      numHBondAcceptors: descriptors.NumHBA ?? 0,
      lipinskiDonors: descriptors.lipinskiHBD ?? 0,
      lipinskiAcceptors: descriptors.lipinskiHBA ?? 0,
      numRotatableBonds: descriptors.NumRotatableBonds ?? 0,
      topologicalPolarSurfaceArea: descriptors.tpsa ?? 0,
      logP: descriptors.CrippenClogP ?? 0,
      acidGroups: countMatches(mol, this.#acid),
      basicGroups: countMatches(mol, this.#base),
      aromaticAtoms: json.molecules.reduce(
        (sum, molecule) => sum + (molecule.extensions?.[0]?.aromaticAtoms?.length ?? 0),
        0,
      ),
      sp3Carbons: Math.round((descriptors.FractionCSP3 ?? 0) * (elements.C ?? 0)),
    }
  }

  #read(structure: StructureInput): JSMol {
    if (typeof structure !== 'string') {
      const mol = this.rdkit.get_mol_from_uint8array(structure)
      if (!mol) throw new ChemistryError('A stored molecule pickle cannot be read')
      return mol
    }
    // Only a one-line structure (SMILES, CXSMILES) is trimmed: a molfile's first line is its
    // name, which most writers leave blank, so trimming would shift every line after it.
    const trimmed = structure.trim()
    const text = trimmed.includes('\n') ? structure : trimmed
    const mol = trimmed === '' ? null : this.rdkit.get_mol(text)
    if (!mol)
      throw new ChemistryError(
        `'${abbreviate(structure)}' is not a structure that can be read (SMILES, CXSMILES or molfile)`,
      )
    return mol
  }

  #query(query: string): JSMol {
    const mol =
      query.trim() === '' ? null : (this.rdkit.get_qmol(query) ?? this.rdkit.get_mol(query))
    if (!mol)
      throw new ChemistryError(
        `'${abbreviate(query)}' is not a substructure query that can be read`,
      )
    return mol
  }
}

let loading: Promise<Chemistry> | undefined

/** Loads RDKit once per process (its WASM start-up is the slow part). */
export function loadChemistry(): Promise<Chemistry> {
  // The package is CommonJS: under Node's ESM interop its factory is also `module.exports.default`.
  const chemistry = (loading ??= rdkitPackage.default().then((rdkit) => {
    rdkit.disable_logging()
    return new Chemistry(rdkit)
  }))
  return chemistry
}

interface MolJson {
  defaults: { atom: { z: number; impHs: number } }
  molecules: {
    atoms: { z?: number; impHs?: number }[]
    extensions?: { aromaticAtoms?: number[] }[]
  }[]
}

function countElements(json: MolJson): ElementCounts {
  const counts: ElementCounts = {}
  for (const molecule of json.molecules) {
    for (const atom of molecule.atoms) {
      const symbol = elementSymbol(atom.z ?? json.defaults.atom.z)
      counts[symbol] = (counts[symbol] ?? 0) + 1
      const hydrogens = atom.impHs ?? json.defaults.atom.impHs
      if (hydrogens > 0) counts.H = (counts.H ?? 0) + hydrogens
    }
  }
  return counts
}

function countMatches(mol: JSMol, query: JSMol): number {
  // RDKit answers "{}" rather than an empty list when nothing matches.
  const matches = JSON.parse(mol.get_substruct_matches(query)) as unknown
  return Array.isArray(matches) ? matches.length : 0
}

function abbreviate(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim()
  return oneLine.length > 60 ? `${oneLine.slice(0, 57)}...` : oneLine
}
