/**
 * Substructure matching in plain JavaScript over molecule graphs (molecule-graph.ts), with the
 * semantics RDKit gives a query parsed from SMILES when chirality is not asked for: a query atom
 * matches an atom of the same element, with the same charge, isotope and radicals where the query
 * atom sets them, held in at least as many rings; a query bond matches a bond of the same type;
 * distinct query atoms map to distinct atoms. The answer is whether one such mapping exists.
 *
 * Query atoms are visited so that each one after the first of its fragment hangs off an atom
 * already mapped, rarest elements first, and candidates come from that atom's neighbours only.
 * Molecules are read in place, in the layout they are stored in.
 */
import {
  graphAtomBytes,
  graphExtraBytes,
  graphFlags,
  graphHeaderBytes,
  graphNeighbourBytes,
} from './molecule-graph.ts'

const maximumAtoms = 255

/** Where each part of a graph starts, for a graph read in place. */
class GraphLayout {
  atomCount = 0
  hasExtras = false
  /** Byte offset of each atom's first neighbour entry, and one past the last atom's. */
  readonly neighboursAt = new Int32Array(maximumAtoms + 1)
  extrasAt = 0

  read(bytes: Uint8Array): void {
    const atomCount = bytes[0]!
    this.atomCount = atomCount
    this.hasExtras = (bytes[1]! & graphFlags.extras) !== 0
    let at = graphHeaderBytes + atomCount * graphAtomBytes
    for (let atom = 0; atom < atomCount; atom++) {
      this.neighboursAt[atom] = at
      at += bytes[graphHeaderBytes + atom * graphAtomBytes + 3]! * graphNeighbourBytes
    }
    this.neighboursAt[atomCount] = at
    this.extrasAt = at
  }
}

const elementOf = (bytes: Uint8Array, atom: number): number =>
  bytes[graphHeaderBytes + atom * graphAtomBytes]!
const chargeOf = (bytes: Uint8Array, atom: number): number =>
  (bytes[graphHeaderBytes + atom * graphAtomBytes + 1]! << 24) >> 24
const ringsOf = (bytes: Uint8Array, atom: number): number =>
  bytes[graphHeaderBytes + atom * graphAtomBytes + 2]!

/** Whether the graph at `offset` has any stereo (see molecule-graph.ts). */
export function graphHasStereo(bytes: Uint8Array, offset: number): boolean {
  return (bytes[offset + 1]! & graphFlags.stereo) !== 0
}

/** A query graph compiled for matching many molecules, one after the other. */
export class GraphQuery {
  readonly #atomCount: number
  readonly #element: Uint8Array
  readonly #charge: Int8Array
  readonly #rings: Uint8Array
  readonly #isotope: Uint16Array
  readonly #radicals: Uint8Array
  readonly #hasExtras: boolean
  /** Query atoms in the order they are mapped. */
  readonly #order: Uint8Array
  /** Position (in #order) of the mapped atom each query atom hangs off, or -1. */
  readonly #parent: Int32Array
  readonly #parentType: Uint8Array
  /** Bonds back to earlier positions other than the parent: [start, end) into #closure*. */
  readonly #closureStart: Int32Array
  readonly #closurePosition: Int32Array
  readonly #closureType: Uint8Array
  /** The query's elements and how many atoms of each it has. */
  readonly #elements: Uint8Array
  readonly #elementCounts: Uint8Array
  readonly #mapped = new Int32Array(maximumAtoms)
  readonly #used = new Uint8Array(maximumAtoms)
  /** The molecule being matched, copied out of shared memory (read byte by byte, 3x cheaper). */
  #target = new Uint8Array(4096)
  readonly #layout = new GraphLayout()

  /** A query over `graph`, or null when it has dummy atoms, which RDKit matches by isotope. */
  static forPlainMolecule(graph: Uint8Array): GraphQuery | null {
    const query = new GraphQuery(graph)
    return query.#elements.includes(0) ? null : query
  }

  private constructor(graph: Uint8Array) {
    const layout = new GraphLayout()
    layout.read(graph)
    const count = layout.atomCount
    this.#atomCount = count
    this.#hasExtras = layout.hasExtras
    this.#element = new Uint8Array(count)
    this.#charge = new Int8Array(count)
    this.#rings = new Uint8Array(count)
    this.#isotope = new Uint16Array(count)
    this.#radicals = new Uint8Array(count)
    const neighbours: [number, number][][] = []
    for (let atom = 0; atom < count; atom++) {
      this.#element[atom] = elementOf(graph, atom)
      this.#charge[atom] = chargeOf(graph, atom)
      this.#rings[atom] = ringsOf(graph, atom)
      if (layout.hasExtras) {
        const at = layout.extrasAt + atom * graphExtraBytes
        this.#isotope[atom] = graph[at]! | (graph[at + 1]! << 8)
        this.#radicals[atom] = graph[at + 2]!
      }
      const around: [number, number][] = []
      for (let at = layout.neighboursAt[atom]!; at < layout.neighboursAt[atom + 1]!; at += 2) {
        around.push([graph[at]!, graph[at + 1]!])
      }
      neighbours.push(around)
    }

    this.#order = new Uint8Array(count)
    this.#parent = new Int32Array(count).fill(-1)
    this.#parentType = new Uint8Array(count)
    this.#closureStart = new Int32Array(count + 1)
    const closurePosition: number[] = []
    const closureType: number[] = []
    const positionOf = new Int32Array(count).fill(-1)
    const rarity = (atom: number): number =>
      (this.#element[atom] === 6 ? 0 : 1000) + neighbours[atom]!.length
    for (let position = 0; position < count; position++) {
      // Next: the unvisited atom with most bonds to visited ones, rarest first; else a new fragment.
      let best = -1
      let bestLinks = -1
      let bestRarity = -1
      for (let atom = 0; atom < count; atom++) {
        if (positionOf[atom] !== -1) continue
        const links = neighbours[atom]!.filter(([other]) => positionOf[other] !== -1).length
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
      for (const [other, type] of neighbours[best]!) {
        const earlier = positionOf[other]!
        if (earlier === -1 || earlier === position) continue
        if (this.#parent[position] === -1) {
          this.#parent[position] = earlier
          this.#parentType[position] = type
        } else {
          closurePosition.push(earlier)
          closureType.push(type)
        }
      }
    }
    this.#closureStart[count] = closurePosition.length
    this.#closurePosition = Int32Array.from(closurePosition)
    this.#closureType = Uint8Array.from(closureType)

    const counts = new Map<number, number>()
    for (let atom = 0; atom < count; atom++) {
      counts.set(this.#element[atom]!, (counts.get(this.#element[atom]!) ?? 0) + 1)
    }
    this.#elements = Uint8Array.from(counts.keys())
    this.#elementCounts = Uint8Array.from(counts.values())
  }

  /** Whether the graph of `length` bytes at `offset` in `bytes` holds the query. */
  matches(bytes: Uint8Array, offset: number, length: number): boolean {
    if (bytes[offset]! < this.#atomCount) return false
    if (length > this.#target.length) this.#target = new Uint8Array(length)
    this.#target.set(bytes.subarray(offset, offset + length))
    if (!this.#hasEnoughOfEachElement()) return false
    this.#layout.read(this.#target)
    return this.#extend(0)
  }

  #hasEnoughOfEachElement(): boolean {
    const target = this.#target
    const atomCount = target[0]!
    for (let e = 0; e < this.#elements.length; e++) {
      const element = this.#elements[e]!
      const needed = this.#elementCounts[e]!
      let found = 0
      for (let atom = 0; atom < atomCount && found < needed; atom++) {
        if (elementOf(target, atom) === element) found++
      }
      if (found < needed) return false
    }
    return true
  }

  #extend(position: number): boolean {
    if (position === this.#atomCount) return true
    const queryAtom = this.#order[position]!
    const parent = this.#parent[position]!
    if (parent === -1) {
      for (let atom = 0; atom < this.#layout.atomCount; atom++) {
        if (this.#tryMap(position, queryAtom, atom)) return true
      }
      return false
    }
    const target = this.#target
    const neighboursAt = this.#layout.neighboursAt
    const from = this.#mapped[parent]!
    const wanted = this.#parentType[position]!
    for (let at = neighboursAt[from]!; at < neighboursAt[from + 1]!; at += graphNeighbourBytes) {
      if (target[at + 1] !== wanted) continue
      if (this.#tryMap(position, queryAtom, target[at]!)) return true
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
    const target = this.#target
    if (this.#element[queryAtom] !== elementOf(target, atom)) return false
    if (this.#rings[queryAtom]! > ringsOf(target, atom)) return false
    const charge = this.#charge[queryAtom]!
    if (charge !== 0 && charge !== chargeOf(target, atom)) return false
    if (this.#hasExtras) {
      const layout = this.#layout
      const at = layout.extrasAt + atom * graphExtraBytes
      const isotope = this.#isotope[queryAtom]!
      const targetIsotope = layout.hasExtras ? target[at]! | (target[at + 1]! << 8) : 0
      if (isotope !== 0 && isotope !== targetIsotope) return false
      const radicals = this.#radicals[queryAtom]!
      const targetRadicals = layout.hasExtras ? target[at + 2]! : 0
      if (radicals !== 0 && radicals !== targetRadicals) return false
    }
    return true
  }

  #bonded(a: number, b: number, type: number): boolean {
    const target = this.#target
    const neighboursAt = this.#layout.neighboursAt
    for (let at = neighboursAt[a]!; at < neighboursAt[a + 1]!; at += graphNeighbourBytes) {
      if (target[at] === b) return target[at + 1] === type
    }
    return false
  }
}
