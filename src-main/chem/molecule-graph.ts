/**
 * A molecule's graph in a few bytes, as RDKit's substructure matching sees it: per atom the
 * element, charge, isotope, radicals and how many of the molecule's rings hold it; per bond its
 * atoms and RDKit bond type. The graph matcher (graph-matcher.ts) reads it in plain JavaScript,
 * which for broad queries is many times cheaper than unpickling every candidate in RDKit.
 *
 * Layout, read in place by the matcher: [atomCount][graphFlags]; per atom [element][charge as
 * int8][rings][degree]; then each atom's neighbours in atom order, [atom][bond type] each; then,
 * when some atom has an isotope or radicals, per atom [isotope low][isotope high][radicals].
 *
 * A molecule the graph cannot describe exactly (over 255 atoms, a bond RDKit matches by more than
 * its type, such as dative bonds, or a bond whose type the JSON leaves in doubt) has no graph;
 * RDKit then verifies it.
 */

export const graphHeaderBytes = 2
export const graphAtomBytes = 4
export const graphNeighbourBytes = 2
export const graphExtraBytes = 3
export const aromaticBondType = 12
export const graphFlags = {
  /** Some atom has an isotope or radicals: the per-atom extras follow the neighbours. */
  extras: 1,
  /** Some atom or bond carries stereo (a chiral tag, a double bond's configuration). */
  stereo: 2,
} as const

/** RDKit bond types matched by type alone: single through hextuple, and aromatic. */
const plainBondTypes = new Set([1, 2, 3, 4, 5, 6, aromaticBondType])
const largestCount = 255

interface JsonAtom {
  z?: number
  chg?: number
  isotope?: number
  nRad?: number
  stereo?: string
}

interface JsonBond {
  bo?: number
  atoms: [number, number]
  stereo?: string
}

interface RdkitJson {
  defaults: { atom: Required<JsonAtom>; bond: { bo: number } }
  molecules: {
    atoms: JsonAtom[]
    bonds?: JsonBond[]
    extensions?: { name: string; aromaticBonds?: number[]; atomRings?: number[][] }[]
  }[]
}

/** The graph of a molecule from RDKit's JSON (`Mol.get_json()`), or null when it has none. */
export function moleculeGraphFromJson(json: string): Uint8Array | null {
  const document = JSON.parse(json) as RdkitJson
  const molecule = document.molecules[0]
  if (!molecule) return null
  const atoms = molecule.atoms
  const bonds = molecule.bonds ?? []
  if (atoms.length === 0 || atoms.length > largestCount) return null
  const representation = molecule.extensions?.find((e) => e.name === 'rdkitRepresentation')
  const aromatic = new Set(representation?.aromaticBonds ?? [])
  const rings = new Uint8Array(atoms.length)
  for (const ring of representation?.atomRings ?? []) {
    for (const atom of ring) rings[atom] = Math.min(largestCount, rings[atom]! + 1)
  }
  const defaults = document.defaults.atom
  const valueOf = (atom: JsonAtom, key: Exclude<keyof JsonAtom, 'stereo'>): number =>
    atom[key] ?? defaults[key]
  const specified = (stereo: string | undefined): boolean =>
    stereo !== undefined && stereo !== 'unspecified'
  const hasStereo =
    atoms.some((atom) => specified(atom.stereo)) || bonds.some((bond) => specified(bond.stereo))
  const hasExtras = atoms.some(
    (atom) => valueOf(atom, 'isotope') !== 0 || valueOf(atom, 'nRad') !== 0,
  )
  const neighbours: [number, number][][] = atoms.map(() => [])
  for (const [position, bond] of bonds.entries()) {
    const order = bond.bo ?? document.defaults.bond.bo
    // The JSON gives aromatic bonds their Kekulé order. A bond flagged aromatic that keeps another
    // order (a triple bond written inside an aromatic ring) is not of RDKit's aromatic type, and
    // the JSON cannot say which type it has.
    if (aromatic.has(position) && order !== 1 && order !== 2) return null
    const type = aromatic.has(position) ? aromaticBondType : order
    if (!plainBondTypes.has(type)) return null
    const [a, b] = bond.atoms
    neighbours[a]!.push([b, type])
    neighbours[b]!.push([a, type])
  }
  const graph = new Uint8Array(
    graphHeaderBytes +
      atoms.length * graphAtomBytes +
      bonds.length * 2 * graphNeighbourBytes +
      (hasExtras ? atoms.length * graphExtraBytes : 0),
  )
  graph[0] = atoms.length
  graph[1] = (hasExtras ? graphFlags.extras : 0) | (hasStereo ? graphFlags.stereo : 0)
  let at = graphHeaderBytes
  for (const [position, atom] of atoms.entries()) {
    const element = valueOf(atom, 'z')
    const charge = valueOf(atom, 'chg')
    const degree = neighbours[position]!.length
    if (element > largestCount || charge < -128 || charge > 127 || degree > largestCount) {
      return null
    }
    graph[at++] = element
    graph[at++] = charge & 0xff
    graph[at++] = rings[position]!
    graph[at++] = degree
  }
  for (const around of neighbours) {
    for (const [neighbour, type] of around) {
      graph[at++] = neighbour
      graph[at++] = type
    }
  }
  if (hasExtras) {
    for (const atom of atoms) {
      const isotope = valueOf(atom, 'isotope')
      const radicals = valueOf(atom, 'nRad')
      if (isotope > 0xffff || radicals > largestCount) return null
      graph[at++] = isotope & 0xff
      graph[at++] = isotope >> 8
      graph[at++] = radicals
    }
  }
  return graph
}

/**
 * Whether RDKit's chirality check (useChirality) looks at some atom of this query: a tetrahedral
 * centre (clockwise or anticlockwise) with three or more neighbours. Such a query cannot match a
 * molecule with no stereo at all, since the atom it maps to must carry a chiral tag too.
 */
export function checksTetrahedralCentres(json: string): boolean {
  const molecule = (JSON.parse(json) as RdkitJson).molecules[0]
  if (!molecule) return false
  const degree = new Array<number>(molecule.atoms.length).fill(0)
  for (const bond of molecule.bonds ?? []) {
    degree[bond.atoms[0]]!++
    degree[bond.atoms[1]]!++
  }
  return molecule.atoms.some(
    (atom, index) => (atom.stereo === 'cw' || atom.stereo === 'ccw') && degree[index]! >= 3,
  )
}
