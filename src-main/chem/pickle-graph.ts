/**
 * The molecule graph (molecule-graph.ts) read straight from RDKit's binary pickle
 * (`Mol.get_as_uint8array()`), which the index keeps anyway, instead of from `Mol.get_json()`,
 * which costs RDKit far more than reading a few hundred bytes does.
 *
 * What is read: pickles of version 16.4 (the version of our RDKit) of molecules of 1 to 255
 * atoms: per atom the element, charge, chiral tag, radicals and isotope; per bond its atoms,
 * type, aromatic flag and stereo; the rings, when RDKit kept them as the symmetrized SSSR that
 * the JSON writer uses. Map numbers, dummy labels, stereo groups, conformers and property blocks
 * are stepped over, so that the pickle is checked to its end.
 *
 * The answer is either the very graph moleculeGraphFromJson gives for the same molecule, or null
 * for "cannot tell", never another graph. Anything not understood gives null: another pickle
 * version, query atoms or bonds, substance groups, monomer info, rings missing or of another kind,
 * a bond whose type in the JSON would hang on kekulization, stereo values not known to be named
 * by the JSON writer, and truncated or malformed bytes. The caller then asks RDKit for the JSON.
 */
import {
  aromaticBondType,
  graphAtomBytes,
  graphExtraBytes,
  graphFlags,
  graphHeaderBytes,
  graphNeighbourBytes,
} from './molecule-graph.ts'

const endianMark = 0xdeadbeef
const pickleVersion = { major: 16, minor: 4, patch: 0 }
/** RDKit writes this flag byte after the counts of every pickle of this version. */
const moleculeFlags = 0x80
const largestCount = 255

/** MolPickler::Tags. */
const tags = {
  beginAtom: 1,
  beginBond: 11,
  beginProps: 18,
  endProps: 19,
  endMolecule: 22,
  beginConformers: 23,
  atomMapNumber: 24,
  atomDummyLabel: 44,
  beginAtomProps: 58,
  beginBondProps: 59,
  beginStereoGroup: 62,
  beginConformersDouble: 64,
  beginSymmetrizedSssr: 66,
} as const

const atomFlags = { aromatic: 0x40, noImplicit: 0x20, mapNumber: 0x08, dummyLabel: 0x04 } as const
/** Query atoms, monomer info, stored coordinates and unknown bits are left to the JSON. */
const understoodAtomFlags =
  atomFlags.aromatic | atomFlags.noImplicit | atomFlags.mapNumber | atomFlags.dummyLabel

/** Which atom fields follow, each present only when it differs from its default. */
const atomFields = {
  charge: 1 << 1,
  chiralTag: 1 << 2,
  hybridization: 1 << 3,
  explicitHydrogens: 1 << 4,
  explicitValence: 1 << 5,
  implicitValence: 1 << 6,
  radicals: 1 << 7,
  isotope: 1 << 8,
} as const
/** Bit 0, a mass that old picklers wrote, and unknown bits are left to the JSON. */
const understoodAtomFields = Object.values(atomFields).reduce((all, field) => all | field, 0)

/** The chiral tags the JSON writer names ("cw", "ccw", "other"): stereo for the graph. */
const namedChiralTags = new Set([1, 2, 3])
/**
 * Allene, square planar, trigonal bipyramidal and octahedral tags, which the JSON writer leaves
 * unnamed (checked on this version). Any other tag is left to the JSON.
 */
const unnamedChiralTags = new Set([5, 6, 7, 8])

const bondFlags = {
  aromatic: 0x40,
  conjugated: 0x20,
  type: 0x08,
  direction: 0x04,
  stereo: 0x02,
  endPoints: 0x01,
} as const
/** Query bonds and unknown bits are left to the JSON. */
const understoodBondFlags = Object.values(bondFlags).reduce((all, flag) => all | flag, 0)

const singleBond = 1
const doubleBond = 2
const quadrupleBond = 4
/**
 * Bond stereo the JSON writer names: any ("either"), Z and cis ("cis"), E and trans ("trans"),
 * atropisomers ("atrop_cw", "atrop_ccw"). Later values are left to the JSON.
 */
const largestNamedBondStereo = 7

const stereoGroupTypes = 3
const positiveCharLimit = 0x80

/**
 * Made once, so that a malformed pickle costs no stack trace; moleculeGraphFromPickle catches it.
 */
const unreadable = new Error('The pickle cannot be read.')

class PickleCursor {
  readonly bytes: Uint8Array
  at = 0

  constructor(bytes: Uint8Array) {
    this.bytes = bytes
  }

  get remaining(): number {
    return this.bytes.length - this.at
  }

  byte(): number {
    if (this.at >= this.bytes.length) throw unreadable
    return this.bytes[this.at++]!
  }

  /** A char RDKit insists is not negative when it reads it back. */
  positiveChar(): number {
    const value = this.byte()
    if (value >= positiveCharLimit) throw unreadable
    return value
  }

  int32(): number {
    const bytes = this.bytes
    const at = this.at
    if (at + 4 > bytes.length) throw unreadable
    this.at = at + 4
    return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)
  }

  uint32(): number {
    return this.int32() >>> 0
  }

  skip(count: number): void {
    if (count < 0 || count > this.remaining) throw unreadable
    this.at += count
  }

  skipString(): void {
    this.skip(this.uint32())
  }

  /** An atom index (one byte, as in every pickle of up to 255 atoms). */
  atom(atomCount: number): number {
    const atom = this.byte()
    if (atom >= atomCount) throw unreadable
    return atom
  }

  expect(tag: number): void {
    if (this.byte() !== tag) throw unreadable
  }
}

/** Per-atom and per-bond values between reading the pickle and writing the graph. */
const elements = new Uint8Array(largestCount)
const charges = new Uint8Array(largestCount)
const isotopes = new Uint16Array(largestCount)
const radicals = new Uint8Array(largestCount)
const rings = new Uint8Array(largestCount)
const degrees = new Uint16Array(largestCount)
const nextNeighbourAt = new Int32Array(largestCount)
let bondAtoms = new Uint8Array(2 * 1024)
let bondTypes = new Uint8Array(1024)

/**
 * The graph of the molecule pickled in `pickle`, exactly as moleculeGraphFromJson would give it,
 * or null when this reader cannot tell (including when the molecule has no graph).
 */
export function moleculeGraphFromPickle(pickle: Uint8Array): Uint8Array | null {
  try {
    return readGraph(new PickleCursor(pickle))
  } catch {
    return null
  }
}

function readGraph(cursor: PickleCursor): Uint8Array | null {
  if (cursor.uint32() !== endianMark || cursor.int32() !== 0) return null
  const major = cursor.int32()
  const minor = cursor.int32()
  const patch = cursor.int32()
  if (
    major !== pickleVersion.major ||
    minor !== pickleVersion.minor ||
    patch !== pickleVersion.patch
  ) {
    return null
  }
  const atomCount = cursor.int32()
  const bondCount = cursor.int32()
  // Larger molecules have no graph; the smallest bond takes three bytes.
  if (atomCount < 1 || atomCount > largestCount) return null
  if (bondCount < 0 || bondCount * 3 > cursor.remaining) return null
  if (cursor.byte() !== moleculeFlags) return null

  cursor.expect(tags.beginAtom)
  let hasStereo = false
  let hasExtras = false
  for (let atom = 0; atom < atomCount; atom++) {
    const stereo = readAtom(cursor, atom)
    if (stereo === null) return null
    hasStereo ||= stereo
    hasExtras ||= isotopes[atom] !== 0 || radicals[atom] !== 0
  }

  cursor.expect(tags.beginBond)
  if (bondTypes.length < bondCount) {
    bondTypes = new Uint8Array(bondCount)
    bondAtoms = new Uint8Array(2 * bondCount)
  }
  degrees.fill(0, 0, atomCount)
  for (let bond = 0; bond < bondCount; bond++) {
    const stereo = readBond(cursor, atomCount, bond)
    if (stereo === null) return null
    hasStereo ||= stereo
  }

  // The JSON writer symmetrizes the SSSR unless RDKit already holds it, so only then are the
  // rings it writes the pickled ones.
  if (cursor.byte() !== tags.beginSymmetrizedSssr) return null
  rings.fill(0, 0, atomCount)
  const ringCount = cursor.uint32()
  if (ringCount > cursor.remaining) return null
  for (let ring = 0; ring < ringCount; ring++) {
    const size = cursor.byte()
    for (let member = 0; member < size; member++) {
      const atom = cursor.atom(atomCount)
      if (rings[atom]! < largestCount) rings[atom]!++
    }
  }
  if (!readToEnd(cursor, atomCount, bondCount)) return null

  return writeGraph(atomCount, bondCount, hasExtras, hasStereo)
}

/**
 * Reads one atom into the per-atom arrays; the answer says whether it carries stereo, or is null
 * when the graph cannot be told.
 */
function readAtom(cursor: PickleCursor, atom: number): boolean | null {
  elements[atom] = cursor.byte()
  const flags = cursor.byte()
  if ((flags & ~understoodAtomFlags) !== 0) return null
  const fields = cursor.int32()
  if ((fields & ~understoodAtomFields) !== 0) return null
  // RDKit keeps charges in an int8, pickled as is: its byte is already the graph's.
  charges[atom] = fields & atomFields.charge ? cursor.byte() : 0
  const chiralTag = fields & atomFields.chiralTag ? cursor.positiveChar() : 0
  if (chiralTag !== 0 && !namedChiralTags.has(chiralTag) && !unnamedChiralTags.has(chiralTag)) {
    return null
  }
  if (fields & atomFields.hybridization) cursor.positiveChar()
  if (fields & atomFields.explicitHydrogens) cursor.byte()
  if (fields & atomFields.explicitValence) cursor.byte()
  if (fields & atomFields.implicitValence) cursor.byte()
  radicals[atom] = fields & atomFields.radicals ? cursor.positiveChar() : 0
  const isotope = fields & atomFields.isotope ? cursor.uint32() : 0
  if (isotope > 0xffff) return null
  isotopes[atom] = isotope
  if (flags & atomFlags.mapNumber) {
    cursor.expect(tags.atomMapNumber)
    // Map numbers outside 0-127 follow in full after a marker byte.
    if (cursor.byte() >= positiveCharLimit) cursor.int32()
  }
  if (flags & atomFlags.dummyLabel) {
    cursor.expect(tags.atomDummyLabel)
    cursor.skipString()
  }
  return namedChiralTags.has(chiralTag)
}

/**
 * Reads one bond into the per-bond arrays and counts it in its atoms' degrees; the answer says
 * whether it carries stereo, or is null when the graph cannot be told.
 */
function readBond(cursor: PickleCursor, atomCount: number, bond: number): boolean | null {
  const begin = cursor.atom(atomCount)
  const end = cursor.atom(atomCount)
  if (begin === end) return null
  const flags = cursor.byte()
  if ((flags & ~understoodBondFlags) !== 0) return null
  const rdkitType = flags & bondFlags.type ? cursor.positiveChar() : singleBond
  const type = graphBondType(rdkitType, (flags & bondFlags.aromatic) !== 0)
  if (type === null) return null
  if (flags & bondFlags.direction) cursor.positiveChar()
  let stereo = false
  if (flags & bondFlags.stereo) {
    const value = cursor.positiveChar()
    if (value > largestNamedBondStereo) return null
    stereo = value !== 0
    const stereoAtoms = cursor.positiveChar()
    for (let i = 0; i < stereoAtoms; i++) cursor.atom(atomCount)
  }
  if (flags & bondFlags.endPoints) {
    cursor.skipString()
    cursor.skipString()
  }
  bondAtoms[2 * bond] = begin
  bondAtoms[2 * bond + 1] = end
  bondTypes[bond] = type
  degrees[begin]!++
  degrees[end]!++
  return stereo
}

/**
 * The bond's type in the graph. The JSON writer kekulizes a copy of the molecule and lists the
 * bonds flagged aromatic apart; the graph gives those the aromatic type when their Kekulé order
 * is single or double, which holds for aromatic, single and double bonds. A bond of aromatic type
 * not flagged aromatic gets whatever order kekulization gives it, so it is left to the JSON, as
 * are the types the JSON writer does not write as an order (quintuple and beyond, dative, ...).
 */
function graphBondType(rdkitType: number, flaggedAromatic: boolean): number | null {
  if (flaggedAromatic) {
    const kekulized =
      rdkitType === aromaticBondType || rdkitType === singleBond || rdkitType === doubleBond
    return kekulized ? aromaticBondType : null
  }
  return rdkitType >= singleBond && rdkitType <= quadrupleBond ? rdkitType : null
}

/**
 * Steps over what follows the rings, which the graph does not need, up to the end mark, which
 * must end the pickle; false when some part is not understood.
 */
function readToEnd(cursor: PickleCursor, atomCount: number, bondCount: number): boolean {
  let tag = cursor.byte()
  if (tag === tags.beginStereoGroup) {
    readStereoGroups(cursor, atomCount, bondCount)
    tag = cursor.byte()
  }
  if (tag === tags.beginConformers || tag === tags.beginConformersDouble) {
    cursor.skip(cursor.int32())
    tag = cursor.byte()
  }
  while (tag === tags.beginProps || tag === tags.beginAtomProps || tag === tags.beginBondProps) {
    cursor.skip(cursor.int32())
    cursor.expect(tags.endProps)
    tag = cursor.byte()
  }
  return tag === tags.endMolecule && cursor.remaining === 0
}

function readStereoGroups(cursor: PickleCursor, atomCount: number, bondCount: number): void {
  const groupCount = cursor.byte()
  for (let group = 0; group < groupCount; group++) {
    const type = cursor.byte()
    if (type >= stereoGroupTypes) throw unreadable
    // Only relative groups (AND, OR) are numbered.
    if (type !== 0) cursor.byte()
    const atoms = cursor.byte()
    for (let i = 0; i < atoms; i++) cursor.atom(atomCount)
    const bonds = cursor.byte()
    for (let i = 0; i < bonds; i++) {
      if (cursor.byte() >= bondCount) throw unreadable
    }
  }
}

/** Writes the graph in the layout of molecule-graph.ts from the per-atom and per-bond arrays. */
function writeGraph(
  atomCount: number,
  bondCount: number,
  hasExtras: boolean,
  hasStereo: boolean,
): Uint8Array | null {
  const neighboursStart = graphHeaderBytes + atomCount * graphAtomBytes
  const extrasStart = neighboursStart + bondCount * 2 * graphNeighbourBytes
  const graph = new Uint8Array(extrasStart + (hasExtras ? atomCount * graphExtraBytes : 0))
  graph[0] = atomCount
  graph[1] = (hasExtras ? graphFlags.extras : 0) | (hasStereo ? graphFlags.stereo : 0)
  let neighbourAt = neighboursStart
  for (let atom = 0; atom < atomCount; atom++) {
    const degree = degrees[atom]!
    if (degree > largestCount) return null
    const at = graphHeaderBytes + atom * graphAtomBytes
    graph[at] = elements[atom]!
    graph[at + 1] = charges[atom]!
    graph[at + 2] = rings[atom]!
    graph[at + 3] = degree
    nextNeighbourAt[atom] = neighbourAt
    neighbourAt += degree * graphNeighbourBytes
  }
  // Bonds in pickle order, which is RDKit's bond order, each listed under both of its atoms.
  for (let bond = 0; bond < bondCount; bond++) {
    const begin = bondAtoms[2 * bond]!
    const end = bondAtoms[2 * bond + 1]!
    const type = bondTypes[bond]!
    let at = nextNeighbourAt[begin]!
    graph[at] = end
    graph[at + 1] = type
    nextNeighbourAt[begin] = at + graphNeighbourBytes
    at = nextNeighbourAt[end]!
    graph[at] = begin
    graph[at + 1] = type
    nextNeighbourAt[end] = at + graphNeighbourBytes
  }
  if (hasExtras) {
    let at = extrasStart
    for (let atom = 0; atom < atomCount; atom++) {
      const isotope = isotopes[atom]!
      graph[at++] = isotope & 0xff
      graph[at++] = isotope >> 8
      graph[at++] = radicals[atom]!
    }
  }
  return graph
}
