import { beforeAll, describe, expect, it } from 'vitest'
import { moleculeGraphFromJson } from './molecule-graph.ts'
import { moleculeGraphFromPickle } from './pickle-graph.ts'
import { RDKitToolkit } from './rdkit-toolkit.ts'

const butenePositions = [
  '    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0',
  '    1.2990    0.7500    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0',
  '    2.5981    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0',
  '    3.8971    0.7500    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0',
]
/** A double bond drawn crossed: stereo "either", which the JSON counts as stereo. */
const crossedButene = [
  '',
  '  crossed',
  '',
  '  4  3  0  0  0  0  0  0  0  0999 V2000',
  ...butenePositions,
  '  1  2  1  0',
  '  2  3  2  3',
  '  3  4  1  0',
  'M  END',
].join('\n')
/** A wedged centre, with a charge, a radical and an isotope from the property block. */
const wedgedCentre = [
  '',
  '  wedged',
  '',
  '  5  4  0  0  0  0  0  0  0  0999 V2000',
  '    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0',
  '    1.2990    0.7500    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0',
  '    2.5981    0.0000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0',
  '    1.2990    2.2500    0.0000 N   0  0  0  0  0  0  0  0  0  0  0  0',
  '    1.2990   -0.7500    0.0000 F   0  0  0  0  0  0  0  0  0  0  0  0',
  '  1  2  1  0',
  '  2  3  1  0',
  '  2  4  1  1',
  '  2  5  1  0',
  'M  CHG  1   3  -1',
  'M  RAD  1   1   2',
  'M  ISO  1   4  15',
  'M  END',
].join('\n')

/** Molecules whose graph the pickle reader must give, exactly as the JSON reader does. */
const readable = [
  'c1ccccc1',
  'CC(=O)Oc1ccccc1C(=O)O',
  'c1ccncc1',
  'c1ccc2[nH]ccc2c1',
  'c1ccoc1',
  'c1ccsc1',
  'Cn1cnc2c1c(=O)n(C)c(=O)n2C',
  'O=c1cc[nH]cc1',
  'C[n+]1ccccc1',
  'C[N+](C)(C)C',
  'CC(=O)[O-].[Na+]',
  'O=[N+]([O-])c1ccccc1',
  'C[N+]#[C-]',
  '[13CH3]O',
  '[2H]C([2H])([2H])Cl',
  '[CH2]C',
  '[CH3]',
  'C[C@H](N)C(=O)O',
  'N[C@@H](Cc1ccccc1)C(=O)O',
  'C[C@H]1CC[C@@H](C)CC1',
  'C/C=C/C',
  'F/C=C\\F',
  'CC=[C@]=CC',
  'F[Pt@SP1](Cl)(Br)I',
  'c1ccc2ccccc2c1',
  'c1ccc2c(c1)ccc1ccccc12',
  'C1CC2CCC1C2',
  'C1C2CC3CC1CC(C2)C3',
  'C12C3C4C1C5C2C3C45',
  'C1CCCCCCCCCCCCCCCCCCCCCCC1',
  'O=C1CCCCCCCCCCCCCCO1',
  '[Fe+2].[Cl-].[Cl-]',
  'C[Hg]C',
  'CC(=O)O[Cu]OC(C)=O',
  '[H][H]',
  '[H]C([H])([H])O',
  'C$C',
  '[CH3:1][OH:2]',
  '*c1ccccc1',
  'C[C@H](F)C[C@@H](C)O |&1:1,4|',
  'C[C@H](O)C(=O)O |o1:1|',
  'CCC(=O)OC(Cc1ccccc1)(c1ccccc1)[C@H](C)CN(C)C |wU:2.1|',
  'CCC(=O)OC(Cc1ccccc1)(c1ccccc1)[C@H](C)CN(C)C |wD:2.1|',
  crossedButene,
  wedgedCentre,
]

/** Molecules the pickle reader may leave to the JSON: the answer is theirs or null. */
const either = [
  'CCO |SgD:2:PieceName:abc::::|',
  'C[C@AL1](F)=C=CC',
  'F[As@TB1](Cl)(Br)(I)C',
  'F[Co@OH1](Cl)(Br)(I)(C)N',
]

/** Molecules with no graph at all (dative bonds, over 255 atoms): null either way. */
const withoutGraph = ['[NH3]->[Pt]', 'C'.repeat(300)]

describe('the molecule graph read from the pickle', () => {
  let rdkit: RDKitToolkit
  beforeAll(async () => {
    rdkit = await RDKitToolkit.load()
  })

  const graphs = (text: string) => {
    const parsed = rdkit.parseMolecule(text)
    if (!parsed.ok) throw new Error(`${text}: ${parsed.problem}`)
    try {
      const pickle = parsed.value.get_as_uint8array() as Uint8Array
      return {
        pickle,
        fromJson: moleculeGraphFromJson(parsed.value.get_json()),
        fromPickle: moleculeGraphFromPickle(pickle),
      }
    } finally {
      parsed.value.delete()
    }
  }

  it.each(readable)('is the JSON graph for %s', (text) => {
    const { fromJson, fromPickle } = graphs(text)
    expect(fromJson).not.toBeNull()
    expect(fromPickle).not.toBeNull()
    expect([...fromPickle!]).toEqual([...fromJson!])
  })

  it.each(either)('is the JSON graph or null for %s', (text) => {
    const { fromJson, fromPickle } = graphs(text)
    if (fromPickle !== null) expect([...fromPickle]).toEqual([...fromJson!])
  })

  it.each(withoutGraph)('is null when the molecule has no graph: %s', (text) => {
    const { fromJson, fromPickle } = graphs(text)
    expect(fromJson).toBeNull()
    expect(fromPickle).toBeNull()
  })

  it('marks stereo, extras and ring counts as the JSON does', () => {
    const graph = graphs('C[C@H]1CC[C@@H]([13CH3])c2ccccc21').fromPickle!
    expect(graph[1]).toBe(3)
    expect(graphs('CCO').fromPickle![1]).toBe(0)
    // The ring fusion atoms are in both rings.
    const fusion = graphs('c1ccc2ccccc2c1').fromPickle!
    expect([...Array.from({ length: 10 }, (_, atom) => fusion[2 + atom * 4 + 2])]).toEqual([
      1, 1, 1, 2, 1, 1, 1, 1, 2, 1,
    ])
  })

  it('is null for an empty pickle and for every truncation of a real one', () => {
    expect(moleculeGraphFromPickle(new Uint8Array(0))).toBeNull()
    const pickledParts = [
      '[CH3:300]C[C@H](*)C/C=C/C',
      'C[C@H](F)C[C@@H](C)O |&1:1,4|',
      wedgedCentre,
    ]
    for (const text of pickledParts) {
      const { pickle } = graphs(text)
      expect(moleculeGraphFromPickle(pickle)).not.toBeNull()
      for (let length = 0; length < pickle.length; length++) {
        expect(moleculeGraphFromPickle(pickle.subarray(0, length))).toBeNull()
      }
    }
  })

  it('is null for a pickle of another version or with bytes after its end', () => {
    const { pickle } = graphs('c1ccccc1O')
    const otherVersion = pickle.slice()
    otherVersion[12]!++
    expect(moleculeGraphFromPickle(otherVersion)).toBeNull()
    const extended = new Uint8Array(pickle.length + 1)
    extended.set(pickle)
    expect(moleculeGraphFromPickle(extended)).toBeNull()
  })

  it('is null for random bytes, and never throws on damaged pickles', () => {
    const random = seededRandom(7)
    for (let i = 0; i < 2000; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(random() * 600) }, () => random() * 256)
      expect(moleculeGraphFromPickle(bytes)).toBeNull()
    }
    const { pickle } = graphs('C[C@H](F)C[C@@H](C)O |&1:1,4|')
    for (let at = 0; at < pickle.length; at++) {
      for (const value of [0, 1, 0x7f, 0x80, 0xff]) {
        const damaged = pickle.slice()
        damaged[at] = value
        expect(() => moleculeGraphFromPickle(damaged)).not.toThrow()
      }
    }
  })
})

/** A small deterministic generator (mulberry32), so that a failure can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}
