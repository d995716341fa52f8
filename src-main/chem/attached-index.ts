import { instantiateKernels, type FingerprintKernels } from './fingerprint-kernels.ts'
import { scratchArea, type ScratchArea } from './fingerprint-layout.ts'
import { IndexBuffers, type FingerprintKind, type IndexBufferHandles } from './index-buffers.ts'

/** A structure index as one worker sees it: the shared buffers and kernels bound to them. */
export class AttachedIndex {
  readonly buffers: IndexBuffers
  readonly #kernels: Record<FingerprintKind, FingerprintKernels>
  readonly #scratch: ScratchArea

  constructor(handles: IndexBufferHandles, workerIndex: number) {
    this.buffers = IndexBuffers.attach(handles)
    this.#kernels = {
      pattern: instantiateKernels(handles.patternMemory),
      morgan: instantiateKernels(handles.morganMemory),
    }
    this.#scratch = scratchArea(workerIndex)
  }

  kernels(kind: FingerprintKind): FingerprintKernels {
    return this.#kernels[kind]
  }

  /** Puts the query fingerprint in this worker's scratch area; answers where it and the output are. */
  loadQuery(kind: FingerprintKind, fingerprint: Uint8Array): ScratchArea {
    new Uint8Array(this.buffers.fingerprintMemory(kind).buffer).set(
      fingerprint,
      this.#scratch.queryPtr,
    )
    return this.#scratch
  }

  /**
   * Copies `count` candidate slots from `start` into this worker's output area, where a listed
   * kernel reads them (and writes its output over them); answers where they are.
   */
  loadSlots(kind: FingerprintKind, candidates: Int32Array, start: number, count: number): number {
    const { outPtr } = this.#scratch
    new Int32Array(this.buffers.fingerprintMemory(kind).buffer, outPtr, count).set(
      candidates.subarray(start, start + count),
    )
    return outPtr
  }

  outputView<T extends Uint16Array | Uint32Array>(
    kind: FingerprintKind,
    type: new (buffer: SharedArrayBuffer, byteOffset: number, length: number) => T,
    length: number,
  ): T {
    return new type(this.buffers.fingerprintMemory(kind).buffer, this.#scratch.outPtr, length)
  }
}
