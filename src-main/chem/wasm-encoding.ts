/**
 * Just enough of the WebAssembly binary format to write the fingerprint kernels by hand: they are a
 * few dozen instructions, and writing them here keeps the build free of a WebAssembly toolchain.
 * Reference: https://webassembly.github.io/spec/core/binary/index.html
 */

export const valueType = { i32: 0x7f, i64: 0x7e } as const

/** The opcodes the kernels use, by their text-format names. */
export const op = {
  block: 0x02,
  loop: 0x03,
  br: 0x0c,
  brIf: 0x0d,
  end: 0x0b,
  localGet: 0x20,
  localSet: 0x21,
  i32Load: 0x28,
  i64Load: 0x29,
  i32Store: 0x36,
  i32Store16: 0x3b,
  i32Const: 0x41,
  i32GeU: 0x4f,
  i64Ne: 0x52,
  i32Add: 0x6a,
  i32Mul: 0x6c,
  i32Shl: 0x74,
  i64Popcnt: 0x7b,
  i64Add: 0x7c,
  i64And: 0x83,
  i32WrapI64: 0xa7,
} as const

/** A block or loop that yields no value. */
export const emptyBlockType = 0x40

export function unsignedLeb128(value: number): number[] {
  const bytes: number[] = []
  let rest = value >>> 0
  do {
    let byte = rest & 0x7f
    rest >>>= 7
    if (rest !== 0) byte |= 0x80
    bytes.push(byte)
  } while (rest !== 0)
  return bytes
}

export function signedLeb128(value: number): number[] {
  const bytes: number[] = []
  let rest = value | 0
  for (;;) {
    const byte = rest & 0x7f
    rest >>= 7
    const done = (rest === 0 && (byte & 0x40) === 0) || (rest === -1 && (byte & 0x40) !== 0)
    bytes.push(done ? byte : byte | 0x80)
    if (done) return bytes
  }
}

/** A memory access immediate: log2 of the alignment, then the constant offset. */
export function memoryImmediate(alignLog2: number, offset: number): number[] {
  return [alignLog2, ...unsignedLeb128(offset)]
}

export function vector(items: readonly (readonly number[])[]): number[] {
  return [...unsignedLeb128(items.length), ...items.flat()]
}

function name(text: string): number[] {
  return vector([...new TextEncoder().encode(text)].map((byte) => [byte]))
}

function section(id: number, content: readonly number[]): number[] {
  return [id, ...unsignedLeb128(content.length), ...content]
}

export interface FunctionDefinition {
  exportName: string
  params: readonly number[]
  results: readonly number[]
  /** Extra locals after the parameters, all of one type each: [count, type] pairs. */
  locals: readonly (readonly [number, number])[]
  body: readonly number[]
}

/**
 * A module that imports one shared memory as `env.memory` (so every thread's instance sees the same
 * fingerprints) and exports the given functions.
 */
export function encodeModule(
  functions: readonly FunctionDefinition[],
  memory: { minimumPages: number; maximumPages: number },
): Uint8Array<ArrayBuffer> {
  const magicAndVersion = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]
  const functionTypes = functions.map((fn) => [
    0x60,
    ...vector(fn.params.map((type) => [type])),
    ...vector(fn.results.map((type) => [type])),
  ])
  const sharedWithMaximum = 0x03
  const memoryImport = [
    ...name('env'),
    ...name('memory'),
    0x02,
    sharedWithMaximum,
    ...unsignedLeb128(memory.minimumPages),
    ...unsignedLeb128(memory.maximumPages),
  ]
  const bodies = functions.map((fn) => {
    const code = [
      ...vector(fn.locals.map(([count, type]) => [...unsignedLeb128(count), type])),
      ...fn.body,
      op.end,
    ]
    return [...unsignedLeb128(code.length), ...code]
  })
  const exportFunction = 0x00
  return new Uint8Array([
    ...magicAndVersion,
    ...section(1, vector(functionTypes)),
    ...section(2, vector([memoryImport])),
    ...section(3, vector(functions.map((_, index) => unsignedLeb128(index)))),
    ...section(
      7,
      vector(
        functions.map((fn, index) => [
          ...name(fn.exportName),
          exportFunction,
          ...unsignedLeb128(index),
        ]),
      ),
    ),
    ...section(10, vector(bodies)),
  ])
}
