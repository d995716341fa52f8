/**
 * Every message between the main thread and a chemistry worker. A task names its kind; its result
 * and progress types follow from the kind, so both ends are checked by the compiler.
 */
import type { ErrorValue } from '../shared/app-error.ts'
import type { DepictionSize } from './depiction.ts'
import type { IndexBufferHandles } from './index-buffers.ts'
import type { NoveltyKeys } from './novelty-keys.ts'
import type {
  ComputedDetails,
  ComputedStructure,
  DetailsInput,
  StructureInput,
} from './structure-input.ts'
import type { QueryLanguage, ResolvedQueryLanguage, SubstructureQuery } from './structure-query.ts'
import type { NormalizedCriterion } from './structure-search-request.ts'
import type { ScoredSlot } from './top-scores.ts'

/** Which slots of the index a scan covers, and how the workers share them. */
export interface ScanRange {
  indexId: string
  /** Slots 0..slotCount-1 as the index was when the search started. */
  slotCount: number
  /**
   * When given (shared, ascending), the scan covers only these slots, and chunks are positions in
   * this list; otherwise every slot below slotCount, and chunks are slots.
   */
  candidates: Int32Array | null
  /** Where each chunk starts; a chunk ends where the next starts (the last at the scan's end). */
  chunkStarts: number[]
  largestChunk: number
  /** Shared by the workers of one search: Atomics.add hands out the next chunk number. */
  chunkCursor: Int32Array
}

export interface SubstructureChunk {
  chunk: number
  /** Slots of the chunk that passed the fingerprint screen and were matched atom by atom. */
  candidates: number
  /** The hits' slots, in slot order (a typed array: far cheaper to post than an array). */
  hits: Int32Array
}

export interface SimilarityChunk {
  chunk: number
  /** Above the threshold; for a top-k search, only what may still be among the k best. */
  hits: ScoredSlot[]
}

export interface ChemTasks {
  describe: {
    task: Record<never, never>
    result: { rdkitVersion: string }
    progress: never
  }
  computeStructures: {
    task: { items: StructureInput[] }
    result: ComputedStructure[]
    progress: never
  }
  computeDetails: {
    task: { indexId: string; items: DetailsInput[] }
    result: ComputedDetails[]
    progress: never
  }
  /**
   * What the novelty check compares drawn (or queued) structures by; each structure RDKit cannot
   * read comes back with the reason.
   */
  noveltyKeys: {
    task: { structures: string[] }
    result: NoveltyKeys[]
    progress: never
  }
  /**
   * A structure search of a few structures outside the index (molecules registered offline):
   * each one's score (1 for a substructure or exact hit), or null where it does not match.
   */
  matchStructures: {
    task: { structures: string[]; criterion: NormalizedCriterion }
    result: (number | null)[]
    progress: never
  }
  canonicalizeStructure: {
    task: { text: string }
    result: { canonicalSmiles: string }
    progress: never
  }
  /**
   * Molfiles of structures given as SMILES or CXSMILES, with 2D coordinates (computed: the text
   * has none), for SD files; each structure RDKit cannot read comes back with the reason.
   */
  writeMolblocks: {
    task: { structures: string[] }
    result: MolblockResult[]
    progress: never
  }
  /**
   * Whether each structure (SMILES, CXSMILES or a molfile) parses and sanitizes: null where it
   * does, else the reason in RDKit's words; nothing else is computed (structure-check.ts).
   */
  checkStructures: {
    task: { structures: string[] }
    result: (string | null)[]
    progress: never
  }
  depictMolecule: {
    task: {
      indexId: string
      slot: number
      size: DepictionSize
      highlight: SubstructureQuery | null
    }
    result: { svg: string; highlighted: boolean }
    progress: never
  }
  depictQuery: {
    task: { text: string; language: QueryLanguage; size: DepictionSize }
    /** The language the query was read in: with `auto`, what it was taken for. */
    result: { svg: string; language: ResolvedQueryLanguage }
    progress: never
  }
  substructureScan: {
    task: ScanRange & { query: SubstructureQuery }
    result: { chunks: number }
    progress: SubstructureChunk
  }
  similarityScan: {
    task: ScanRange & { query: string; threshold: number; top: number | null }
    result: { chunks: number }
    progress: SimilarityChunk
  }
}

export type MolblockResult = { molblock: string } | { problem: string }

export type ChemTaskKind = keyof ChemTasks
export type ChemTask<K extends ChemTaskKind = ChemTaskKind> = { kind: K } & ChemTasks[K]['task']
export type ChemTaskResult<K extends ChemTaskKind> = ChemTasks[K]['result']
export type ChemTaskProgress<K extends ChemTaskKind> = ChemTasks[K]['progress']

export const chemWorkerKind = 'vault-desk-chem-worker'

export interface ChemWorkerData {
  kind: typeof chemWorkerKind
  /** 0..size-1, stable across restarts: it picks the worker's scratch area in shared memory. */
  workerIndex: number
}

export type MainToWorker =
  | { type: 'task'; taskId: number; task: ChemTask; cancelFlag: Int32Array }
  | { type: 'attachIndex'; indexId: string; handles: IndexBufferHandles }
  | { type: 'detachIndex'; indexId: string }
  | { type: 'close' }

export type WorkerToMain =
  | { type: 'ready' }
  | { type: 'progress'; taskId: number; progress: unknown }
  | { type: 'result'; taskId: number; ok: true; value: unknown }
  | { type: 'result'; taskId: number; ok: false; error: ErrorValue }
