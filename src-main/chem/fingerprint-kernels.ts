/**
 * The two loops every structure search spends its time in, in WebAssembly so that a 64-bit word is
 * one `i64.popcnt` / `i64.and` (plain JavaScript needs a dozen operations per 32-bit word):
 *
 * - `screen`: which fingerprints contain every bit of the query (the substructure screen);
 * - `intersections`: how many bits each fingerprint shares with the query (Tanimoto's numerator).
 *
 * Both read fingerprints in place from a shared `WebAssembly.Memory`, so every worker scans the
 * same bytes without copying them.
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
}

// Parameters (locals 0-3) of both kernels, then their own locals.
const query = 0
const fingerprints = 1
const count = 2
const out = 3
const index = 4
const cursor = 5
const written = 6

/** for (index = 0, cursor = fingerprints; index < count; index++, cursor += 256) { ...perItem } */
function forEachFingerprint(perItem: readonly number[]): number[] {
  // prettier-ignore
  return [
    op.localGet, fingerprints, op.localSet, cursor,
    op.block, emptyBlockType,
    op.loop, emptyBlockType,
    op.localGet, index, op.localGet, count, op.i32GeU, op.brIf, 1,
    ...perItem,
    op.localGet, cursor, op.i32Const, ...signedLeb128(fingerprintBytes), op.i32Add, op.localSet, cursor,
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
function requireQueryBits(word: number): number[] {
  // prettier-ignore
  return [
    ...wordAt(cursor, word), ...wordAt(query, word), op.i64And,
    ...wordAt(query, word), op.i64Ne, op.brIf, 0,
  ]
}

const screen: FunctionDefinition = {
  exportName: 'screen',
  params: [valueType.i32, valueType.i32, valueType.i32, valueType.i32],
  results: [valueType.i32],
  locals: [[3, valueType.i32]],
  // prettier-ignore
  body: [
    ...forEachFingerprint([
      op.block, emptyBlockType,
      ...Array.from({ length: wordsPerFingerprint }, (_, word) => requireQueryBits(word)).flat(),
      // out[written++] = index
      op.localGet, out, op.localGet, written, op.i32Const, 2, op.i32Shl, op.i32Add,
      op.localGet, index, op.i32Store, ...memoryImmediate(2, 0),
      op.localGet, written, op.i32Const, 1, op.i32Add, op.localSet, written,
      op.end,
    ]),
    op.localGet, written,
  ],
}

/** popcount(query & fingerprint) for one 64-bit word, added to the running sum after the first. */
function sharedBits(word: number): number[] {
  // prettier-ignore
  return [
    ...wordAt(query, word), ...wordAt(cursor, word), op.i64And, op.i64Popcnt,
    ...(word > 0 ? [op.i64Add] : []),
  ]
}

const intersections: FunctionDefinition = {
  exportName: 'intersections',
  params: [valueType.i32, valueType.i32, valueType.i32, valueType.i32],
  results: [],
  locals: [[2, valueType.i32]],
  // prettier-ignore
  body: forEachFingerprint([
    // out[index] = u16(sum of sharedBits)
    op.localGet, out, op.localGet, index, op.i32Const, 1, op.i32Shl, op.i32Add,
    ...Array.from({ length: wordsPerFingerprint }, (_, word) => sharedBits(word)).flat(),
    op.i32WrapI64, op.i32Store16, ...memoryImmediate(1, 0),
  ]),
}

const kernelModule = new webAssembly.Module(
  encodeModule([screen, intersections], { minimumPages: 0, maximumPages: maximumWasmPages }),
)

export function instantiateKernels(memory: SharedWasmMemory): FingerprintKernels {
  const instance = new webAssembly.Instance(kernelModule, { env: { memory } })
  return instance.exports as unknown as FingerprintKernels
}
