import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import type { StreamedBody } from './streamed-body.ts'

export interface UploadProgress {
  sentBytes: number
  totalBytes: number
}

export type FieldPart = { name: string; value: string }
export type FilePart = { name: string; file: string; filename?: string; contentType?: string }
export type Part = FieldPart | FilePart

const chunkBytes = 64 * 1024
const encoder = new TextEncoder()

const contentTypes: Record<string, string> = {
  '.csv': 'text/csv',
  '.sdf': 'chemical/x-mdl-sdfile',
  '.mol': 'chemical/x-mdl-molfile',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.zip': 'application/zip',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.txt': 'text/plain',
  '.json': 'application/json',
}

/** Quotes and line breaks would end the header early; file names keep everything else. */
function headerText(value: string): string {
  return value.replace(/"/g, '%22').replace(/[\r\n]/g, ' ')
}

type Segment = { bytes: Uint8Array } | { file: string; size: number }

/**
 * A multipart/form-data body whose files are read from disk a chunk at a time as the request is
 * sent, never whole. The length is known up front (file sizes are taken first), so the request
 * carries a Content-Length; a file that changes size meanwhile fails the upload rather than
 * sending something else.
 */
export async function multipartBody(
  parts: readonly Part[],
  onProgress?: (progress: UploadProgress) => void,
): Promise<StreamedBody> {
  const boundary = `VaultDesk-${randomBytes(16).toString('hex')}`
  const segments: Segment[] = []
  for (const part of parts) {
    if ('value' in part) {
      segments.push({
        bytes: encoder.encode(
          `--${boundary}\r\nContent-Disposition: form-data; name="${headerText(part.name)}"\r\n\r\n${part.value}\r\n`,
        ),
      })
      continue
    }
    const stat = await fs.stat(part.file)
    if (!stat.isFile()) throw new Error(`${part.file} is not a file.`)
    const filename = part.filename ?? path.basename(part.file)
    const contentType =
      part.contentType ??
      contentTypes[path.extname(filename).toLowerCase()] ??
      'application/octet-stream'
    segments.push({
      bytes: encoder.encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="${headerText(part.name)}"; filename="${headerText(filename)}"\r\nContent-Type: ${contentType}\r\n\r\n`,
      ),
    })
    segments.push({ file: part.file, size: stat.size })
    segments.push({ bytes: encoder.encode('\r\n') })
  }
  segments.push({ bytes: encoder.encode(`--${boundary}--\r\n`) })
  const totalBytes = segments.reduce(
    (sum, segment) => sum + ('bytes' in segment ? segment.bytes.length : segment.size),
    0,
  )

  let index = 0
  /** Bytes of the current segment already given out. */
  let offset = 0
  let handle: fs.FileHandle | undefined
  let sentBytes = 0
  const closeFile = async () => {
    const open = handle
    handle = undefined
    await open?.close()
  }

  /** Fills the start of `target` from the segments; answers how much (0 at the end). */
  async function fill(target: Uint8Array): Promise<number> {
    let filled = 0
    while (filled < target.length) {
      const segment = segments[index]
      if (!segment) break
      if ('bytes' in segment) {
        const piece = segment.bytes.subarray(offset, offset + target.length - filled)
        target.set(piece, filled)
        filled += piece.length
        offset += piece.length
      } else {
        handle ??= await fs.open(segment.file, 'r')
        const wanted = Math.min(target.length - filled, segment.size - offset)
        if (wanted > 0) {
          const { bytesRead } = await handle.read(target, filled, wanted, offset)
          if (bytesRead === 0) {
            await closeFile()
            throw new Error(`${segment.file} shrank while it was being uploaded.`)
          }
          filled += bytesRead
          offset += bytesRead
        }
        if (offset === segment.size) {
          const { bytesRead: extra } = await handle.read(new Uint8Array(1), 0, 1, offset)
          await closeFile()
          if (extra > 0) throw new Error(`${segment.file} grew while it was being uploaded.`)
        } else {
          break // one read of the disk per chunk
        }
      }
      const size = 'bytes' in segment ? segment.bytes.length : segment.size
      if (offset === size) {
        index++
        offset = 0
      }
    }
    return filled
  }

  // A byte stream: a reader that brings its own buffers (`getReader({mode: 'byob'})`) has the
  // file read straight into them, so a sender can reuse a few buffers for a file of any size.
  const stream = new ReadableStream({
    type: 'bytes',
    autoAllocateChunkSize: chunkBytes,
    async pull(controller) {
      const request = controller.byobRequest
      const view = request?.view
      const target = view
        ? new Uint8Array(view.buffer, view.byteOffset, view.byteLength)
        : new Uint8Array(chunkBytes)
      const filled = await fill(target)
      if (filled === 0) {
        controller.close()
        request?.respond(0)
        return
      }
      sentBytes += filled
      if (view) request!.respond(filled)
      else controller.enqueue(target.subarray(0, filled))
      onProgress?.({ sentBytes, totalBytes })
    },
    async cancel() {
      await closeFile()
    },
  }) as ReadableStream<Uint8Array>
  return { contentType: `multipart/form-data; boundary=${boundary}`, length: totalBytes, stream }
}
