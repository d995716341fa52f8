/**
 * The rule table behind the simulator's deep-learning bioisostere operations. A real vault runs a
 * trained model; the simulator stands in for it with textbook medicinal-chemistry replacements.
 * Each rule names a fragment kind (a SMARTS whose matched atoms form the fragment) and the
 * replacements offered for it, each with a fixed score in 0..1 that orders the suggestions.
 *
 * | fragment              | replacements (score)                                                     |
 * | --------------------- | ------------------------------------------------------------------------ |
 * | carboxylic acid       | tetrazole (0.9), acyl sulfonamide (0.7), 1,2,4-oxadiazol-5-one (0.6),   |
 * |                       | hydroxamic acid (0.5)                                                    |
 * | benzene ring          | pyridyl, one per ring CH (0.8); 2-thienyl (0.6), 3-thienyl (0.5) and    |
 * |                       | cyclohexyl (0.3) when the ring has one substituent                       |
 * | ester                 | 1,2,4-oxadiazole (0.7), secondary amide (0.6)                            |
 * | secondary amide       | 1,2,4-oxadiazole (0.6), 1,2,3-triazole (0.5), trifluoroethylamine (0.4), |
 * |                       | thioamide (0.3; a thiocarbonyl, so structure-alert filtering removes it) |
 * | phenol hydroxyl       | methanesulfonamide (0.5), amino (0.3)                                    |
 * | aliphatic hydroxyl    | fluorine (0.5), amino (0.3)                                              |
 * | aryl chloride         | trifluoromethyl (0.6), methyl (0.5), nitrile (0.4)                       |
 * | aryl methyl           | chlorine (0.5), trifluoromethyl (0.4)                                    |
 * | acyclic ether oxygen  | methylene (0.4), sulfur (0.3), NH (0.3)                                  |
 *
 * Replacements are RDKit reaction SMARTS. `{site}` marks the reactant atoms that must belong to
 * the fragment being replaced: the atoms of that fragment carry a marker isotope while the
 * reaction runs, so that a molecule with two acids gets one suggestion per acid.
 */

export interface Replacement {
  name: string
  reaction: string
  score: number
}

export interface BioisostereRule {
  group: string
  /** SMARTS of the fragment's atoms; context outside the fragment goes in recursive SMARTS. */
  fragment: string
  /** How the fragment is shown to clients (`*` is the attachment). */
  fragmentSmiles: string
  replacements: readonly Replacement[]
}

const ACID = '[#6:1][CX3;{site}](=[O;{site}])[OX2H1;{site}]'
const BENZENE_MONO = '[*:1]-!@[c;{site}]1[cH;{site}][cH;{site}][cH;{site}][cH;{site}][cH;{site}]1'
const ESTER = '[#6:1][CX3;{site}](=[O;{site}])[OX2H0;{site}][#6:2]'
const AMIDE = '[#6:1][CX3;{site}](=[O;{site}])[NX3H1;{site}][#6:2]'

export const BIOISOSTERE_RULES: readonly BioisostereRule[] = [
  {
    group: 'carboxylic acid',
    fragment: '[CX3;$(C[#6])](=O)[OX2H1]',
    fragmentSmiles: '*C(=O)O',
    replacements: [
      { name: 'tetrazole', reaction: `${ACID}>>[#6:1]c1nn[nH]n1`, score: 0.9 },
      { name: 'acyl sulfonamide', reaction: `${ACID}>>[#6:1]C(=O)NS(C)(=O)=O`, score: 0.7 },
      { name: '1,2,4-oxadiazol-5-one', reaction: `${ACID}>>[#6:1]C1=NOC(=O)N1`, score: 0.6 },
      { name: 'hydroxamic acid', reaction: `${ACID}>>[#6:1]C(=O)NO`, score: 0.5 },
    ],
  },
  {
    group: 'benzene ring',
    fragment: 'c1ccccc1',
    fragmentSmiles: 'c1ccccc1',
    replacements: [
      { name: 'pyridyl', reaction: '[cH1;{site}:1]>>[n:1]', score: 0.8 },
      { name: '2-thienyl', reaction: `${BENZENE_MONO}>>[*:1]-c1cccs1`, score: 0.6 },
      { name: '3-thienyl', reaction: `${BENZENE_MONO}>>[*:1]-c1ccsc1`, score: 0.5 },
      { name: 'cyclohexyl', reaction: `${BENZENE_MONO}>>[*:1]-C1CCCCC1`, score: 0.3 },
    ],
  },
  {
    group: 'ester',
    fragment: '[CX3;$(C[#6])](=O)[OX2H0;$(O[#6;!$(C=O)])]',
    fragmentSmiles: '*C(=O)O*',
    replacements: [
      { name: '1,2,4-oxadiazole', reaction: `${ESTER}>>[#6:1]c1nc([#6:2])no1`, score: 0.7 },
      { name: 'secondary amide', reaction: `${ESTER}>>[#6:1]C(=O)N[#6:2]`, score: 0.6 },
    ],
  },
  {
    group: 'secondary amide',
    fragment: '[CX3;$(C[#6])](=O)[NX3H1;$(N[#6;!$(C=O)])]',
    fragmentSmiles: '*C(=O)N*',
    replacements: [
      { name: '1,2,4-oxadiazole', reaction: `${AMIDE}>>[#6:1]c1noc([#6:2])n1`, score: 0.6 },
      { name: '1,2,3-triazole', reaction: `${AMIDE}>>[#6:1]c1cn([#6:2])nn1`, score: 0.5 },
      {
        name: 'trifluoroethylamine',
        reaction: `${AMIDE}>>[#6:1]C(C(F)(F)F)N[#6:2]`,
        score: 0.4,
      },
      { name: 'thioamide', reaction: `${AMIDE}>>[#6:1]C(=S)N[#6:2]`, score: 0.3 },
    ],
  },
  {
    group: 'phenol hydroxyl',
    fragment: '[OX2H1;$(Oc)]',
    fragmentSmiles: '*O',
    replacements: [
      { name: 'methanesulfonamide', reaction: '[c:1][OH1;{site}]>>[c:1]NS(C)(=O)=O', score: 0.5 },
      { name: 'amino', reaction: '[c:1][OH1;{site}]>>[c:1]N', score: 0.3 },
    ],
  },
  {
    group: 'aliphatic hydroxyl',
    fragment: '[OX2H1;$(O[CX4])]',
    fragmentSmiles: '*O',
    replacements: [
      { name: 'fluorine', reaction: '[CX4:1][OH1;{site}]>>[C:1]F', score: 0.5 },
      { name: 'amino', reaction: '[CX4:1][OH1;{site}]>>[C:1]N', score: 0.3 },
    ],
  },
  {
    group: 'aryl chloride',
    fragment: '[Cl;$(Clc)]',
    fragmentSmiles: '*Cl',
    replacements: [
      { name: 'trifluoromethyl', reaction: '[c:1][Cl;{site}]>>[c:1]C(F)(F)F', score: 0.6 },
      { name: 'methyl', reaction: '[c:1][Cl;{site}]>>[c:1]C', score: 0.5 },
      { name: 'nitrile', reaction: '[c:1][Cl;{site}]>>[c:1]C#N', score: 0.4 },
    ],
  },
  {
    group: 'aryl methyl',
    fragment: '[CH3;$(Cc)]',
    fragmentSmiles: '*C',
    replacements: [
      { name: 'chlorine', reaction: '[c:1][CH3;{site}]>>[c:1]Cl', score: 0.5 },
      { name: 'trifluoromethyl', reaction: '[c:1][CH3;{site}]>>[c:1]C(F)(F)F', score: 0.4 },
    ],
  },
  {
    group: 'acyclic ether oxygen',
    fragment: '[OX2H0;!R;$(O([#6])[#6]);!$(OC=O)]',
    fragmentSmiles: '*O*',
    replacements: [
      { name: 'methylene', reaction: '[#6:1][O;{site}][#6:2]>>[#6:1]C[#6:2]', score: 0.4 },
      { name: 'sulfur', reaction: '[#6:1][O;{site}][#6:2]>>[#6:1]S[#6:2]', score: 0.3 },
      { name: 'NH', reaction: '[#6:1][O;{site}][#6:2]>>[#6:1]N[#6:2]', score: 0.3 },
    ],
  },
]

/**
 * Substructures that medicinal chemists avoid (reactive or toxic groups). With
 * filter_structure_alerts, a suggestion is dropped when it has an alert the input did not have.
 */
export const STRUCTURE_ALERTS: readonly { name: string; smarts: string }[] = [
  { name: 'thiocarbonyl', smarts: '[#6]=[SX1]' },
  { name: 'aldehyde', smarts: '[CX3H1](=O)[#6]' },
  { name: 'acyl halide', smarts: 'C(=O)[F,Cl,Br,I]' },
  { name: 'azo', smarts: '[#6]N=N[#6]' },
  { name: 'peroxide', smarts: 'OO' },
  { name: 'isocyanate', smarts: 'N=C=O' },
  { name: 'nitro', smarts: '[N+](=O)[O-]' },
  { name: 'thiol', smarts: '[SX2H1]' },
  { name: 'hydrazine', smarts: '[NX3;!$(NC=O)][NX3;!$(NC=O)]' },
  { name: 'Michael acceptor', smarts: '[CH2]=[CH]C(=O)' },
]
