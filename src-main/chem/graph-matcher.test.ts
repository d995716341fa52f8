import { beforeAll, describe, expect, it } from 'vitest'
import { GraphQuery } from './graph-matcher.ts'
import { moleculeGraphFromJson } from './molecule-graph.ts'
import { RDKitToolkit } from './rdkit-toolkit.ts'

const molecules = [
  'CC(=O)Oc1ccccc1C(=O)O',
  'CC(=O)[O-].[Na+]',
  'CCCCCC',
  'C1CCCCC1',
  'c1ccc2ccccc2c1',
  'C1CC2CCC1C2',
  'C1CCC2CCCCC2C1',
  'c1ccc(-c2ccccc2)cc1',
  'CC(C)Cc1ccc(C(C)C(=O)O)cc1',
  'CN1CCC[C@H]1c1cccnc1',
  'O=C(NC1CC1)c1cc(Oc2ccc(NC(=S)Nc3ccc(F)c(F)c3)cc2)ccn1',
  '[13CH3]O',
  'CO',
  '[CH2]C',
  'CC',
  '[2H]CC',
  'C[N+](C)(C)C',
  'OCCN',
  'O',
  'Clc1ccc(Br)cc1I',
  'C#N',
  'N#Cc1ccccc1',
  'C1=CCC=CC1',
  'O=S(=O)(N)c1ccccc1',
  'C/C=C/C',
  'c1ccncc1',
  'C1CCC1C1CCC1',
  'C12C3C4C1C5C2C3C45',
]

const queries = [
  'c1ccccc1',
  'C1=CC=CC=C1',
  'C=C',
  'C1CCCCC1',
  'CC',
  'C(=O)O',
  'C(=O)[O-]',
  '[O-]',
  '[13CH3]',
  'CO',
  '[CH2]C',
  '[2H]C',
  'C.N',
  'O.O',
  'c1ccc2ccccc2c1',
  'C1CC2CCC1C2',
  'CCCC',
  'C1CCC1',
  '[N+]',
  'N',
  'S(=O)(=O)N',
  'c1ccncc1',
  'Ic1ccccc1Br',
  'C#N',
  'CC(C)C',
  'C(C)(C)(C)C',
  'c1ccccc1-c1ccccc1',
]

describe('GraphQuery', () => {
  let rdkit: RDKitToolkit
  beforeAll(async () => {
    rdkit = await RDKitToolkit.load()
  })

  const graphOf = (smiles: string): Uint8Array => {
    const mol = rdkit.module.get_mol(smiles)!
    try {
      return moleculeGraphFromJson(mol.get_json())!
    } finally {
      mol.delete()
    }
  }

  const graphMatch = (query: string, molecule: string): boolean =>
    GraphQuery.forPlainMolecule(graphOf(query))!.matches(graphOf(molecule), 0)

  it('gives the answer RDKit gives, for every query against every molecule', () => {
    const disagreements: string[] = []
    let hits = 0
    for (const queryText of queries) {
      const query = rdkit.module.get_mol(queryText)!
      const graphQuery = GraphQuery.forPlainMolecule(graphOf(queryText))!
      for (const moleculeText of molecules) {
        const parsed = rdkit.module.get_mol(moleculeText)!
        // The scan verifies on pickles, so RDKit is asked about the unpickled molecule.
        const mol = rdkit.module.get_mol_from_uint8array(parsed.get_as_uint8array())!
        const expected = mol.get_substruct_match(query) !== '{}'
        const ours = graphQuery.matches(graphOf(moleculeText), 0)
        if (ours !== expected) disagreements.push(`${queryText} in ${moleculeText}: ${ours}`)
        if (expected) hits++
        mol.delete()
        parsed.delete()
      }
      query.delete()
    }
    expect(disagreements).toEqual([])
    expect(hits).toBeGreaterThan(60)
  })

  it("holds a ring atom of the query only to atoms in as many rings (RDKit's Atom::Match)", () => {
    expect(graphMatch('C1CCCCC1', 'CCCCCC')).toBe(false)
    expect(graphMatch('CCCCCC', 'C1CCCCC1')).toBe(true)
    // Real molecules seldom reach the rule through a graph that fits, so it is shown on graphs
    // written by hand: a triangle whose first atom the query counts in two rings.
    const triangle = (firstAtomRings: number): Uint8Array =>
      Uint8Array.from([3, 3, 0, 6, 0, firstAtomRings, 6, 0, 1, 6, 0, 1, 0, 1, 1, 1, 2, 1, 2, 0, 1])
    const query = GraphQuery.forPlainMolecule(triangle(2))!
    expect(query.matches(triangle(1), 0)).toBe(false)
    expect(query.matches(triangle(2), 0)).toBe(true)
  })

  it('matches charges, isotopes and radicals only where the query sets them', () => {
    expect(graphMatch('CC(=O)O', 'CC(=O)[O-]')).toBe(true)
    expect(graphMatch('CC(=O)[O-]', 'CC(=O)O')).toBe(false)
    expect(graphMatch('[13CH3]O', 'CO')).toBe(false)
    expect(graphMatch('CO', '[13CH3]O')).toBe(true)
    expect(graphMatch('[CH2]C', 'CC')).toBe(false)
  })

  it('tells aromatic bonds from double ones, and maps each query atom to its own atom', () => {
    expect(graphMatch('C=C', 'c1ccccc1')).toBe(false)
    expect(graphMatch('C1=CC=CC=C1', 'c1ccccc1')).toBe(true)
    expect(graphMatch('O.O', 'O')).toBe(false)
    expect(graphMatch('C.N', 'CCN')).toBe(true)
    expect(graphMatch('C(C)(C)(C)C', 'CC(C)C')).toBe(false)
  })

  it('leaves queries with dummy atoms to RDKit', () => {
    expect(GraphQuery.forPlainMolecule(graphOf('*c1ccccc1'))).toBeNull()
  })
})

describe('moleculeGraphFromJson', () => {
  let rdkit: RDKitToolkit
  beforeAll(async () => {
    rdkit = await RDKitToolkit.load()
  })

  const graphOf = (smiles: string): Uint8Array | null => {
    const mol = rdkit.module.get_mol(smiles)!
    try {
      return moleculeGraphFromJson(mol.get_json())
    } finally {
      mol.delete()
    }
  }

  it('describes atoms, bonds and ring membership', () => {
    const graph = graphOf('c1ccccc1O')!
    expect([graph[0], graph[1], graph[2]]).toEqual([7, 7, 0])
    // The first atom: carbon, no charge, in one ring; the oxygen: in none.
    expect([...graph.subarray(3, 6)]).toEqual([6, 0, 1])
    expect([...graph.subarray(3 + 6 * 3, 3 + 7 * 3)]).toEqual([8, 0, 0])
  })

  it('has no graph for molecules it cannot describe exactly', () => {
    expect(graphOf('[NH3]->[Cu+2]')).toBeNull()
    expect(graphOf('C'.repeat(256))).toBeNull()
    expect(graphOf('C'.repeat(255))).not.toBeNull()
  })
})
