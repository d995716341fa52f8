/**
 * Queues work that carries files. Electron gives each dropped file's local path, which the outbox
 * copies; where the host gives none (the browser harness, a pasted file) the window hands the
 * bytes over in order, a chunk at a time, and queues the request naming the staged copies.
 */
import type {
  OutboxItemView,
  RequestArgs,
  Result,
  StagedFileView,
  VaultDeskBridge,
} from '../bridge.ts'
import { bytesToBase64 } from './base64.ts'

export type QueueArgs = RequestArgs<'outbox.queue'>

export interface HandOverProgress {
  sentBytes: number
  totalBytes: number
}

/** Bytes per chunk: small enough to keep the window responsive, large enough to be quick. */
export const chunkBytes = 512 * 1024

/**
 * Queues `build(references)`, where each reference names one of `files` as the outbox takes it
 * (a local path, or `staged:<id>`). `onProgress` follows the hand-over of bytes, if any.
 */
export async function queueWithFiles(
  bridge: VaultDeskBridge,
  files: readonly File[],
  build: (references: string[]) => QueueArgs,
  onProgress?: (progress: HandOverProgress) => void,
): Promise<Result<OutboxItemView[]>> {
  const paths = files.map((file) => bridge.pathForFile(file))
  if (paths.every((path): path is string => path !== null)) {
    return bridge.invoke('outbox.queue', build(paths))
  }
  const staged: string[] = []
  const drop = () =>
    Promise.all(staged.map((stagedId) => bridge.invoke('outbox.unstageFile', { stagedId })))
  const totalBytes = files.reduce((sum, file) => sum + file.size, 0)
  let sentBytes = 0
  onProgress?.({ sentBytes, totalBytes })
  for (const file of files) {
    const begun = await bridge.invoke('outbox.stageFile', { name: file.name, size: file.size })
    if (!begun.ok) {
      await drop()
      return begun
    }
    staged.push(begun.value.stagedId)
    const handed = await handOver(bridge, file, begun.value, (bytes) => {
      sentBytes += bytes
      onProgress?.({ sentBytes, totalBytes })
    })
    if (!handed.ok) {
      await drop()
      return handed
    }
  }
  const queued = await bridge.invoke('outbox.queueStaged', {
    request: build(staged.map((stagedId) => `staged:${stagedId}`)),
  })
  if (!queued.ok) await drop()
  return queued
}

async function handOver(
  bridge: VaultDeskBridge,
  file: File,
  staged: StagedFileView,
  onBytes: (bytes: number) => void,
): Promise<Result<null>> {
  for (let offset = 0; offset < file.size; offset += chunkBytes) {
    let bytes: Uint8Array
    try {
      bytes = new Uint8Array(await file.slice(offset, offset + chunkBytes).arrayBuffer())
    } catch (error) {
      return {
        ok: false,
        error: {
          code: 'invalid_argument',
          message: `${file.name} could not be read: ${error instanceof Error ? error.message : String(error)}`,
        },
      }
    }
    const sent = await bridge.invoke('outbox.stageChunk', {
      stagedId: staged.stagedId,
      offset,
      data: bytesToBase64(bytes),
    })
    if (!sent.ok) return sent
    onBytes(bytes.length)
  }
  return { ok: true, value: null }
}
