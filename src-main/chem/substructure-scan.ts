/**
 * A worker's part of a substructure search: for each chunk it claims, screen the pattern
 * fingerprints in WebAssembly, then verify the survivors atom by atom, reporting each chunk's hits
 * as soon as the chunk is done. Verification reads the molecule graphs in JavaScript where the
 * graph matcher gives RDKit's answer (graph-matcher.ts), and RDKit on the pickles elsewhere.
 */
import type { AttachedIndex } from './attached-index.ts'
import { fingerprintPtr } from './fingerprint-layout.ts'
import { graphHasStereo, GraphQuery } from './graph-matcher.ts'
import { checksTetrahedralCentres, moleculeGraphFromJson } from './molecule-graph.ts'
import { slotState } from './index-buffers.ts'
import type { Mol, ParsedQuery, RDKitToolkit } from './rdkit-toolkit.ts'
import { claimChunks } from './scan-chunks.ts'
import type { ChemTask } from './worker-protocol.ts'
import type { TaskContext } from './task-context.ts'

/** How many verifications run between two looks at the cancel flag (RDKit's take ~0.1 ms). */
const verificationsPerCancelCheck = 16

export function scanSubstructures(
  index: AttachedIndex,
  rdkit: RDKitToolkit,
  parsedQuery: ParsedQuery,
  task: ChemTask<'substructureScan'>,
  context: TaskContext<'substructureScan'>,
): { chunks: number } {
  const query = parsedQuery.mol
  const stereoOptions =
    task.query.useChirality && rdkit.specifiesStereo(parsedQuery)
      ? JSON.stringify({ useChirality: true })
      : null
  const matches = (mol: Mol): boolean =>
    (stereoOptions === null
      ? mol.get_substruct_match(query)
      : mol.get_substruct_match(query, stereoOptions)) !== '{}'
  // With stereo asked for, the graph matcher only rules molecules out (as does a molecule without
  // stereo, for a query whose stereocentres RDKit checks): RDKit checks the rest.
  const queryJson = graphMatchable(parsedQuery, task.query.text) ? query.get_json() : null
  const graphQuery = queryJson === null ? null : graphQueryFor(queryJson)
  const graphDecides = stereoOptions === null
  const needsStereo = graphQuery !== null && !graphDecides && checksTetrahedralCentres(queryJson!)
  const { buffers } = index
  const kernels = index.kernels('pattern')
  const queryFingerprint = query.get_pattern_fp_as_uint8array() as Uint8Array
  const { queryPtr, outPtr } = index.loadQuery('pattern', queryFingerprint)
  const passed = index.outputView('pattern', Uint32Array, task.largestChunk)
  const listed = task.candidates
  const hits = new Int32Array(task.largestChunk)
  let chunks = 0
  for (const { chunk, start, count } of claimChunks(task)) {
    const survivors =
      listed === null
        ? kernels.screen(queryPtr, fingerprintPtr(start), count, outPtr)
        : kernels.screenSlots(
            queryPtr,
            fingerprintPtr(0),
            count,
            outPtr,
            index.loadSlots('pattern', listed, start, count),
          )
    let hitCount = 0
    let candidates = 0
    for (let i = 0; i < survivors; i++) {
      const slot = listed === null ? start + passed[i]! : listed[start + passed[i]!]!
      if (buffers.state(slot) !== slotState.parsed) continue
      if (++candidates % verificationsPerCancelCheck === 0) context.throwIfCancelled()
      const graphAt = graphQuery ? buffers.graphOffset(slot) : -1
      if (graphAt !== -1) {
        const mayMatch =
          (!needsStereo || graphHasStereo(buffers.arena, graphAt)) &&
          graphQuery!.matches(buffers.arena, graphAt, buffers.graphLength(slot))
        if (graphDecides && mayMatch) hits[hitCount++] = slot
        if (graphDecides || !mayMatch) continue
      }
      const mol = rdkit.parseMoleculeFromPickle(buffers.pickle(slot))
      if (!mol) throw new Error(`The pickle of index slot ${slot} is unreadable.`)
      try {
        if (matches(mol)) hits[hitCount++] = slot
      } finally {
        mol.delete()
      }
    }
    chunks++
    context.progress({ chunk, candidates, hits: hits.slice(0, hitCount) })
    context.throwIfCancelled()
  }
  return { chunks }
}

/**
 * The graph matcher has RDKit's semantics for plain molecules only: a query parsed from SMILES
 * without CXSMILES extensions (which may carry query features) and without dummy atoms.
 */
function graphMatchable(parsedQuery: ParsedQuery, text: string): boolean {
  return parsedQuery.language === 'smiles' && !text.includes('|')
}

function graphQueryFor(queryJson: string): GraphQuery | null {
  const graph = moleculeGraphFromJson(queryJson)
  return graph ? GraphQuery.forPlainMolecule(graph) : null
}
