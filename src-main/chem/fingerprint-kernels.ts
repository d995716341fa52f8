/**
 * The two loops every structure search spends its time in, in WebAssembly so that a 64-bit word is
 * one `i64.popcnt` / `i64.and` (plain JavaScript needs a dozen operations per 32-bit word):
 *
 * - `screen`: which fingerprints contain every bit of the query (the substructure screen);
 * - `intersections`: how many bits each fingerprint shares with the query (Tanimoto's numerator).
 *
 * Each comes in two forms: over consecutive slots, and over a list of slots (a search narrowed to
 * some molecules reads only theirs, so that it costs what they are, not what the index is). Both
 * read fingerprints in place from a shared `WebAssembly.Memory`, so every worker scans the same
 * bytes without copying them.
 */
import { fingerprintBytes, maximumWasmPages } from './fingerprint-layout.ts'
import { webAssembly, type SharedWasmMemory } from './shared-memory-runtime.ts'
import {
  emptyBlockType,
  encodeModule,
  memoryImmediate,
  op,
  signedLeb128,
  valueType,
  type FunctionDefinition,
} from './wasm-encoding.ts'

const wordsPerFingerprint = fingerprintBytes / 8
const i64Align = 3

export interface FingerprintKernels {
  /**
   * Writes, as u32 at `outPtr`, the index (0-based, relative to `fingerprintsPtr`) of every one of
   * `count` fingerprints that contains all bits of the query; answers how many it wrote.
   */
  screen(queryPtr: number, fingerprintsPtr: number, count: number, outPtr: number): number
  /** Writes, as u16 at `outPtr`, popcount(query & fingerprint) for each of `count` fingerprints. */
  intersections(queryPtr: number, fingerprintsPtr: number, count: number, outPtr: number): void
  /**
   * `screen` over the `count` slots listed as u32 at `slotsPtr` (fingerprint k of the list is at
   * `fingerprintsPtr` + slot × 256): writes the positions in the list, not the slots. `outPtr` may
   * be `slotsPtr`: a position is written only after its slot has been read.
   */
  screenSlots(
    queryPtr: number,
    fingerprintsPtr: number,
    count: number,
    outPtr: number,
    slotsPtr: number,
  ): number
  /** `intersections` over listed slots, as `screenSlots`; `outPtr` may be `slotsPtr`. */
  intersectionsOfSlots(
    queryPtr: number,
    fingerprintsPtr: number,
    count: number,
    outPtr: number,
    slotsPtr: number,
  ): void
}

const contiguousParams = [valueType.i32, valueType.i32, valueType.i32, valueType.i32]
const listedParams = [...contiguousParams, valueType.i32]

// Parameters of every kernel (a listed kernel has `slots` too), then their own locals.
const query = 0
const fingerprints = 1
const count = 2
const out = 3
const slots = 4

/** Local numbers after the parameters: where the loop keeps its state. */
interface LoopLocals {
  index: number
  cursor: number
  written: number
}

const contiguousLocals: LoopLocals = { index: 4, cursor: 5, written: 6 }
const listedLocals: LoopLocals = { index: 5, cursor: 6, written: 7 }

/**
 * for (index = 0; index < count; index++) { cursor = the index-th fingerprint; ...perItem }, the
 * fingerprints being consecutive from `fingerprints`, or the slots listed at `slots`.
 */
function forEachFingerprint(
  listed: boolean,
  perItem: (locals: LoopLocals) => readonly number[],
): number[] {
  const { index, cursor } = listed ? listedLocals : contiguousLocals
  // prettier-ignore
  const start = listed
    ? []
    : [op.localGet, fingerprints, op.localSet, cursor]
  // prettier-ignore
  const locate = listed
    ? [
        // cursor = fingerprints + slots[index] * fingerprintBytes
        op.localGet, fingerprints,
        op.localGet, slots, op.localGet, index, op.i32Const, 2, op.i32Shl, op.i32Add,
        op.i32Load, ...memoryImmediate(2, 0),
        op.i32Const, ...signedLeb128(fingerprintBytes), op.i32Mul, op.i32Add,
        op.localSet, cursor,
      ]
    : []
  // prettier-ignore
  const advance = listed
    ? []
    : [op.localGet, cursor, op.i32Const, ...signedLeb128(fingerprintBytes), op.i32Add, op.localSet, cursor]
  // prettier-ignore
  return [
    ...start,
    op.block, emptyBlockType,
    op.loop, emptyBlockType,
    op.localGet, index, op.localGet, count, op.i32GeU, op.brIf, 1,
    ...locate,
    ...perItem(listed ? listedLocals : contiguousLocals),
    ...advance,
    op.localGet, index, op.i32Const, 1, op.i32Add, op.localSet, index,
    op.br, 0,
    op.end,
    op.end,
  ]
}

function wordAt(base: number, word: number): number[] {
  return [op.localGet, base, op.i64Load, ...memoryImmediate(i64Align, word * 8)]
}

/** Leaves the enclosing block unless (fingerprint & query) == query for one 64-bit word. */
function requireQueryBits(cursor: number, word: number): number[] {
  // prettier-ignore
  return [
    ...wordAt(cursor, word), ...wordAt(query, word), op.i64And,
    ...wordAt(query, word), op.i64Ne, op.brIf, 0,
  ]
}

function screenKernel(exportName: string, listed: boolean): FunctionDefinition {
  const { written } = listed ? listedLocals : contiguousLocals
  return {
    exportName,
    params: listed ? listedParams : contiguousParams,
    results: [valueType.i32],
    locals: [[3, valueType.i32]],
    // prettier-ignore
    body: [
      ...forEachFingerprint(listed, ({ index, cursor }) => [
        op.block, emptyBlockType,
        ...Array.from({ length: wordsPerFingerprint }, (_, word) => requireQueryBits(cursor, word)).flat(),
        // out[written++] = index
        op.localGet, out, op.localGet, written, op.i32Const, 2, op.i32Shl, op.i32Add,
        op.localGet, index, op.i32Store, ...memoryImmediate(2, 0),
        op.localGet, written, op.i32Const, 1, op.i32Add, op.localSet, written,
        op.end,
      ]),
      op.localGet, written,
    ],
  }
}

/** popcount(query & fingerprint) for one 64-bit word, added to the running sum after the first. */
function sharedBits(cursor: number, word: number): number[] {
  // prettier-ignore
  return [
    ...wordAt(query, word), ...wordAt(cursor, word), op.i64And, op.i64Popcnt,
    ...(word > 0 ? [op.i64Add] : []),
  ]
}

function intersectionsKernel(exportName: string, listed: boolean): FunctionDefinition {
  return {
    exportName,
    params: listed ? listedParams : contiguousParams,
    results: [],
    locals: [[3, valueType.i32]],
    // prettier-ignore
    body: forEachFingerprint(listed, ({ index, cursor }) => [
      // out[index] = u16(sum of sharedBits)
      op.localGet, out, op.localGet, index, op.i32Const, 1, op.i32Shl, op.i32Add,
      ...Array.from({ length: wordsPerFingerprint }, (_, word) => sharedBits(cursor, word)).flat(),
      op.i32WrapI64, op.i32Store16, ...memoryImmediate(1, 0),
    ]),
  }
}

const kernelModule = new webAssembly.Module(
  encodeModule(
    [
      screenKernel('screen', false),
      intersectionsKernel('intersections', false),
      screenKernel('screenSlots', true),
      intersectionsKernel('intersectionsOfSlots', true),
    ],
    { minimumPages: 0, maximumPages: maximumWasmPages },
  ),
)

export function instantiateKernels(memory: SharedWasmMemory): FingerprintKernels {
  const instance = new webAssembly.Instance(kernelModule, { env: { memory } })
  return instance.exports as unknown as FingerprintKernels
}
