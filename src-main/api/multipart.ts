import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import type { StreamedBody } from './transport.ts'

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
  let handle: fs.FileHandle | undefined
  let readFromFile = 0
  let sentBytes = 0
  const closeFile = async () => {
    const open = handle
    handle = undefined
    await open?.close()
  }
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const segment = segments[index]
      if (!segment) {
        controller.close()
        return
      }
      let chunk: Uint8Array
      if ('bytes' in segment) {
        chunk = segment.bytes
        index++
      } else {
        handle ??= await fs.open(segment.file, 'r')
        chunk = new Uint8Array(0)
        if (readFromFile < segment.size) {
          const buffer = new Uint8Array(Math.min(chunkBytes, segment.size - readFromFile))
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, readFromFile)
          if (bytesRead === 0) {
            await closeFile()
            throw new Error(`${segment.file} shrank while it was being uploaded.`)
          }
          chunk = buffer.subarray(0, bytesRead)
          readFromFile += bytesRead
        }
        if (readFromFile === segment.size) {
          const { bytesRead: extra } = await handle.read(new Uint8Array(1), 0, 1, readFromFile)
          await closeFile()
          if (extra > 0) throw new Error(`${segment.file} grew while it was being uploaded.`)
          readFromFile = 0
          index++
        }
        if (chunk.length === 0) return
      }
      sentBytes += chunk.length
      controller.enqueue(chunk)
      onProgress?.({ sentBytes, totalBytes })
    },
    async cancel() {
      await closeFile()
    },
  })
  return { contentType: `multipart/form-data; boundary=${boundary}`, length: totalBytes, stream }
}
