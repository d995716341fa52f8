/**
 * The structure index's memory, shared between the main thread (the only writer) and the workers
 * (readers): per slot a state, two fingerprints, the Morgan popcount and the molecule blob (graph
 * and RDKit pickle) of the parsed molecule. Everything grows in place, so workers attach once and never need new buffers.
 *
 * Writers fill a slot completely before publishing its state with `Atomics.store`, and slots and
 * pickles are never overwritten (changes go to new slots), so a scan running in a worker sees
 * every slot either whole or not at all.
 */
import {
  fingerprintBytes,
  fingerprintPtr,
  maximumWasmPages,
  pagesForSlots,
  wasmPageBytes,
} from './fingerprint-layout.ts'
import { graphLengthOf, graphOffsetOf, pickleOf } from './molecule-blob.ts'
import {
  growableSharedBuffer,
  webAssembly,
  type GrowableSharedArrayBuffer,
  type SharedWasmMemory,
} from './shared-memory-runtime.ts'

export const slotState = { vacant: 0, parsed: 1, unparseable: 2 } as const

export type FingerprintKind = 'pattern' | 'morgan'

/** What crosses to a worker (shared, never copied). */
export interface IndexBufferHandles {
  patternMemory: SharedWasmMemory
  morganMemory: SharedWasmMemory
  slotStates: GrowableSharedArrayBuffer
  morganPopcounts: GrowableSharedArrayBuffer
  pickleOffsets: GrowableSharedArrayBuffer
  pickleLengths: GrowableSharedArrayBuffer
  pickleArena: GrowableSharedArrayBuffer
}

const maximumSlots = 16 * 1024 * 1024
const maximumArenaBytes = 2 ** 31
const initialSlots = 1024
const initialArenaBytes = 1024 * 1024

export class IndexBuffers {
  readonly handles: IndexBufferHandles
  readonly states: Uint8Array
  readonly morganPopcounts: Uint16Array
  readonly pickleOffsets: Uint32Array
  readonly pickleLengths: Uint32Array
  readonly arena: Uint8Array
  #arenaUsed = 0

  private constructor(handles: IndexBufferHandles) {
    this.handles = handles
    this.states = new Uint8Array(handles.slotStates)
    this.morganPopcounts = new Uint16Array(handles.morganPopcounts)
    this.pickleOffsets = new Uint32Array(handles.pickleOffsets)
    this.pickleLengths = new Uint32Array(handles.pickleLengths)
    this.arena = new Uint8Array(handles.pickleArena)
  }

  static create(): IndexBuffers {
    const pages = pagesForSlots(initialSlots)
    const memory = (): SharedWasmMemory =>
      new webAssembly.Memory({ initial: pages, maximum: maximumWasmPages, shared: true })
    return new IndexBuffers({
      patternMemory: memory(),
      morganMemory: memory(),
      slotStates: growableSharedBuffer(initialSlots, maximumSlots),
      morganPopcounts: growableSharedBuffer(initialSlots * 2, maximumSlots * 2),
      pickleOffsets: growableSharedBuffer(initialSlots * 4, maximumSlots * 4),
      pickleLengths: growableSharedBuffer(initialSlots * 4, maximumSlots * 4),
      pickleArena: growableSharedBuffer(initialArenaBytes, maximumArenaBytes),
    })
  }

  static attach(handles: IndexBufferHandles): IndexBuffers {
    return new IndexBuffers(handles)
  }

  get slotCapacity(): number {
    return this.states.length
  }

  /** Bytes of shared memory these buffers hold now (not their reserved maximum). */
  get sharedBytes(): number {
    const h = this.handles
    return (
      h.patternMemory.buffer.byteLength +
      h.morganMemory.buffer.byteLength +
      h.slotStates.byteLength +
      h.morganPopcounts.byteLength +
      h.pickleOffsets.byteLength +
      h.pickleLengths.byteLength +
      h.pickleArena.byteLength
    )
  }

  ensureSlotCapacity(slots: number): void {
    if (slots <= this.slotCapacity) return
    if (slots > maximumSlots) {
      throw new RangeError(`The structure index holds at most ${maximumSlots} molecules.`)
    }
    const capacity = Math.min(maximumSlots, Math.max(slots, Math.ceil(this.slotCapacity * 1.5)))
    const h = this.handles
    for (const memory of [h.patternMemory, h.morganMemory]) {
      const missing = pagesForSlots(capacity) - memory.buffer.byteLength / wasmPageBytes
      if (missing > 0) memory.grow(missing)
    }
    h.slotStates.grow(capacity)
    h.morganPopcounts.grow(capacity * 2)
    h.pickleOffsets.grow(capacity * 4)
    h.pickleLengths.grow(capacity * 4)
  }

  fingerprintMemory(kind: FingerprintKind): SharedWasmMemory {
    return kind === 'pattern' ? this.handles.patternMemory : this.handles.morganMemory
  }

  writeFingerprint(kind: FingerprintKind, slot: number, fingerprint: Uint8Array): void {
    if (fingerprint.length !== fingerprintBytes) {
      throw new RangeError(`A ${kind} fingerprint must be ${fingerprintBytes} bytes.`)
    }
    new Uint8Array(this.fingerprintMemory(kind).buffer).set(fingerprint, fingerprintPtr(slot))
  }

  clearFingerprints(slot: number): void {
    for (const kind of ['pattern', 'morgan'] as const) {
      const start = fingerprintPtr(slot)
      new Uint8Array(this.fingerprintMemory(kind).buffer).fill(0, start, start + fingerprintBytes)
    }
  }

  /** Stores the slot's molecule blob (molecule-blob.ts): its graph and RDKit pickle. */
  appendMoleculeBlob(slot: number, blob: Uint8Array): void {
    const needed = this.#arenaUsed + blob.length
    if (needed > this.arena.length) {
      if (needed > maximumArenaBytes) {
        throw new RangeError('The structure index has no room left for more molecules.')
      }
      const grown = Math.min(
        maximumArenaBytes,
        Math.max(needed, Math.ceil(this.arena.length * 1.5)),
      )
      this.handles.pickleArena.grow(grown)
    }
    this.arena.set(blob, this.#arenaUsed)
    this.pickleOffsets[slot] = this.#arenaUsed
    this.pickleLengths[slot] = blob.length
    this.#arenaUsed = needed
  }

  /** A view (not a copy) of the slot's RDKit pickle. */
  pickle(slot: number): Uint8Array {
    return pickleOf(this.arena, this.pickleOffsets[slot]!, this.pickleLengths[slot]!)
  }

  /** Where in `arena` the slot's molecule graph starts, or -1 when it has none. */
  graphOffset(slot: number): number {
    return graphOffsetOf(this.arena, this.pickleOffsets[slot]!)
  }

  graphLength(slot: number): number {
    return graphLengthOf(this.arena, this.pickleOffsets[slot]!)
  }

  publishState(slot: number, state: number): void {
    Atomics.store(this.states, slot, state)
  }

  state(slot: number): number {
    return Atomics.load(this.states, slot)
  }
}
