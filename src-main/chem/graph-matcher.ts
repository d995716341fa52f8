/**
 * Substructure matching in plain JavaScript over molecule graphs (molecule-graph.ts), with the
 * semantics RDKit gives a query parsed from SMILES when chirality is not asked for: a query atom
 * matches an atom of the same element, with the same charge, isotope and radicals where the query
 * atom sets them, held in at least as many rings; a query bond matches a bond of the same type;
 * distinct query atoms map to distinct atoms. The answer is whether one such mapping exists.
 *
 * Query atoms are visited so that each one after the first of its fragment hangs off an atom
 * already mapped, rarest elements first, and candidates come from that atom's neighbours only.
 */
import {
  graphAtomBytes,
  graphBondBytes,
  graphExtraBytes,
  graphHeaderBytes,
} from './molecule-graph.ts'

const maximumAtoms = 255

interface DecodedGraph {
  atomCount: number
  element: Uint8Array
  charge: Int8Array
  rings: Uint8Array
  isotope: Uint16Array
  radicals: Uint8Array
  hasExtras: boolean
  /** Neighbours of atom a: neighbourAtom[start[a] .. start[a + 1]). */
  start: Int32Array
  /** Where the next neighbour of each atom goes while the graph is read. */
  cursor: Int32Array
  neighbourAtom: Uint8Array
  neighbourType: Uint8Array
}

function emptyGraph(): DecodedGraph {
  return {
    atomCount: 0,
    element: new Uint8Array(maximumAtoms),
    charge: new Int8Array(maximumAtoms),
    rings: new Uint8Array(maximumAtoms),
    isotope: new Uint16Array(maximumAtoms),
    radicals: new Uint8Array(maximumAtoms),
    hasExtras: false,
    start: new Int32Array(maximumAtoms + 1),
    cursor: new Int32Array(maximumAtoms),
    neighbourAtom: new Uint8Array(2 * maximumAtoms),
    neighbourType: new Uint8Array(2 * maximumAtoms),
  }
}

/** Reads a graph into `into`'s arrays (reused from one molecule to the next). */
function decodeGraph(bytes: Uint8Array, offset: number, into: DecodedGraph): void {
  const atomCount = bytes[offset]!
  const bondCount = bytes[offset + 1]!
  into.atomCount = atomCount
  into.hasExtras = bytes[offset + 2] === 1
  let at = offset + graphHeaderBytes
  const { element, charge, rings, start, cursor, neighbourAtom, neighbourType } = into
  for (let atom = 0; atom < atomCount; atom++) {
    element[atom] = bytes[at]!
    charge[atom] = (bytes[at + 1]! << 24) >> 24
    rings[atom] = bytes[at + 2]!
    at += graphAtomBytes
  }
  start.fill(0, 0, atomCount + 1)
  const bondsAt = at
  for (let bond = 0; bond < bondCount; bond++, at += graphBondBytes) {
    start[bytes[at]! + 1]!++
    start[bytes[at + 1]! + 1]!++
  }
  for (let atom = 0; atom < atomCount; atom++) start[atom + 1]! += start[atom]!
  cursor.set(start.subarray(0, atomCount), 0)
  at = bondsAt
  for (let bond = 0; bond < bondCount; bond++, at += graphBondBytes) {
    const a = bytes[at]!
    const b = bytes[at + 1]!
    const type = bytes[at + 2]!
    neighbourAtom[cursor[a]!] = b
    neighbourType[cursor[a]!++] = type
    neighbourAtom[cursor[b]!] = a
    neighbourType[cursor[b]!++] = type
  }
  if (into.hasExtras) {
    at = bondsAt + bondCount * graphBondBytes
    for (let atom = 0; atom < atomCount; atom++, at += graphExtraBytes) {
      into.isotope[atom] = bytes[at]! | (bytes[at + 1]! << 8)
      into.radicals[atom] = bytes[at + 2]!
    }
  }
}

/** A query graph compiled for matching many molecules, one after the other. */
export class GraphQuery {
  readonly #query = emptyGraph()
  readonly #target = emptyGraph()
  readonly #order: Uint8Array
  /** Position (in #order) of the mapped atom each query atom hangs off, or -1. */
  readonly #parent: Int32Array
  readonly #parentType: Uint8Array
  /** Bonds back to earlier positions other than the parent: [start, end) into #closure*. */
  readonly #closureStart: Int32Array
  readonly #closurePosition: Int32Array
  readonly #closureType: Uint8Array
  readonly #mapped = new Int32Array(maximumAtoms)
  readonly #used = new Uint8Array(maximumAtoms)
  readonly #elementCounts: Map<number, number>

  /** A query over `graph`, or null when it has dummy atoms, which RDKit matches by isotope. */
  static forPlainMolecule(graph: Uint8Array): GraphQuery | null {
    const query = new GraphQuery(graph)
    return query.#query.element.subarray(0, query.#query.atomCount).includes(0) ? null : query
  }

  private constructor(graph: Uint8Array) {
    decodeGraph(graph, 0, this.#query)
    const q = this.#query
    const count = q.atomCount
    this.#order = new Uint8Array(count)
    this.#parent = new Int32Array(count).fill(-1)
    this.#parentType = new Uint8Array(count)
    this.#closureStart = new Int32Array(count + 1)
    const closurePosition: number[] = []
    const closureType: number[] = []
    const positionOf = new Int32Array(count).fill(-1)
    const rarity = (atom: number): number =>
      (q.element[atom] === 6 ? 0 : 1000) + (q.start[atom + 1]! - q.start[atom]!)
    for (let position = 0; position < count; position++) {
      // Next: the unvisited atom with most bonds to visited ones, rarest first; else a new fragment.
      let best = -1
      let bestLinks = -1
      let bestRarity = -1
      for (let atom = 0; atom < count; atom++) {
        if (positionOf[atom] !== -1) continue
        let links = 0
        for (let n = q.start[atom]!; n < q.start[atom + 1]!; n++) {
          if (positionOf[q.neighbourAtom[n]!] !== -1) links++
        }
        if (position > 0 && links === 0 && bestLinks > 0) continue
        const atomRarity = rarity(atom)
        if (links > bestLinks || (links === bestLinks && atomRarity > bestRarity)) {
          best = atom
          bestLinks = links
          bestRarity = atomRarity
        }
      }
      this.#order[position] = best
      positionOf[best] = position
      this.#closureStart[position] = closurePosition.length
      for (let n = q.start[best]!; n < q.start[best + 1]!; n++) {
        const earlier = positionOf[q.neighbourAtom[n]!]!
        if (earlier === -1 || earlier === position) continue
        if (this.#parent[position] === -1) {
          this.#parent[position] = earlier
          this.#parentType[position] = q.neighbourType[n]!
        } else {
          closurePosition.push(earlier)
          closureType.push(q.neighbourType[n]!)
        }
      }
    }
    this.#closureStart[count] = closurePosition.length
    this.#closurePosition = Int32Array.from(closurePosition)
    this.#closureType = Uint8Array.from(closureType)
    this.#elementCounts = new Map()
    for (let atom = 0; atom < count; atom++) {
      const element = q.element[atom]!
      this.#elementCounts.set(element, (this.#elementCounts.get(element) ?? 0) + 1)
    }
  }

  /** Whether the graph at `offset` in `bytes` holds the query. */
  matches(bytes: Uint8Array, offset: number): boolean {
    if (bytes[offset]! < this.#query.atomCount) return false
    decodeGraph(bytes, offset, this.#target)
    if (!this.#hasEnoughOfEachElement()) return false
    return this.#extend(0)
  }

  #hasEnoughOfEachElement(): boolean {
    const target = this.#target
    for (const [element, needed] of this.#elementCounts) {
      let found = 0
      for (let atom = 0; atom < target.atomCount && found < needed; atom++) {
        if (target.element[atom] === element) found++
      }
      if (found < needed) return false
    }
    return true
  }

  #extend(position: number): boolean {
    if (position === this.#query.atomCount) return true
    const target = this.#target
    const queryAtom = this.#order[position]!
    const parent = this.#parent[position]!
    if (parent === -1) {
      for (let atom = 0; atom < target.atomCount; atom++) {
        if (this.#tryMap(position, queryAtom, atom)) return true
      }
      return false
    }
    const from = this.#mapped[parent]!
    const wanted = this.#parentType[position]!
    for (let n = target.start[from]!; n < target.start[from + 1]!; n++) {
      if (target.neighbourType[n] !== wanted) continue
      if (this.#tryMap(position, queryAtom, target.neighbourAtom[n]!)) return true
    }
    return false
  }

  #tryMap(position: number, queryAtom: number, atom: number): boolean {
    if (this.#used[atom] === 1 || !this.#atomMatches(queryAtom, atom)) return false
    for (let c = this.#closureStart[position]!; c < this.#closureStart[position + 1]!; c++) {
      const other = this.#mapped[this.#closurePosition[c]!]!
      if (!this.#bonded(atom, other, this.#closureType[c]!)) return false
    }
    this.#mapped[position] = atom
    this.#used[atom] = 1
    const found = this.#extend(position + 1)
    this.#used[atom] = 0
    return found
  }

  #atomMatches(queryAtom: number, atom: number): boolean {
    const q = this.#query
    const t = this.#target
    if (q.element[queryAtom] !== t.element[atom]) return false
    if (q.rings[queryAtom]! > t.rings[atom]!) return false
    const charge = q.charge[queryAtom]!
    if (charge !== 0 && charge !== t.charge[atom]) return false
    if (q.hasExtras) {
      const isotope = q.isotope[queryAtom]!
      const targetIsotope = t.hasExtras ? t.isotope[atom]! : 0
      if (isotope !== 0 && isotope !== targetIsotope) return false
      const radicals = q.radicals[queryAtom]!
      const targetRadicals = t.hasExtras ? t.radicals[atom]! : 0
      if (radicals !== 0 && radicals !== targetRadicals) return false
    }
    return true
  }

  #bonded(a: number, b: number, type: number): boolean {
    const t = this.#target
    for (let n = t.start[a]!; n < t.start[a + 1]!; n++) {
      if (t.neighbourAtom[n] === b) return t.neighbourType[n] === type
    }
    return false
  }
}
