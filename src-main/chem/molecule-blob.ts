/**
 * What the index keeps per parsed molecule for verifying substructure hits and drawing: the
 * molecule graph that the JavaScript matcher reads (molecule-graph.ts), when the molecule has
 * one, followed by RDKit's pickle. Layout: [blobMarker][graph length, uint16][graph][pickle].
 * RDKit pickles start with 0xEF (0xDEADBEEF, little-endian), so a blob written before graphs
 * existed still reads, as a pickle with no graph.
 */
const blobMarker = 0x01
const blobHeaderBytes = 3

export function packMoleculeBlob(graph: Uint8Array | null, pickle: Uint8Array): Uint8Array {
  const graphLength = graph?.length ?? 0
  if (graphLength > 0xffff) throw new RangeError('A molecule graph must be under 64 KiB.')
  const blob = new Uint8Array(blobHeaderBytes + graphLength + pickle.length)
  blob[0] = blobMarker
  blob[1] = graphLength & 0xff
  blob[2] = graphLength >> 8
  if (graph) blob.set(graph, blobHeaderBytes)
  blob.set(pickle, blobHeaderBytes + graphLength)
  return blob
}

/** Where the blob at `offset` keeps its graph, or -1 when it has none. */
export function graphOffsetOf(bytes: Uint8Array, offset: number): number {
  if (bytes[offset] !== blobMarker) return -1
  return bytes[offset + 1]! | (bytes[offset + 2]! << 8) ? offset + blobHeaderBytes : -1
}

/** How long the graph of the blob at `offset` is (0 when it has none). */
export function graphLengthOf(bytes: Uint8Array, offset: number): number {
  return bytes[offset] === blobMarker ? bytes[offset + 1]! | (bytes[offset + 2]! << 8) : 0
}

/** The RDKit pickle inside the blob at [offset, offset + length), as a view. */
export function pickleOf(bytes: Uint8Array, offset: number, length: number): Uint8Array {
  if (bytes[offset] !== blobMarker) return bytes.subarray(offset, offset + length)
  const graphLength = bytes[offset + 1]! | (bytes[offset + 2]! << 8)
  return bytes.subarray(offset + blobHeaderBytes + graphLength, offset + length)
}
