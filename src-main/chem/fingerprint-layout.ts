/**
 * Where things live in a fingerprint memory: a scratch area per worker (the query and the kernel's
 * output), then one 2048-bit fingerprint per index slot.
 */
const fingerprintBits = 2048
export const fingerprintBytes = fingerprintBits / 8

export const wasmPageBytes = 65536
/** 4 GiB, the most a 32-bit WebAssembly memory can address. */
export const maximumWasmPages = 65536

export const maximumWorkers = 16
const scratchBytesPerWorker = 128 * 1024
const fingerprintsOffset = maximumWorkers * scratchBytesPerWorker

/** The most fingerprints one kernel call may scan, so that its output fits the worker's scratch. */
export const maximumScanChunk = (scratchBytesPerWorker - fingerprintBytes) / 4

export interface ScratchArea {
  queryPtr: number
  outPtr: number
}

export function scratchArea(workerIndex: number): ScratchArea {
  if (!Number.isInteger(workerIndex) || workerIndex < 0 || workerIndex >= maximumWorkers) {
    throw new RangeError(`A worker index must be 0..${maximumWorkers - 1}, not ${workerIndex}.`)
  }
  const queryPtr = workerIndex * scratchBytesPerWorker
  return { queryPtr, outPtr: queryPtr + fingerprintBytes }
}

export function fingerprintPtr(slot: number): number {
  return fingerprintsOffset + slot * fingerprintBytes
}

export function pagesForSlots(slotCapacity: number): number {
  return Math.ceil(fingerprintPtr(slotCapacity) / wasmPageBytes)
}
