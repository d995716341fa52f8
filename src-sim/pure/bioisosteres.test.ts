import { beforeAll, describe, expect, it } from 'vitest'
import { loadChemistry, type Chemistry } from '../chem/chemistry.ts'
import { BIOISOSTERE_RULES } from './bioisostere-rules.ts'
import {
  fragmentStructure,
  suggestReplacements,
  type Fragment,
  type Suggestion,
} from './bioisosteres.ts'

let chemistry: Chemistry

beforeAll(async () => {
  chemistry = await loadChemistry()
})

function fragmentsOf(smiles: string): Fragment[] {
  return chemistry.withMol(smiles, (mol) => fragmentStructure(chemistry, mol))
}

function suggestionsFor(
  smiles: string,
  group: string,
  filterStructureAlerts = true,
): Suggestion[][] {
  return chemistry.withMol(smiles, (mol) =>
    fragmentStructure(chemistry, mol)
      .filter((fragment) => fragment.group === group)
      .map((fragment) => suggestReplacements(chemistry, mol, fragment, { filterStructureAlerts })),
  )
}

const canonical = (smiles: string): string => chemistry.canonicalSmiles(smiles)

describe('the rule table', () => {
  it('has valid SMARTS and reactions throughout', () => {
    for (const rule of BIOISOSTERE_RULES) {
      const query = chemistry.rdkit.get_qmol(rule.fragment)
      expect(query, rule.fragment).not.toBeNull()
      query?.delete()
      for (const replacement of rule.replacements) {
        const reaction = chemistry.rdkit.get_rxn(replacement.reaction.replaceAll('{site}', '999*'))
        expect(reaction, replacement.reaction).not.toBeNull()
        reaction?.delete()
        expect(replacement.score).toBeGreaterThan(0)
        expect(replacement.score).toBeLessThanOrEqual(1)
      }
    }
  })
})

describe('fragmentStructure', () => {
  it('finds the acid, the ring and the aryl chloride of 4-chlorobenzoic acid with atom indices', () => {
    // Atoms: O0 C1 (=O2) c3 c4 c5 c6(Cl7) c8 c9
    expect(fragmentsOf('OC(=O)c1ccc(Cl)cc1')).toEqual([
      { group: 'carboxylic acid', fragmentSmiles: '*C(=O)O', atomIndices: [0, 1, 2] },
      { group: 'benzene ring', fragmentSmiles: 'c1ccccc1', atomIndices: [3, 4, 5, 6, 8, 9] },
      { group: 'aryl chloride', fragmentSmiles: '*Cl', atomIndices: [7] },
    ])
  })

  it('tells esters, amides, hydroxyls and ethers apart', () => {
    const groups = (smiles: string): string[] => fragmentsOf(smiles).map((f) => f.group)
    expect(groups('CCOC(C)=O')).toEqual(['ester'])
    expect(groups('CNC(C)=O')).toEqual(['secondary amide'])
    expect(groups('OCC')).toEqual(['aliphatic hydroxyl'])
    expect(groups('CCOCC')).toEqual(['acyclic ether oxygen'])
    expect(groups('C1CCOC1')).toEqual([])
  })

  it('finds nothing in a molecule without rule fragments', () => {
    expect(fragmentsOf('CCCC')).toEqual([])
  })
})

describe('suggestReplacements', () => {
  it('replaces a carboxylic acid by a tetrazole first', () => {
    const [acid] = suggestionsFor('OC(=O)c1ccccc1', 'carboxylic acid')
    expect(acid![0]).toEqual({
      smiles: canonical('c1ccc(-c2nn[nH]n2)cc1'),
      replacement: 'tetrazole',
      score: 0.9,
    })
    expect(acid!.map((s) => s.replacement)).toEqual([
      'tetrazole',
      'acyl sulfonamide',
      '1,2,4-oxadiazol-5-one',
      'hydroxamic acid',
    ])
  })

  it('changes only the fragment it is asked about when a group occurs twice', () => {
    const [first, second] = suggestionsFor('OC(=O)CCc1ccc(cc1)C(=O)O', 'carboxylic acid')
    expect(first![0]!.smiles).toBe(canonical('OC(=O)c1ccc(CCc2nn[nH]n2)cc1'))
    expect(second![0]!.smiles).toBe(canonical('OC(=O)CCc1ccc(-c2nn[nH]n2)cc1'))
  })

  it('aza-scans a benzene ring and offers thienyl only for a monosubstituted ring', () => {
    const [ring] = suggestionsFor('Cc1ccccc1', 'benzene ring')
    const pyridyls = ring!.filter((s) => s.replacement === 'pyridyl').map((s) => s.smiles)
    expect(pyridyls.sort()).toEqual(['Cc1ccccn1', 'Cc1cccnc1', 'Cc1ccncc1'].map(canonical).sort())
    expect(ring!.map((s) => s.smiles)).toContain(canonical('Cc1cccs1'))
    const [disubstituted] = suggestionsFor('Cc1ccc(C)cc1', 'benzene ring')
    expect(disubstituted!.every((s) => s.replacement === 'pyridyl')).toBe(true)
  })

  it('turns an ester into an oxadiazole and an amide', () => {
    const [ester] = suggestionsFor('CCOC(=O)c1ccccc1', 'ester')
    expect(ester!.map((s) => s.smiles)).toEqual([
      canonical('CCc1noc(-c2ccccc2)n1'),
      canonical('CCNC(=O)c1ccccc1'),
    ])
  })

  it('drops a suggestion that introduces a structure alert unless filtering is off', () => {
    const [filtered] = suggestionsFor('CC(=O)NCc1ccccc1', 'secondary amide', true)
    const [unfiltered] = suggestionsFor('CC(=O)NCc1ccccc1', 'secondary amide', false)
    expect(filtered!.map((s) => s.replacement)).not.toContain('thioamide')
    expect(unfiltered!.map((s) => s.replacement)).toContain('thioamide')
  })
})
