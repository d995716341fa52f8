import { beforeAll, describe, expect, it } from 'vitest'
import { graphHasStereo, GraphQuery } from './graph-matcher.ts'
import { checksTetrahedralCentres, moleculeGraphFromJson } from './molecule-graph.ts'
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

  const graphMatch = (query: string, molecule: string): boolean => {
    const target = graphOf(molecule)
    return GraphQuery.forPlainMolecule(graphOf(query))!.matches(target, 0, target.length)
  }

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
        const target = graphOf(moleculeText)
        const ours = graphQuery.matches(target, 0, target.length)
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
      // prettier-ignore
      Uint8Array.from([
        3, 0, // three atoms, no isotopes or radicals
        6, 0, firstAtomRings, 2, 6, 0, 1, 2, 6, 0, 1, 2, // carbons, each with two neighbours
        1, 1, 2, 1, 0, 1, 2, 1, 0, 1, 1, 1, // single bonds all round
      ])
    const query = GraphQuery.forPlainMolecule(triangle(2))!
    expect(query.matches(triangle(1), 0, 26)).toBe(false)
    expect(query.matches(triangle(2), 0, 26)).toBe(true)
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

  it('rules out molecules without stereo for queries whose stereocentres RDKit checks', () => {
    const stereoQueries = ['C[C@H](N)C(=O)O', 'C[C@@H](N)CC', 'C[C@@H]1CO1', 'N[C@H](C)c1ccccc1']
    const stereoMolecules = [
      'C[C@H](N)C(=O)O',
      'C[C@@H](N)C(=O)O',
      'CC(N)C(=O)O',
      'C[C@@H]1CO1',
      'CC1CO1',
      'C[C@H](N)c1ccccc1',
      'CC(N)c1ccccc1',
      'C/C=C/C(C)N',
      ...molecules,
    ]
    const options = JSON.stringify({ useChirality: true })
    let ruledOut = 0
    for (const queryText of stereoQueries) {
      const query = rdkit.module.get_mol(queryText)!
      expect(checksTetrahedralCentres(query.get_json())).toBe(true)
      for (const moleculeText of stereoMolecules) {
        const graph = graphOf(moleculeText)
        if (graphHasStereo(graph, 0)) continue
        ruledOut++
        const mol = rdkit.module.get_mol(moleculeText)!
        expect(mol.get_substruct_match(query, options), `${queryText} in ${moleculeText}`).toBe(
          '{}',
        )
        mol.delete()
      }
      query.delete()
    }
    expect(ruledOut).toBeGreaterThan(40)
    expect(graphHasStereo(graphOf('C/C=C/C'), 0)).toBe(true)
    expect(graphHasStereo(graphOf('C[C@H](N)O'), 0)).toBe(true)
    expect(graphHasStereo(graphOf('CC=CC'), 0)).toBe(false)
  })

  it('knows which query atoms RDKit checks for chirality: tetrahedral, three neighbours or more', () => {
    const checks = (smiles: string) => {
      const mol = rdkit.module.get_mol(smiles)!
      try {
        return checksTetrahedralCentres(mol.get_json())
      } finally {
        mol.delete()
      }
    }
    expect(checks('C[C@H](N)O')).toBe(true)
    expect(checks('C/C=C/C')).toBe(false)
    expect(checks('CC(N)O')).toBe(false)
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

  it('describes atoms, their neighbours and ring membership', () => {
    const graph = graphOf('c1ccccc1O')!
    expect([graph[0], graph[1]]).toEqual([7, 0])
    // The first atom: carbon, no charge, in one ring, two neighbours; the oxygen: in none.
    expect([...graph.subarray(2, 6)]).toEqual([6, 0, 1, 2])
    expect([...graph.subarray(2 + 6 * 4, 2 + 7 * 4)]).toEqual([8, 0, 0, 1])
    // The oxygen's one neighbour, last of all: the ring carbon it is bonded to, by a single bond.
    expect([...graph.subarray(graph.length - 2)]).toEqual([5, 1])
  })

  it('has no graph for molecules it cannot describe exactly', () => {
    expect(graphOf('[NH3]->[Cu+2]')).toBeNull()
    // From ChEMBL: RDKit flags the triple bond aromatic but keeps its type, which the JSON hides.
    expect(graphOf('CCc1nc#cn1CC1CC(c2ccccc2)(c2ccccc2)C(=O)O1')).toBeNull()
    expect(graphOf('C'.repeat(256))).toBeNull()
    expect(graphOf('C'.repeat(255))).not.toBeNull()
  })
})
