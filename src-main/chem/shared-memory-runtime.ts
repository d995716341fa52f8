/**
 * Typed access to the shared-memory primitives the structure index is built on. Node 22 has them,
 * but the project's TypeScript libraries (es2023 + @types/node) declare neither the WebAssembly
 * namespace nor growable SharedArrayBuffers (ES2024), so this module declares the small part used,
 * without adding globals that could clash with a future `lib` setting.
 */

export interface SharedWasmMemory {
  /** A fresh SharedArrayBuffer over the whole memory; its length changes only after `grow`. */
  readonly buffer: SharedArrayBuffer
  grow(deltaPages: number): number
}

export interface WasmInstance {
  readonly exports: Record<string, unknown>
}

interface WebAssemblyApi {
  Memory: new (descriptor: { initial: number; maximum: number; shared: true }) => SharedWasmMemory
  Module: new (bytes: Uint8Array<ArrayBuffer>) => object
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => WasmInstance
  /** What a trap throws: an RDKit abort, exhausted memory, an out-of-bounds access. */
  RuntimeError: new (...args: never[]) => Error
}

export const webAssembly = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly

export interface GrowableSharedArrayBuffer extends SharedArrayBuffer {
  readonly maxByteLength: number
  grow(newByteLength: number): void
}

const GrowableSharedArrayBufferConstructor = SharedArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => GrowableSharedArrayBuffer

/**
 * A SharedArrayBuffer that grows in place: typed arrays made without a length follow its growth in
 * every thread, so growing never needs a new buffer to be handed to the workers.
 */
export function growableSharedBuffer(
  byteLength: number,
  maxByteLength: number,
): GrowableSharedArrayBuffer {
  return new GrowableSharedArrayBufferConstructor(byteLength, { maxByteLength })
}
